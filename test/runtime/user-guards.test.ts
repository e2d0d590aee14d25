import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create.js';
import { loadFlow } from '../../src/flow/load.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { defineGuard, GuardDefinitionError, type Guard } from '../../src/tools/user-guards/define.js';
import type { GuardVerdict } from '../../src/tools/user-guards/verdict.js';
import { call, eventsOf, ofType, recordingModel, turn } from './helpers.js';

/** The refund limit of docs/interceptors.md. */
const refundLimit = defineGuard({
  name: 'refund-limit',
  codes: { REFUND_OVER_LIMIT: { number: 61001, outcome: 'REJECTED' } },
  before: (c) =>
    c.tool === 'refund' && c.args.amount > 100
      ? c.reject(
          'REFUND_OVER_LIMIT',
          `the refund of ${c.args.amount} is over the limit of 100`,
          'refund at most 100, or ask the user for a manager approval',
        )
      : undefined,
});

function refundTool(): { tool: LocalTool; sent: unknown[] } {
  const sent: unknown[] = [];
  const tool = defineTool<{ amount: number }>({
    name: 'refund',
    description: 'Refunds an amount to the customer',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    execute: (args) => {
      sent.push(args);
      return { refunded: args.amount };
    },
  }) as LocalTool;
  return { tool, sent };
}

const refundFlow = () =>
  loadFlow(
    { id: 'refunds', locale: 'en', nodes: [{ id: 'pay', tools: ['refund'] }] },
    { knownTools: ['refund'] },
  );

/** Runs refund calls (one per turn) then finishes; returns what was sent, the events and the model's requests. */
async function refunds(guards: Guard[], ...amounts: number[]) {
  const { tool, sent } = refundTool();
  const runtime = createRuntime({ tools: [tool], guards, logger: false });
  const model = recordingModel(
    ...amounts.map((amount) => turn([call.tool('refund', { amount })])),
    turn([call.finish()]),
  );
  const summary = await runtime.start(await refundFlow(), { input: { text: 'refund me' }, model });
  const events = await eventsOf(runtime, summary.runId);
  await runtime.close();
  const invoked = ofType(events, 'tool.invoked');
  return { summary, sent, invoked, model };
}

/** The tool message the model got for its n-th call (0-based), in the request after it. */
function toolText(model: Awaited<ReturnType<typeof refunds>>['model'], n: number): string {
  const messages = model.requests[n + 1]?.messages ?? [];
  const tool = messages.filter((m) => m.role === 'tool').at(-1);
  return tool?.role === 'tool' ? tool.content : '';
}

/** The call of the sloppy guard below, typed loosely: it builds verdicts the types would refuse. */
type Sloppy = Record<'reject' | 'defer', (code: string, reason: string, next: string) => GuardVerdict>;

