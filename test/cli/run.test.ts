import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  World,
  ask,
  builtinFlow,
  ensureBuilt,
  fail,
  finish,
  turnsYaml,
  type Summary,
} from './helpers/cli.js';

/** `agent-runtime run` as a subprocess: exit codes, the --json summary, input handling, usage errors. */
describe('cli: run', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('completed → exit 0 and exactly one JSON summary on stdout; progress on stderr', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([{ ...finish, usage: { inputTokens: 12, outputTokens: 5 } }]));
    const r = await w.cli(['run', flow, '--input', 'hello', '--model', 'scripted:turns.yaml', '--json']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const s = r.json as Summary;
    expect(s).toMatchObject({
      status: 'completed',
      outputs: { a: {} },
      usage: { inputTokens: 12, outputTokens: 5, totalTokens: 17 },
    });
    expect(s.runId).toMatch(/^run_/);
    expect(s).not.toHaveProperty('suspension');
    expect(s).not.toHaveProperty('reason');
    expect(r.stderr).toContain('run completed');
  });

  it('failed → exit 1 with reason, failedNode and message in the summary', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([fail('cannot')]));
    const r = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      status: 'failed',
      reason: 'FAILED_BY_MODEL',
      failedNode: 'a',
      message: 'cannot',
      outputs: {},
    });
  });

  it('suspended → exit 3; the summary has suspension {kind, pending}; stderr names the run id and what it waits for', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([ask('Which colour?')]));
    const r = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml', '--json']);
    expect(r.code).toBe(3);
    const s = r.json as Summary;
    expect(s).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'FOLLOW_UP', pending: { question: 'Which colour?', options: null } },
    });
    expect(r.stderr).toContain(s.runId);
    expect(r.stderr).toContain('waiting for an answer: Which colour?');
    expect(r.stderr).toContain(`agent-runtime answer ${s.runId}`);
  });

  it('without --json the summary goes to stderr and stdout stays empty', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([finish]));
    const r = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/run run_\w+: completed/);
  });

  it("the flow's own relative scripted: model resolves against the flow's folder, stored absolute", async () => {
    w.write('turns.yaml', turnsYaml([finish]));
    const flow = w.write(
      'flow.yaml',
      builtinFlow().replace('locale: en', 'locale: en\nmodel: scripted:./turns.yaml'),
    );
    const elsewhere = new World();
    try {
      const r = await elsewhere.cli(['run', flow, '--input', 'x', '--json']);
      expect(r.code).toBe(0);
      const row = await (await elsewhere.db()).getRun((r.json as Summary).runId);
      expect(row?.model).toBe(`scripted:${w.dir}/turns.yaml`);
    } finally {
      await elsewhere.dispose();
    }
  });

  it('past the last scripted turn: exit 1, MODEL_FAILED "scripted model has no turn N"', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([{ text: 'thinking' }]));
    const r = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({ reason: 'MODEL_FAILED', message: 'scripted model has no turn 2' });
  });

  describe('input', () => {
    const typed = builtinFlow().replace(
      'nodes:',
      'input: { type: object, properties: { orderId: { type: integer }, note: { type: string } }, required: [orderId], additionalProperties: false }\nnodes:',
    );

    it('--input TEXT on a flow whose input schema does not accept {text} exits 2 and starts nothing', async () => {
      const flow = w.write('flow.yaml', typed);
      w.write('turns.yaml', turnsYaml([finish]));
      const r = await w.cli(['run', flow, '--input', 'order 7', '--model', 'scripted:turns.yaml', '--json']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')[0]).toMatch(/^agent-runtime: /);
      expect(await (await w.db()).listRuns()).toEqual([]);
    });

    it('--input-json @file and inline JSON are validated against the input schema', async () => {
      const flow = w.write('flow.yaml', typed);
      w.write('turns.yaml', turnsYaml([finish]));
      w.write('input.json', JSON.stringify({ orderId: 7, note: '加急' }));
      const ok = await w.cli([
        'run',
        flow,
        '--input-json',
        '@input.json',
        '--model',
        'scripted:turns.yaml',
        '--json',
      ]);
      expect(ok.code).toBe(0);
      const events = await (await w.db()).events((ok.json as Summary).runId);
      expect(events[0]).toMatchObject({
        type: 'run.started',
        flowId: 'plain',
        flowVersion: 1,
        input: { orderId: 7, note: '加急' },
      });
      const inline = await w.cli([
        'run',
        flow,
        '--input-json',
        '{"orderId": 8}',
        '--model',
        'scripted:turns.yaml',
        '--json',
      ]);
      expect(inline.code).toBe(0);
      const bad = await w.cli([
        'run',
        flow,
        '--input-json',
        '{"orderId": "eight"}',
        '--model',
        'scripted:turns.yaml',
        '--json',
      ]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('orderId');
      const missing = await w.cli([
        'run',
        flow,
        '--input-json',
        '@nope.json',
        '--model',
        'scripted:turns.yaml',
        '--json',
      ]);
      expect(missing.code).toBe(2);
      expect((await (await w.db()).listRuns()).length).toBe(2);
    });
  });

  describe('usage and flow errors exit 2', () => {
    it('an unknown flag: one line naming it', async () => {
      const flow = w.write('flow.yaml', builtinFlow());
      const r = await w.cli(['run', flow, '--input', 'x', '--bogus']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain('--bogus');
    });

    it.each([
      [['run'], 'missing FLOW.yaml'],
      [['frobnicate'], 'unknown command "frobnicate"'],
      [['status'], 'missing RUN_ID'],
      [['answer', 'run_x'], 'missing RUN_ID and TEXT'],
      [['runs', '--status', 'sleeping'], '--status must be one of'],
      [['run', 'flow.yaml', '--input', 'x', '--durability', 'weak'], '--durability must be normal or strict'],
    ])('%j → %s', async (args, message) => {
      w.write('flow.yaml', builtinFlow());
      const r = await w.cli(args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    });

    it('no command prints the usage and exits 2; --help exits 0', async () => {
      const none = await w.cli([], { db: false });
      expect(none.code).toBe(2);
      expect(none.stderr).toContain('usage: agent-runtime');
      const help = await w.cli(['run', '--help'], { db: false });
      expect(help.code).toBe(0);
    });

    it('a missing or invalid flow file exits 2 and names the problem', async () => {
      const missing = await w.cli(['run', 'nope.yaml', '--input', 'x']);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('file not found');
      const bad = w.write('bad.yaml', builtinFlow('    colour: red'));
      const invalid = await w.cli(['run', bad, '--input', 'x', '--model', 'scripted:t.yaml']);
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toContain('colour');
    });

    it('a missing scripted model file exits 2 before a run exists', async () => {
      const flow = w.write('flow.yaml', builtinFlow());
      const r = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:missing.yaml']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('cannot read scripted model file');
      expect(await (await w.db()).listRuns()).toEqual([]);
    });
  });
});
