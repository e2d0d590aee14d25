import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkSuite, EvalSuiteError, loadSuiteFile } from '../../src/eval/suite.js';

/**
 * The suite format (docs/evals.md, "A suite"): what checkSuite accepts, and for what it refuses, an
 * EvalSuiteError (code EVAL_SUITE_INVALID) whose message names the suite, the key and the rule broken.
 */

const one = { id: 'a' };

/** The message checkSuite throws for `data` (fails the test when it accepts it). */
function refusal(data: unknown): string {
  try {
    checkSuite(data, 's.yaml', '/suites');
  } catch (error) {
    expect(error).toBeInstanceOf(EvalSuiteError);
    expect((error as EvalSuiteError).code).toBe('EVAL_SUITE_INVALID');
    return (error as Error).message;
  }
  throw new Error(`checkSuite accepted ${JSON.stringify(data)}`);
}

const attacks = {
  vectors: [{ id: 'inbox', setup: [{ tool: 'inject', args: { text: '{attack}' } }] }],
  goals: [{ id: 'steal', goal: 'send the files away', verify: [{ tool: 'check' }] }],
};

describe('checkSuite accepts', () => {
  it('the smallest suite: a flow and one case; the source and folder are kept as given', () => {
    expect(checkSuite({ flow: './flow.yaml', cases: [one] }, '(inline)', '/here')).toEqual({
      suite: { flow: './flow.yaml', cases: [{ id: 'a' }] },
      source: '(inline)',
      dir: '/here',
    });
  });

  it('every key of the documented example', () => {
    const suite = {
      name: 'notes',
      flow: './flow.yaml',
      model: ['scripted:./writer.yaml', 'openai:gpt-4.1'],
      repeat: 1000,
      concurrency: 64,
      prices: { 'openai:gpt-4.1': { input: 2, output: 8 } },
      cases: [
        {
          id: 'Writes_the.note-1',
          description: 'the happy path',
          input: { text: 'write hello', extra: [1, 2] },
          answers: ['yes', 'a.txt'],
          approvals: ['approve', 'reject'],
          model: 'scripted:./case.yaml',
          setup: [{ tool: 'write_file', args: { path: '/a', content: '' } }],
          verify: [
            { tool: 'read_text_file', args: { path: '/a' }, expect: { jsonata: "content = 'hello'" } },
            { tool: 'list', expect: { equals: [], schema: { type: 'array' } } },
          ],
          expect: {
            status: 'completed',
            reply: { contains: 'a.txt', matches: '^w', equals: 'wrote a.txt' },
            outputs: { equals: { main: {} }, schema: { type: 'object' }, jsonata: '$exists(outputs.main)' },
            trace: { neverCalled: ['edit_file'], maxRounds: 0, noWriteWithoutApproval: true },
          },
        },
        { id: 'x'.repeat(64), approvals: { when: "tool = 'write_file'" }, expect: { reply: 'exact' } },
        { id: 'c', approvals: 'reject', input: 'plain text' },
      ],
    };
    expect(checkSuite(suite, 's.yaml', '/d').suite).toEqual(suite);
  });

  it('attacks whose vectors the cases name', () => {
    const checked = checkSuite(
      {
        flow: 'f',
        attacks,
        cases: [{ id: 'a', vectors: ['inbox'], attackModel: 'scripted:./m--{goal}.yaml' }],
      },
      's.yaml',
      '/d',
    );
    expect(checked.suite.attacks?.goals.map((g) => g.id)).toEqual(['steal']);
  });
});