describe('user guards: before', () => {
  it('rejects refund {amount: 250} with the guard’s code and next step, the tool never runs; 50 runs', async () => {
    const { summary, sent, invoked, model } = await refunds([refundLimit], 250, 50);
    expect(summary.status).toBe('completed');
    expect(sent).toEqual([{ amount: 50 }]);
    expect(invoked.map((e) => [e.outcome, e.errorCode, e.executed])).toEqual([
      ['REJECTED', 'REFUND_OVER_LIMIT', false],
      ['SUCCESS', null, true],
      ['SUCCESS', null, false],
    ]);
    expect(toolText(model, 0)).toBe(
      '[REJECTED REFUND_OVER_LIMIT] the refund of 250 is over the limit of 100. Next: refund at most 100, or ask the user for a manager approval.',
    );
  });

  it('a verdict without a next step never lets the call run: FAILED GUARD_VERDICT_INVALID naming the guard', async () => {
    const noNext = defineGuard({
      name: 'no-next',
      codes: { NOPE: { number: 61002, outcome: 'REJECTED' } },
      before: (c) => c.reject('NOPE', 'not today', '  '),
    });
    const { sent, invoked, model } = await refunds([noNext], 10);
    expect(sent).toEqual([]);
    expect(invoked[0]).toMatchObject({
      outcome: 'FAILED',
      errorCode: 'GUARD_VERDICT_INVALID',
      executed: false,
    });
    expect(toolText(model, 0)).toContain('Guard no-next gave an invalid verdict on the call of refund');
    expect(toolText(model, 0)).toContain('the next step is empty');
  });

  it.each([
    ['a code of another outcome', (c: Sloppy) => c.reject('LATER', 'r', 'n'), 'LATER is DEFERRED'],
    ['a code it did not declare', (c: Sloppy) => c.reject('OTHER', 'r', 'n'), '"OTHER" is not one of'],
    ['an empty reason', (c: Sloppy) => c.defer('LATER', '', 'first this'), 'the reason is empty'],
    ['an empty prerequisite', (c: Sloppy) => c.defer('LATER', 'r', ''), 'the prerequisite is empty'],
    ['a hand-made verdict', () => ({ outcome: 'REJECTED', code: 'NO', reason: 'r', next: 'n' }), 'an object'],
    ['a bad verdict it built and then dropped', (c: Sloppy) => void c.reject('LATER', 'r', 'n'), 'DEFERRED'],
  ])('%s is FAILED GUARD_VERDICT_INVALID and the tool never runs', async (_, before, detail) => {
    const guard = defineGuard({
      name: 'sloppy',
      codes: { NO: { number: 62000, outcome: 'REJECTED' }, LATER: { number: 62001, outcome: 'DEFERRED' } },
      // The types refuse these verdicts (a code of another outcome does not compile): a JavaScript guard may still build them.
      before: before as never,
    });
    const { sent, invoked, model } = await refunds([guard], 10);
    expect(sent).toEqual([]);
    expect(invoked[0]).toMatchObject({ outcome: 'FAILED', errorCode: 'GUARD_VERDICT_INVALID' });
    expect(toolText(model, 0)).toContain(detail);
  });

  it('a guard that throws is FAILED GUARD_ERROR, the run goes on, the tool never runs', async () => {
    const broken = defineGuard({
      name: 'broken',
      codes: {},
      before: () => Promise.reject(new Error('rules service down')),
    });
    const { summary, sent, invoked, model } = await refunds([broken], 10);
    expect(summary.status).toBe('completed');
    expect(sent).toEqual([]);
    expect(invoked[0]).toMatchObject({ outcome: 'FAILED', errorCode: 'GUARD_ERROR', executed: false });
    expect(toolText(model, 0)).toContain(
      'Guard broken failed while checking the call of refund: rules service down',
    );
  });

  it('a guard that never answers is FAILED GUARD_ERROR after toolTimeoutMs; the run goes on', async () => {
    const stuck = defineGuard({ name: 'stuck', codes: {}, before: () => new Promise<undefined>(() => {}) });
    const { tool, sent } = refundTool();
    const runtime = createRuntime({ tools: [tool], guards: [stuck], logger: false });
    const flow = await loadFlow(
      {
        id: 'refunds',
        locale: 'en',
        limits: { toolTimeoutMs: 150 },
        nodes: [{ id: 'pay', tools: ['refund'] }],
      },
      { knownTools: ['refund'] },
    );
    const model = recordingModel(turn([call.tool('refund', { amount: 10 })]), turn([call.finish()]));
    const summary = await runtime.start(flow, { input: { text: 'refund me' }, model });
    const invoked = ofType(await eventsOf(runtime, summary.runId), 'tool.invoked');
    await runtime.close();
    expect(summary.status).toBe('completed');
    expect(sent).toEqual([]);
    expect(invoked[0]).toMatchObject({ outcome: 'FAILED', errorCode: 'GUARD_ERROR', executed: false });
    expect(toolText(model, 0)).toContain(
      'Guard stuck failed while checking the call of refund: no answer within 150 ms',
    );
  });

  it('sees frozen copies of the arguments, the run input, the node and the evidence', async () => {
    const seen: unknown[] = [];
    const spy = defineGuard({
      name: 'spy',
      codes: {},
      before: (c) => {
        seen.push({ tool: c.tool, kind: c.kind, write: c.write, args: c.args, input: c.input, node: c.node });
        seen.push(c.evidence.map((e) => [e.id, e.tool, e.outcome]));
        expect(Object.isFrozen(c.args) && Object.isFrozen(c.evidence) && Object.isFrozen(c.input)).toBe(true);
        expect(() => ((c.args as Record<string, unknown>).amount = 1)).toThrow(TypeError);
      },
    });
    const { sent } = await refunds([spy], 20, 30);
    expect(sent).toEqual([{ amount: 20 }, { amount: 30 }]);
    expect(seen[0]).toEqual({
      tool: 'refund',
      kind: 'local',
      write: false,
      args: { amount: 20 },
      input: { text: 'refund me' },
      node: { id: 'pay', outputs: {} },
    });
    expect(seen[1]).toEqual([]);
    expect(seen[3]).toEqual([['ev_1', 'refund', 'SUCCESS']]);
  });

  it('guards are asked in order and the first verdict ends the call', async () => {
    const asked: string[] = [];
    const first = defineGuard({
      name: 'first',
      codes: { FIRST_NO: { number: 63000, outcome: 'DEFERRED' } },
      before: (c) => {
        asked.push('first');
        return c.defer('FIRST_NO', 'the customer is not verified yet', 'verify the customer first');
      },
    });
    const second = defineGuard({
      name: 'second',
      codes: {},
      before: () => void asked.push('second'),
    });
    const { invoked, sent } = await refunds([first, second], 10);
    expect(asked).toEqual(['first']);
    expect(sent).toEqual([]);
    expect(invoked[0]).toMatchObject({ outcome: 'DEFERRED', errorCode: 'FIRST_NO' });
  });
});

