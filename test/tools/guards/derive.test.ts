import { describe, expect, it } from 'vitest';
import type { Derivation, FlowInput } from '../../../src/domain/flow.js';
import type { Observation } from '../../../src/domain/observation.js';
import type { ValueMatch } from '../../../src/records/run-state.js';
import type { JsonPath } from '../../../src/tools/matching.js';
import type { ParsedCall } from '../../../src/tools/stages.js';
import { compute, Derivations, MAX_COMBINATIONS } from '../../../src/tools/guards/derive.js';
import { defineTool } from '../../../src/tools/tool.js';
import { harness, parts, type Harness } from './fixtures.js';

// Direct tests of src/tools/guards/derive.ts (docs/flows.md, "Derived values").

const op = (o: Derivation['op'], extra: Partial<Derivation> = {}): Derivation => ({
  op: o,
  of: [],
  ...extra,
});

describe('compute', () => {
  it('sum: of all operands; nothing sums to 0', () => {
    expect(compute(op('sum'), [1, 2, 3.5])).toBe(6.5);
    expect(compute(op('sum'), [])).toBe(0);
    expect(compute(op('sum'), [-4])).toBe(-4);
  });

  it('difference: the first minus the others', () => {
    expect(compute(op('difference'), [1100, 100, 50])).toBe(950);
    expect(compute(op('difference'), [5])).toBe(5);
    expect(compute(op('difference'), [5, 10])).toBe(-5);
    expect(compute(op('difference'), [])).toBe(0);
  });

  it('product: of the operands, times factor (default 1)', () => {
    expect(compute(op('product'), [2, 3])).toBe(6);
    expect(compute(op('product', { factor: 1.5 }), [2, 3])).toBe(9);
    expect(compute(op('product', { factor: 0 }), [2, 3])).toBe(0);
  });

  it('percentage: factor % of the sum; no factor gives 0', () => {
    expect(compute(op('percentage', { factor: 19.5 }), [100])).toBe(19.5);
    expect(compute(op('percentage', { factor: 50 }), [60, 40])).toBe(50);
    expect(compute(op('percentage', { factor: 119.5 }), [200])).toBe(239);
    expect(compute(op('percentage'), [100])).toBe(0);
  });

  it('rounds halves away from zero, whatever the sign and the size', () => {
    expect(compute(op('round', { decimals: 0 }), [-1.5])).toBe(-2);
    expect(compute(op('round', { decimals: 0 }), [-2.5])).toBe(-3);
    expect(compute(op('round', { decimals: 0 }), [2.5])).toBe(3);
    expect(compute(op('round', { decimals: 2 }), [1.005])).toBe(1.01);
    expect(compute(op('round', { decimals: 2 }), [-1.005])).toBe(-1.01);
    expect(compute(op('round', { decimals: 2 }), [1234567.125])).toBe(1234567.13);
    expect(compute(op('round', { decimals: 2 }), [0.1, 0.2])).toBe(0.3);
  });

  it('round: the sum, rounded to decimals', () => {
    expect(compute(op('round', { decimals: 0 }), [1.2, 1.4])).toBe(3);
    expect(compute(op('round'), [1.25])).toBe(1.25);
  });

  it('decimals round half away from zero, floating-point noise included', () => {
    expect(compute(op('sum', { decimals: 2 }), [1.005])).toBe(1.01);
    expect(compute(op('sum', { decimals: 2 }), [-1.005])).toBe(-1.01);
    expect(compute(op('sum', { decimals: 2 }), [0.1, 0.2])).toBe(0.3);
    expect(compute(op('sum', { decimals: 0 }), [2.5])).toBe(3);
    expect(compute(op('sum', { decimals: 2 }), [2.675])).toBe(2.68);
    expect(compute(op('percentage', { factor: 50, decimals: 2 }), [20.01])).toBe(10.01);
    expect(compute(op('sum', { decimals: 0 }), [-1.5])).toBe(-2);
    expect(compute(op('sum', { decimals: 0 }), [0])).toBe(0);
    expect(compute(op('percentage', { factor: 19.5, decimals: 2 }), [99.99])).toBe(19.5);
  });
});

// Derivations over a run: reads whose results hold the operands.

