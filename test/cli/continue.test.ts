import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  World,
  approval,
  ask,
  builtinFlow,
  create,
  ensureBuilt,
  fail,
  finish,
  siteFlow,
  turnsYaml,
  type Summary,
} from './helpers/cli.js';

/** The commands that continue or inspect a run, as subprocesses sharing one SQLite file. */
describe('cli: continuing and inspecting runs', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  function writes(): unknown[] {
    const file = join(w.dataDir, 'writes.jsonl');
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
  }

  async function suspendedOnApproval(
    after: unknown[] = [create('官网'), finish],
  ): Promise<{ flow: string; runId: string }> {
    const flow = w.write('flow.yaml', siteFlow(w.dataDir));
    w.write('turns.yaml', turnsYaml([create('官网'), approval, ...after]));
    const r = await w.cli([
      'run',
      flow,
      '--input',
      '创建 官网',
      '--model',
      'scripted:turns.yaml',
      '--json',
      '--trace',
      w.traceFile,
    ]);
    expect(r.code).toBe(3);
    const s = r.json as Summary;
    expect(s.suspension).toEqual({
      kind: 'APPROVAL',
      pending: {
        tool: 'web_site_create',
        args: { spaceId: 's1', name: '官网' },
        summary: 'create it',
        provenance: {},
        id: expect.stringMatching(/^pnd_[0-9a-f]{16}$/),
      },
    });
    return { flow, runId: s.runId };
  }

  it('approve continues in another process; --trace FILE appends both processes events; a second approve exits 4 and changes nothing', async () => {
    const { runId } = await suspendedOnApproval();
    const afterRun = w.traceEvents();
    expect(afterRun.at(-1)).toMatchObject({ type: 'run.suspended', kind: 'APPROVAL' });
    const approved = await w.cli([
      'approve',
      runId,
      '--comment',
      'go ahead',
      '--json',
      '--trace',
      w.traceFile,
    ]);
    expect(approved.code).toBe(0);
    expect(approved.json).toMatchObject({ runId, status: 'completed', outputs: { create: {} } });
    expect(writes()).toHaveLength(1);
    const all = w.traceEvents();
    expect(all.slice(0, afterRun.length)).toEqual(afterRun);
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    expect(all[afterRun.length]).toMatchObject({
      type: 'run.resumed',
      kind: 'APPROVAL',
      decision: 'approved',
      comment: 'go ahead',
      who: 'tester',
    });
    expect(all.at(-1)).toMatchObject({ type: 'run.completed', outputs: { create: {} } });

    const before = await w.snapshot(runId);
    const again = await w.cli(['approve', runId, '--json', '--trace', w.traceFile]);
    expect(again.code).toBe(4);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('nothing changed');
    expect(await w.snapshot(runId)).toEqual(before);
    expect(w.traceEvents()).toHaveLength(all.length);
    expect(writes()).toHaveLength(1);
  });

  it('reject: the decision reaches the model as APPROVAL_DENIED; exit by the final status', async () => {
    const { runId } = await suspendedOnApproval([fail('the user declined')]);
    const r = await w.cli(['reject', runId, '--comment', 'not now', '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      status: 'failed',
      reason: 'FAILED_BY_MODEL',
      message: 'the user declined',
    });
    const events = await (await w.db()).events(runId);
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({
      decision: 'rejected',
      comment: 'not now',
    });
    expect(events.find((e) => e.type === 'tool.invoked' && e.tool === 'builtin_node_approval')).toMatchObject(
      { errorCode: 'APPROVAL_DENIED' },
    );
    expect(writes()).toHaveLength(0);
  });

  it('answer: only while a follow-up waits; the wrong kind of response exits 4 with the store unchanged', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('turns.yaml', turnsYaml([ask('Which colour?'), finish]));
    const run = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml', '--json']);
    const runId = (run.json as Summary).runId;
    const before = await w.snapshot(runId);
    for (const args of [
      ['approve', runId],
      ['reject', runId],
      ['resume', runId],
    ]) {
      const r = await w.cli([...args, '--json']);
      expect(r.code, args.join(' ')).toBe(4);
      expect(await w.snapshot(runId)).toEqual(before);
    }
    const answered = await w.cli(['answer', runId, 'blue', '--json']);
    expect(answered.code).toBe(0);
    expect(answered.json).toMatchObject({ status: 'completed' });
    await expect((await w.db()).events(runId)).resolves.toContainEqual(
      expect.objectContaining({ type: 'run.resumed', kind: 'FOLLOW_UP', answer: 'blue' }),
    );
    const done = await w.snapshot(runId);
    expect((await w.cli(['answer', runId, 'red'])).code).toBe(4);
    expect(await w.snapshot(runId)).toEqual(done);
  });

  it('cancel: exit 0 with a cancelled summary and run.cancelled in --trace; then 4; status of a cancelled run exits 1', async () => {
    const { runId } = await suspendedOnApproval();
    const r = await w.cli(['cancel', runId, '--json', '--trace', w.traceFile]);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ runId, status: 'cancelled', reason: 'CANCELLED' });
    expect(w.traceEvents().at(-1)).toMatchObject({ type: 'run.cancelled', reason: 'CANCELLED', runId });
    const before = await w.snapshot(runId);
    const again = await w.cli(['cancel', runId, '--json']);
    expect(again.code).toBe(4);
    expect(again.stderr).toContain('already ended');
    expect((await w.cli(['approve', runId])).code).toBe(4);
    expect(await w.snapshot(runId)).toEqual(before);
    const status = await w.cli(['status', runId, '--json']);
    expect(status.code).toBe(1);
    expect(status.json).toMatchObject({ status: 'cancelled' });
    expect(writes()).toHaveLength(0);
  });

  it('status, runs and trace: exit codes and JSON shapes', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('ok.yaml', turnsYaml([finish]));
    w.write('bad.yaml', turnsYaml([fail('no')]));
    w.write('wait.yaml', turnsYaml([ask('Q?')]));
    const ids: Record<string, string> = {};
    for (const name of ['ok', 'bad', 'wait']) {
      const r = await w.cli(['run', flow, '--input', name, '--model', `scripted:${name}.yaml`, '--json']);
      ids[name] = (r.json as Summary).runId;
    }
    const codes = await Promise.all(
      ['ok', 'bad', 'wait'].map(async (n) => (await w.cli(['status', ids[n] as string, '--json'])).code),
    );
    expect(codes).toEqual([0, 1, 3]);
    const status = await w.cli(['status', ids.wait as string, '--json']);
    expect(status.json).toMatchObject({
      runId: ids.wait,
      status: 'suspended',
      suspension: { kind: 'FOLLOW_UP', pending: { question: 'Q?' } },
    });

    const runs = await w.cli(['runs', '--json']);
    expect(runs.code).toBe(0);
    expect((runs.json as Summary[]).map((s) => s.runId)).toEqual([ids.wait, ids.bad, ids.ok]);
    for (const s of runs.json as Summary[])
      expect(Object.keys(s)).toEqual(expect.arrayContaining(['runId', 'status', 'outputs', 'usage']));
    const failed = await w.cli(['runs', '--status', 'failed', '--json']);
    expect((failed.json as Summary[]).map((s) => s.runId)).toEqual([ids.bad]);
    const plain = await w.cli(['runs']);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim().split('\n')).toHaveLength(4); // a header row and three runs

    const trace = await w.cli(['trace', ids.ok as string, '--json']);
    expect(trace.code).toBe(0);
    const lines = trace.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { seq: number; type: string; runId: string });
    expect(lines.map((e) => e.type)).toEqual([
      'run.started',
      'node.started',
      'react.round',
      'model.response',
      'tool.invoked',
      'node.completed',
      'run.completed',
    ]);
    expect(lines.every((e) => e.runId === ids.ok)).toBe(true);
    expect(lines).toEqual(await (await w.db()).events(ids.ok as string));
    const readable = await w.cli(['trace', ids.ok as string]);
    expect(readable.code).toBe(0);
    expect(readable.stderr).toContain('run completed');

    for (const args of [
      ['status', 'run_nope'],
      ['trace', 'run_nope'],
      ['approve', 'run_nope'],
      ['answer', 'run_nope', 'x'],
      ['resume', 'run_nope'],
      ['cancel', 'run_nope'],
    ]) {
      const r = await w.cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('unknown run id run_nope');
    }
    expect((await (await w.db()).listRuns()).length).toBe(3);
  });

  it('a --model given to a continuing command becomes the run model (relative paths against the cwd)', async () => {
    const flow = w.write('flow.yaml', builtinFlow());
    w.write('first.yaml', turnsYaml([ask('Q1?'), finish]));
    w.write('second.yaml', turnsYaml([{ text: 'unused' }, ask('Q2?'), finish]));
    const run = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:first.yaml', '--json']);
    const runId = (run.json as Summary).runId;
    expect((await (await w.db()).getRun(runId))?.model).toBe(`scripted:${w.dir}/first.yaml`);
    const switched = await w.cli(['answer', runId, 'a1', '--model', 'scripted:second.yaml', '--json']);
    expect(switched.code).toBe(3);
    expect(switched.json).toMatchObject({ suspension: { pending: { question: 'Q2?' } } });
    expect((await (await w.db()).getRun(runId))?.model).toBe(`scripted:${w.dir}/second.yaml`);
    const done = await w.cli(['answer', runId, 'a2', '--json']);
    expect(done.code).toBe(0);
  });
});