describe('user guards: where they sit', () => {
  it('after the argument check (invalid arguments never reach a guard), before the write gate', async () => {
    const asked: unknown[] = [];
    const guard = defineGuard({
      name: 'watch',
      codes: { PAUSED: { number: 64000, outcome: 'REJECTED' } },
      before: (c) => {
        asked.push(c.args);
        return c.write ? c.reject('PAUSED', 'payouts are paused', 'tell the user payouts are paused') : null;
      },
    });
    const sent: unknown[] = [];
    const payout = defineTool<{ amount: number }>({
      name: 'payout',
      description: 'Pays out',
      write: true,
      inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
      execute: (args) => void sent.push(args),
    });
    const runtime = createRuntime({ tools: [refundTool().tool, payout], guards: [guard], logger: false });
    const loaded = await loadFlow(
      { id: 'pay', locale: 'en', nodes: [{ id: 'pay', tools: ['refund', 'payout'] }] },
      { knownTools: ['refund', 'payout'] },
    );
    const model = recordingModel(
      turn([call.tool('refund', { amount: 'lots' })]),
      turn([call.tool('payout', { amount: 5 })]),
      turn([call.finish()]),
    );
    const summary = await runtime.start(loaded, { input: { text: 'pay' }, model });
    const invoked = ofType(await eventsOf(runtime, summary.runId), 'tool.invoked');
    await runtime.close();
    expect(invoked.slice(0, 2).map((e) => e.errorCode)).toEqual(['ARG_REJECTED', 'PAUSED']);
    expect(asked).toEqual([{ amount: 5 }]);
    expect(sent).toEqual([]);
  });
});

describe('user guards: after', () => {
  it('turns a successful result into FAILED with the guard’s code; the evidence records the failure', async () => {
    const paidOut = defineGuard({
      name: 'daily-cap',
      codes: { DAILY_CAP_REACHED: { number: 61010, outcome: 'FAILED' } },
      after: (c) =>
        (c.result.data as { refunded: number }).refunded >= 40
          ? c.fail(
              'DAILY_CAP_REACHED',
              'the daily refund cap is reached',
              'tell the user to come back tomorrow',
            )
          : undefined,
    });
    const { sent, invoked, model } = await refunds([paidOut], 10, 40);
    expect(sent).toEqual([{ amount: 10 }, { amount: 40 }]);
    expect(invoked.slice(0, 2).map((e) => [e.outcome, e.errorCode, e.executed, e.evidenceId])).toEqual([
      ['SUCCESS', null, true, 'ev_1'],
      ['FAILED', 'DAILY_CAP_REACHED', true, 'ev_2'],
    ]);
    expect(toolText(model, 1)).toBe(
      '[FAILED DAILY_CAP_REACHED] the daily refund cap is reached. Next: tell the user to come back tomorrow. (evidence: ev_2)\n{"refunded":40}',
    );
  });

  it('a throwing after is FAILED GUARD_ERROR, never SUCCESS', async () => {
    const broken = defineGuard({
      name: 'broken-after',
      codes: {},
      after: () => {
        throw new Error('boom');
      },
    });
    const { invoked } = await refunds([broken], 10);
    expect(invoked[0]).toMatchObject({ outcome: 'FAILED', errorCode: 'GUARD_ERROR', executed: true });
  });
});

describe('defineGuard and createRuntime refuse bad guards', () => {
  const before = () => undefined;
  it.each([
    [{ name: 'x y', codes: {}, before }, 'invalid guard name'],
    [{ name: 'g', codes: { LOW: { number: 42001, outcome: 'REJECTED' } }, before }, 'outside the range'],
    [{ name: 'g', codes: { ARG_REJECTED: { number: 60001, outcome: 'REJECTED' } }, before }, 'runtime'],
    [{ name: 'g', codes: { lower: { number: 60001, outcome: 'REJECTED' } }, before }, 'upper case'],
    [{ name: 'g', codes: { OK: { number: 60001, outcome: 'SUCCESS' } }, before }, 'outcome must be'],
    [{ name: 'g', codes: {} }, 'give `before`, `after` or both'],
  ])('%j', (spec, message) => {
    expect(() => defineGuard(spec as never)).toThrow(GuardDefinitionError);
    expect(() => defineGuard(spec as never)).toThrow(message);
  });

  it('two guards of one name, a code declared twice, something not made by defineGuard', () => {
    const a = defineGuard({ name: 'a', codes: { A_NO: { number: 60001, outcome: 'REJECTED' } }, before });
    const a2 = defineGuard({ name: 'a', codes: {}, before });
    const b = defineGuard({ name: 'b', codes: { B_NO: { number: 60001, outcome: 'REJECTED' } }, before });
    expect(() => createRuntime({ guards: [a, a2] })).toThrow('two guards are named "a"');
    expect(() => createRuntime({ guards: [a, b] })).toThrow('B_NO (60001) is also declared by guard a');
    expect(() => createRuntime({ guards: [{ name: 'c', codes: {}, before } as never] })).toThrow(
      'guards[0] is not a guard',
    );
    // One guard instead of a list, or null: the same error class, saying what to write.
    expect(() => createRuntime({ guards: a as never })).toThrow(GuardDefinitionError);
    expect(() => createRuntime({ guards: a as never })).toThrow('guards must be a list of guards');
    expect(() => createRuntime({ guards: null as never })).toThrow('not null');
  });
});