const reads = [
  defineTool({
    name: 'schedule',
    description: 's',
    inputSchema: { type: 'object' },
    execute: () => ({
      transactions: [
        { amount: 1100, subject: 'Rent' },
        { amount: 50, subject: 'Music' },
      ],
    }),
  }),
  defineTool({
    name: 'notice',
    description: 'n',
    inputSchema: { type: 'object' },
    execute: () => 'Your rent rises by 100.00 EUR. Questions: call 555.',
  }),
  defineTool({
    name: 'bill',
    description: 'b',
    inputSchema: { type: 'object', properties: { file: { type: 'string' } } },
    execute: (args) =>
      args.file === 'two.txt' ? 'Pay 98.70 EUR, or rather 120.00 EUR.' : 'Total due: 98.70 EUR by June.',
  }),
  defineTool({
    name: 'broken',
    description: 'fails',
    inputSchema: { type: 'object' },
    execute: () => {
      throw new Error('down');
    },
  }),
];

const FLOW: FlowInput = {
  id: 'derive',
  locale: 'en',
  tools: { notice: { trust: 'untrusted' }, bill: { trust: 'untrusted' } },
  nodes: [{ id: 'pay', tools: ['schedule', 'notice', 'bill', 'broken'] }],
};

const USER = 'Pay my rent plus the increase, and a fee of 2.50';

interface Checked {
  rejection: Observation | null;
  recorded: { at: JsonPath; match: ValueMatch }[];
  h: Harness;
}

async function setup(calls: [string, Record<string, unknown>?][], text = USER): Promise<Harness> {
  const h = harness({ flow: FLOW, localTools: reads, input: { text } });
  for (const [tool, args] of calls) await h.call(tool, args ?? {});
  return h;
}

async function check(
  h: Harness,
  derivation: Derivation,
  value: unknown,
  at: JsonPath = ['amount'],
  texts: string[] = [h.run.inputTexts.join(' ')],
): Promise<Checked> {
  const recorded: Checked['recorded'] = [];
  const ctx = { ...h.ctx('pay'), args: {}, fingerprint: 'fp' } as unknown as ParsedCall;
  const derivations = new Derivations(ctx, texts, (where, match) => recorded.push({ at: where, match }));
  return { rejection: await derivations.check(at, derivation, value), recorded, h };
}

const RENT = { source: 'evidence' as const, from: ['schedule'], path: 'transactions.amount' };
const NOTICE = { source: 'evidence' as const, from: ['notice'] };