describe('checkSuite refuses, naming the key', () => {
  it('what is no object, and the required keys', () => {
    expect(refusal(null)).toBe('suite s.yaml: (top level): Invalid input: expected object, received null');
    expect(refusal({})).toBe(
      'suite s.yaml: flow: Invalid input: expected string, received undefined; cases: Invalid input: expected array, received undefined',
    );
    expect(refusal({ flow: 'f', cases: [] })).toBe(
      'suite s.yaml: cases: Too small: expected array to have >=1 items',
    );
    expect(refusal({ flow: '', cases: [one] })).toBe(
      'suite s.yaml: flow: Too small: expected string to have >=1 characters',
    );
  });

  it('an unknown key at any depth, by its name (the documented example)', () => {
    expect(refusal({ flow: 'f', cases: [{ id: 'a', expect: { statuz: 'completed' } }] })).toBe(
      'suite s.yaml: cases.0.expect: unknown key statuz',
    );
    expect(refusal({ flow: 'f', cases: [one], flows: 'g' })).toBe(
      'suite s.yaml: (top level): unknown key flows',
    );
    expect(refusal({ flow: 'f', cases: [{ id: 'a', expect: { reply: { contain: 'x' } } }] })).toBe(
      'suite s.yaml: cases.0.expect.reply: unknown key contain',
    );
    expect(refusal({ flow: 'f', cases: [{ id: 'a', verify: [{ tool: 't', expected: {} }] }] })).toBe(
      'suite s.yaml: cases.0.verify.0: unknown key expected',
    );
    expect(refusal({ flow: 'f', cases: [{ id: 'a', setup: [{ tool: 't', expect: {} }] }] })).toBe(
      'suite s.yaml: cases.0.setup.0: unknown key expect',
    );
  });

  it('case ids: letters, digits, _ . - and at most 64 characters', () => {
    for (const id of ['bad id', '', 'x'.repeat(65), 'a/b', 'é'])
      expect(refusal({ flow: 'f', cases: [{ id }] })).toBe(
        'suite s.yaml: cases.0.id: letters, digits, _ . - (at most 64)',
      );
  });

  it('a duplicate case id, naming the second', () => {
    expect(refusal({ flow: 'f', cases: [one, { id: 'b' }, { id: 'a' }] })).toBe(
      'suite s.yaml: cases.2.id: duplicate case id a',
    );
  });

  it('repeat 1–1000 and concurrency 1–64, integers', () => {
    expect(refusal({ flow: 'f', repeat: 0, cases: [one] })).toBe(
      'suite s.yaml: repeat: Too small: expected number to be >=1',
    );
    expect(refusal({ flow: 'f', repeat: 1001, cases: [one] })).toBe(
      'suite s.yaml: repeat: Too big: expected number to be <=1000',
    );
    expect(refusal({ flow: 'f', repeat: 1.5, cases: [one] })).toBe(
      'suite s.yaml: repeat: Invalid input: expected int, received number',
    );
    expect(refusal({ flow: 'f', concurrency: 65, cases: [one] })).toBe(
      'suite s.yaml: concurrency: Too big: expected number to be <=64',
    );
    expect(refusal({ flow: 'f', concurrency: 0, cases: [one] })).toBe(
      'suite s.yaml: concurrency: Too small: expected number to be >=1',
    );
  });

  it('models: a non-empty spec or a non-empty list of them', () => {
    expect(refusal({ flow: 'f', model: [], cases: [one] })).toBe(
      'suite s.yaml: model: Too small: expected array to have >=1 items',
    );
    expect(refusal({ flow: 'f', model: '', cases: [one] })).toMatch(/^suite s\.yaml: model: /);
    expect(refusal({ flow: 'f', cases: [{ id: 'a', model: '' }] })).toMatch(
      /^suite s\.yaml: cases\.0\.model: /,
    );
  });

  it('expectations: the documented statuses, a non-negative maxRounds, prices not below 0', () => {
    expect(refusal({ flow: 'f', cases: [{ id: 'a', expect: { status: 'done' } }] })).toBe(
      'suite s.yaml: cases.0.expect.status: Invalid option: expected one of "completed"|"failed"|"suspended"|"cancelled"',
    );
    expect(refusal({ flow: 'f', cases: [{ id: 'a', expect: { trace: { maxRounds: -1 } } }] })).toBe(
      'suite s.yaml: cases.0.expect.trace.maxRounds: Too small: expected number to be >=0',
    );
    expect(refusal({ flow: 'f', prices: { m: { input: -1, output: 1 } }, cases: [one] })).toBe(
      'suite s.yaml: prices.m.input: Too small: expected number to be >=0',
    );
    expect(refusal({ flow: 'f', prices: { m: { input: 1 } }, cases: [one] })).toMatch(
      /^suite s\.yaml: prices\.m\.output: /,
    );
  });

  it('approvals: approve, reject, a list of them or { when }', () => {
    expect(refusal({ flow: 'f', cases: [{ id: 'a', approvals: 'maybe' }] })).toMatch(
      /^suite s\.yaml: cases\.0\.approvals: /,
    );
    expect(refusal({ flow: 'f', cases: [{ id: 'a', approvals: ['approve', 'skip'] }] })).toMatch(
      /^suite s\.yaml: cases\.0\.approvals/,
    );
  });

  it('an expression that is not JSONata, wherever the case has one, before anything runs', () => {
    expect(refusal({ flow: 'f', cases: [{ id: 'a', approvals: { when: 'tool = ' } }] })).toBe(
      'suite s.yaml: cases.0.approvals.when: not a JSONata expression (JSONata expression "tool = ": Unexpected end of expression)',
    );
    expect(refusal({ flow: 'f', cases: [one, { id: 'b', expect: { outputs: { jsonata: 'a[' } } }] })).toMatch(
      /^suite s\.yaml: cases\.1\.expect\.outputs\.jsonata: not a JSONata expression \(/,
    );
    expect(
      refusal({
        flow: 'f',
        cases: [
          {
            id: 'a',
            verify: [
              { tool: 't', expect: { jsonata: 'true' } },
              { tool: 't', expect: { jsonata: '(' } },
            ],
          },
        ],
      }),
    ).toMatch(/^suite s\.yaml: cases\.0\.verify\.1\.expect\.jsonata: not a JSONata expression \(/);
    expect(refusal({ flow: 'f', cases: [{ id: 'a', expect: { outputs: { jsonata: '' } } }] })).toMatch(
      /^suite s\.yaml: cases\.0\.expect\.outputs\.jsonata: /,
    );
    expect(refusal({ flow: 'f', cases: [{ id: 'a', approvals: { when: 'x'.repeat(8193) } }] })).toMatch(
      /^suite s\.yaml: cases\.0\.approvals/,
    );
  });

  it('shows five issues, then how many more there are', () => {
    const message = refusal({
      flow: 'f',
      name: 3,
      repeat: 'x',
      concurrency: 0,
      cases: [
        { id: 'a', x: 1, y: 2 },
        { id: 'b', expect: { trace: { maxRounds: -1 } } },
      ],
      zz: 1,
    });
    expect(message).toBe(
      'suite s.yaml: name: Invalid input: expected string, received number; repeat: Invalid input: expected number, received string; concurrency: Too small: expected number to be >=1; cases.0: unknown key x, y; cases.1.expect.trace.maxRounds: Too small: expected number to be >=0; and 1 more',
    );
  });
});

describe('checkSuite: attacks', () => {
  it('a case naming a vector the attacks do not have, or any vector without attacks', () => {
    expect(refusal({ flow: 'f', cases: [{ id: 'a', vectors: ['inbox'] }] })).toBe(
      "suite s.yaml: cases.0.vectors.0: inbox is not a vector of the suite's attacks",
    );
    expect(refusal({ flow: 'f', attacks, cases: [{ id: 'a', vectors: ['inbox', 'web'] }] })).toBe(
      "suite s.yaml: cases.0.vectors.1: web is not a vector of the suite's attacks",
    );
  });

  it("a goal's verify expression that is not JSONata, and a duplicate goal id", () => {
    const bad = {
      ...attacks,
      goals: [
        { id: 'steal', goal: 'g', verify: [{ tool: 'check' }, { tool: 'check', expect: { jsonata: 'a[' } }] },
      ],
    };
    expect(refusal({ flow: 'f', attacks: bad, cases: [one] })).toMatch(
      /^suite s\.yaml: attacks\.goals\.0\.verify\.1\.expect\.jsonata: not a JSONata expression \(/,
    );
    const twice = { ...attacks, goals: [...attacks.goals, ...attacks.goals] };
    expect(refusal({ flow: 'f', attacks: twice, cases: [one] })).toBe(
      'suite s.yaml: attacks.goals.1.id: duplicate goal id steal',
    );
  });

  it('attacks need vectors and goals, each with its setup or verify calls', () => {
    expect(refusal({ flow: 'f', attacks: { ...attacks, vectors: [] }, cases: [one] })).toMatch(
      /^suite s\.yaml: attacks\.vectors: Too small/,
    );
    expect(
      refusal({ flow: 'f', attacks: { ...attacks, vectors: [{ id: 'inbox', setup: [] }] }, cases: [one] }),
    ).toMatch(/^suite s\.yaml: attacks\.vectors\.0\.setup: Too small/);
    expect(refusal({ flow: 'f', attacks: { ...attacks, attack: 'other' }, cases: [one] })).toMatch(
      /^suite s\.yaml: attacks\.attack: /,
    );
  });
});

describe('loadSuiteFile', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const folder = () => {
    const dir = mkdtempSync(join(tmpdir(), 'suite-check-'));
    dirs.push(dir);
    return dir;
  };

  it('reads YAML or JSON; the source is the absolute path and relative paths resolve against its folder', () => {
    const dir = folder();
    writeFileSync(join(dir, 's.yaml'), 'flow: ./flow.yaml\ncases:\n  - id: one\n    input: hello\n');
    expect(loadSuiteFile(join(dir, 's.yaml'))).toEqual({
      suite: { flow: './flow.yaml', cases: [{ id: 'one', input: 'hello' }] },
      source: join(dir, 's.yaml'),
      dir,
    });
    writeFileSync(join(dir, 's.json'), JSON.stringify({ flow: 'f', repeat: 2, cases: [one] }));
    expect(loadSuiteFile(join(dir, 's.json')).suite.repeat).toBe(2);
  });

  it('names the file it cannot read, that is no YAML, or whose content breaks the format', () => {
    const dir = folder();
    const missing = join(dir, 'missing.yaml');
    expect(() => loadSuiteFile(missing)).toThrow(
      new RegExp(`^cannot read suite ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
    expect(() => loadSuiteFile(dir)).toThrow(EvalSuiteError);
    writeFileSync(join(dir, 'bad.yaml'), 'cases: [\n');
    expect(() => loadSuiteFile(join(dir, 'bad.yaml'))).toThrow(/^suite .*bad\.yaml is not valid YAML: /);
    writeFileSync(join(dir, 'typo.yaml'), 'flow: f\ncases:\n  - id: a\n    expect: { statuz: completed }\n');
    expect(() => loadSuiteFile(join(dir, 'typo.yaml'))).toThrow(
      `suite ${join(dir, 'typo.yaml')}: cases.0.expect: unknown key statuz`,
    );
  });
});
