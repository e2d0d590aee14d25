/**
 * Approvals name what they approve: a late `approve --expect` with the previous pending id is refused
 * (exit 4, HTTP 409, RunConflictError) while the run waits for the next approval, and nothing changes.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime } from '../../src/runtime/create.js';
import { ensureBuilt, runCli } from '../cli/helpers/cli.js';
import { FLOW, executedWrites, rootDir, world } from './harness.js';

const root = rootDir('stale');
beforeAll(() => ensureBuilt(), 180_000);
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

type Waiting = {
  runId: string;
  status: string;
  suspension?: { pending: { id: string; args?: { name?: string } } };
};

describe('pending ids', () => {
  it('CLI: two approves of the first item race; the late one is refused, the second write is not approved', async () => {
    const w = world(root, 0);
    const opts = { cwd: w.dir, env: { RACE_DATA: w.dir } };
    const started = await runCli(['run', FLOW, '--input', 'go', '--json', '--db', w.db], opts);
    expect(started.code, started.stderr).toBe(3);
    const first = started.json as Waiting;
    const id1 = first.suspension?.pending.id as string;
    expect(id1).toMatch(/^pnd_[0-9a-f]{16}$/);
    const approve = () => runCli(['approve', first.runId, '--expect', id1, '--json', '--db', w.db], opts);
    const [one, two] = await Promise.all([approve(), approve()]);
    expect([one.code, two.code].sort()).toEqual([3, 4]);
    const moved = (one.code === 3 ? one : two).json as Waiting;
    expect(moved.suspension?.pending.args?.name).toBe('b');
    const id2 = moved.suspension?.pending.id as string;
    expect(id2).not.toBe(id1);

    // A stale approve, later: refused, nothing changed.
    const stale = await approve();
    expect(stale.code).toBe(4);
    expect(stale.stderr).toContain(`waits for pending item ${id2}, not for ${id1}`);
    const status = await runCli(['status', first.runId, '--json', '--db', w.db], opts);
    expect((status.json as Waiting).suspension?.pending.id).toBe(id2);
    expect(executedWrites(w.dir).map((x) => x.name)).toEqual(['a']);
    const trace = await runCli(['trace', first.runId, '--json', '--db', w.db], opts);
    const suspended = trace.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; pending?: { id?: string } })
      .filter((e) => e.type === 'run.suspended');
    expect(suspended.map((e) => e.pending?.id)).toEqual([id1, id2]);

    // The right id goes through.
    const right = await runCli(['approve', first.runId, '--expect', id2, '--json', '--db', w.db], opts);
    expect(right.code, right.stderr).toBe(0);
    expect(executedWrites(w.dir).map((x) => x.name)).toEqual(['a', 'b']);
  });

  it('library: approve/answer with another pending id throw RunConflictError and change nothing', async () => {
    const w = world(root, 0);
    process.env.RACE_DATA = w.dir;
    const runtime = createRuntime({ store: w.db, logger: false });
    try {
      const first = await runtime.start(await loadFlow(FLOW), { input: { text: 'go' } });
      await expect(runtime.approve(first.runId, { expect: 'pnd_0000000000000000' })).rejects.toMatchObject({
        code: 'RUN_CONFLICT',
      });
      await expect(
        runtime.answer(first.runId, 'x', { expect: first.suspension?.pending.id as string }),
      ).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
      const after = await runtime.status(first.runId);
      expect(after.suspension).toEqual(first.suspension);
      expect(executedWrites(w.dir)).toEqual([]);
    } finally {
      await runtime.close();
    }
  });
});