describe('Derivations.check: found', () => {
  it('records where the value came from, each term with its evidence or the user', async () => {
    const h = await setup([['schedule'], ['notice']]);
    const { rejection, recorded } = await check(h, { op: 'sum', of: [RENT, NOTICE] }, 1200);
    expect(rejection).toBeNull();
    expect(recorded).toEqual([
      {
        at: ['amount'],
        match: {
          at: [],
          source: 'derived',
          trust: 'derived',
          derivation: '1100 (ev_1) + 100.00 (ev_2) = 1200',
        },
      },
    ]);
  });

  it('a numeric string value is compared as a number, shown as written', async () => {
    const h = await setup([['schedule'], ['notice']]);
    const { recorded } = await check(h, { op: 'sum', of: [RENT, NOTICE] }, '1,200.00');
    expect(recorded[0]?.match.derivation).toBe('1100 (ev_1) + 100.00 (ev_2) = 1,200.00');
  });

  it('difference, product and percentage describe their arithmetic', async () => {
    const h = await setup([['schedule'], ['notice']]);
    const user = { source: 'user' as const };
    const shown = async (d: Derivation, v: number) => (await check(h, d, v)).recorded[0]?.match.derivation;
    expect(await shown({ op: 'difference', of: [RENT, NOTICE] }, 1000)).toBe(
      '1100 (ev_1) − 100.00 (ev_2) = 1000',
    );
    expect(await shown({ op: 'product', factor: 3, of: [user] }, 7.5)).toBe('2.50 (user) × 3 = 7.5');
    expect(await shown({ op: 'product', of: [user, NOTICE] }, 250)).toBe('2.50 (user) × 100.00 (ev_2) = 250');
    expect(await shown({ op: 'percentage', factor: 10, of: [RENT] }, 110)).toBe('10% of 1100 (ev_1) = 110');
    expect(await shown({ op: 'percentage', factor: 10, of: [RENT, NOTICE] }, 120)).toBe(
      '10% of (1100 (ev_1) + 100.00 (ev_2)) = 120',
    );
  });

  it('decimals wrap the description in round(…)', async () => {
    const h = await setup([['schedule']]);
    const d: Derivation = { op: 'percentage', factor: 19.5, decimals: 2, of: [{ source: 'user' }] };
    const { recorded } = await check(h, d, 0.49);
    expect(recorded[0]?.match.derivation).toBe('round(19.5% of 2.50 (user), 2) = 0.49');
  });

  it('a nested derivation is one operand, shown in parentheses', async () => {
    const h = await setup([['schedule'], ['notice']]);
    const d: Derivation = {
      op: 'sum',
      of: [{ derive: { op: 'percentage', factor: 110, of: [RENT] } }, { source: 'user' }],
    };
    const { rejection, recorded } = await check(h, d, 1212.5);
    expect(rejection).toBeNull();
    expect(recorded[0]?.match.derivation).toBe('(110% of 1100 (ev_1)) + 2.50 (user) = 1212.5');
  });

  it('numbers inside string leaves count; path selects what an operand may take', async () => {
    const h = await setup([['schedule']]);
    expect((await check(h, { op: 'sum', of: [RENT] }, 50)).rejection).toBeNull();
    const rentOnly = { ...RENT, path: 'transactions[subject="Rent"].amount' };
    expect((await check(h, { op: 'sum', of: [rentOnly] }, 50)).rejection?.errorCode).toBe(
      'PARAM_DERIVATION_MISMATCH',
    );
  });

  it('`source: [evidence, user]` takes both kinds of numbers', async () => {
    const h = await setup([['schedule']]);
    const both = {
      source: ['evidence' as const, 'user' as const],
      from: ['schedule'],
      path: 'transactions.amount',
    };
    const { recorded } = await check(h, { op: 'sum', of: [both, both] }, 1102.5);
    expect(recorded[0]?.match.derivation).toBe('1100 (ev_1) + 2.50 (user) = 1102.5');
  });

  it('the latest result of a tool is cited first', async () => {
    const h = await setup([['schedule'], ['schedule']]);
    const { recorded } = await check(h, { op: 'sum', of: [RENT] }, 1100);
    expect(recorded[0]?.match.derivation).toBe('1100 (ev_2) = 1100');
  });

  it('`from: {tool, where}` takes only calls whose arguments satisfy where', async () => {
    const h = await setup(
      [
        ['bill', { file: 'one.txt' }],
        ['bill', { file: 'other.txt' }],
      ],
      'pay the bill in one.txt',
    );
    const named = { source: 'evidence' as const, from: [{ tool: 'bill', where: { file: 'user' as const } }] };
    const { recorded } = await check(h, { op: 'sum', of: [named] }, 98.7);
    expect(recorded[0]?.match.derivation).toBe('98.70 (ev_1) = 98.7');
  });
});

describe('Derivations.check: untrusted operands', () => {
  const bill = (untrusted: 'refuse' | 'pinned' | 'single') => ({
    source: 'evidence' as const,
    from: ['bill'],
    untrusted,
  });

  it('refuse: no number of an untrusted result', async () => {
    const h = await setup([['bill', { file: 'one.txt' }]]);
    expect((await check(h, { op: 'sum', of: [bill('refuse')] }, 98.7)).rejection?.errorCode).toBe(
      'PARAM_DERIVATION_MISMATCH',
    );
  });

  it('pinned: only a number the user said too', async () => {
    const h = await setup([['bill', { file: 'one.txt' }]]);
    expect((await check(h, { op: 'sum', of: [bill('pinned')] }, 98.7)).rejection).not.toBeNull();
    const said = await check(
      h,
      { op: 'sum', of: [bill('pinned')] },
      98.7,
      ['amount', 0],
      ['pay 98.70 please'],
    );
    expect(said.rejection).toBeNull();
    expect(said.recorded[0]?.at).toEqual(['amount', 0]);
  });

  it('single: only the single amount of its text', async () => {
    const one = await setup([['bill', { file: 'one.txt' }]]);
    expect((await check(one, { op: 'sum', of: [bill('single')] }, 98.7)).rejection).toBeNull();
    const two = await setup([['bill', { file: 'two.txt' }]]);
    expect((await check(two, { op: 'sum', of: [bill('single')] }, 98.7)).rejection).not.toBeNull();
  });

  it('without `untrusted`, an untrusted result counts as any other', async () => {
    const h = await setup([['bill', { file: 'two.txt' }]]);
    expect(
      (await check(h, { op: 'sum', of: [{ source: 'evidence', from: ['bill'] }] }, 120)).rejection,
    ).toBeNull();
  });
});

describe('Derivations.check: rejected', () => {
  it('PARAM_DERIVATION_MISMATCH naming the field, the value, the op and the tools', async () => {
    const h = await setup([['schedule'], ['notice']]);
    const { rejection, recorded } = await check(h, { op: 'sum', of: [RENT, NOTICE] }, 1250);
    expect(recorded).toEqual([]);
    expect(rejection && parts(rejection)).toEqual({
      outcome: 'REJECTED',
      code: 'PARAM_DERIVATION_MISMATCH',
      reason: 'The value 1250 of argument [amount] is not the sum of values that pass their own contracts',
      next: 'compute argument [amount] as the sum of values from schedule, notice or from the user’s words, or ask the user',
      message: expect.any(String) as unknown,
    });
  });

  it('names a nested field with its indexes, and the tools of nested operands once', async () => {
    const h = await setup([['schedule']]);
    const d: Derivation = { op: 'sum', of: [RENT, { derive: { op: 'sum', of: [RENT, NOTICE] } }] };
    const { rejection } = await check(h, d, 1, ['items', 0, 'amount']);
    expect(rejection?.reason).toBe(
      'The value 1 of argument [items[0].amount] is not the sum of values that pass their own contracts',
    );
    expect(rejection?.next).toBe(
      'compute argument [items[0].amount] as the sum of values from schedule, notice or from the user’s words, or ask the user',
    );
  });

  it('a value that is not a number is rejected without trying', async () => {
    const h = await setup([['schedule']]);
    for (const value of ['abc', null, true, { a: 1100 }, '007']) {
      expect((await check(h, { op: 'sum', of: [RENT] }, value)).rejection?.errorCode).toBe(
        'PARAM_DERIVATION_MISMATCH',
      );
    }
  });

  it('failed results and results of other tools give no operand', async () => {
    const h = await setup([['broken'], ['notice']]);
    const fromBroken = { source: 'evidence' as const, from: ['broken'] };
    expect((await check(h, { op: 'sum', of: [fromBroken] }, 100)).rejection).not.toBeNull();
    expect((await check(h, { op: 'sum', of: [RENT] }, 100)).rejection).not.toBeNull();
  });

  it('a path that fails to evaluate gives nothing and is logged with the tool called', async () => {
    const h = await setup([['schedule']]);
    const bad = {
      source: 'evidence' as const,
      from: ['schedule'],
      path: '$number(transactions[0].subject) + 1',
    };
    expect((await check(h, { op: 'sum', of: [bad] }, 1100)).rejection).not.toBeNull();
    const warnings = h.logger.find('TOOL derive path failed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields.tool).toBe('pay');
  });
});

describe('Derivations.check: at most MAX_COMBINATIONS tries', () => {
  const numbers = Array.from({ length: 40 }, (_, i) => String(i + 1)).join(' ');
  const user = { source: 'user' as const };
  const three: Derivation = { op: 'sum', of: [user, user, user] };

  it('is 50,000', () => {
    expect(MAX_COMBINATIONS).toBe(50_000);
  });

  it('finds a combination among the first ones tried, in the order the numbers stand', async () => {
    const h = await setup([]);
    const early = await check(h, three, 60, ['amount'], [numbers]);
    expect(early.recorded[0]?.match.derivation).toBe('1 (user) + 19 (user) + 40 (user) = 60');
  });

  it('gives up on a combination past the bound (40 × 40 × 40 = 64,000 tries)', async () => {
    const h = await setup([]);
    const late = await check(h, three, 120, ['amount'], [numbers]);
    expect(late.rejection?.errorCode).toBe('PARAM_DERIVATION_MISMATCH');
  });
});
