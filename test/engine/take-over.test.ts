import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { call, eventsOf, flow, makeRuntime, script, toolKit, turn, typesOf } from '../runtime/helpers.js';

/** `resume` and a worker's `drive` take a run up through one path; they differ only in when a recovery is traced. */
describe('taking over a running run', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  /** A runtime in queue mode: runs are persisted unleased and their ids collected, not driven. */
  function queueing(): { runtime: Runtime; queued: string[] } {
    const queued: string[] = [];
    const runtime = makeRuntime(toolKit(), {
      enqueue: (runId) => {
        queued.push(runId);
        return Promise.resolve();
      },
    });
    runtimes.push(runtime);
    return { runtime, queued };
  }

  const finishing = () => script(turn([call.tool('lookup', { id: 1 })]), turn([call.finish()]));
  const lookupFlow = () => flow({ nodes: [{ id: 'work', tools: ['lookup'] }] });

  it('drive continues a handed-off run where it stands, without a recovery', async () => {
    const { runtime, queued } = queueing();
    const handed = await runtime.start(await lookupFlow(), { input: { text: 'x' }, model: finishing() });
    expect(handed.status).toBe('running');
    expect(queued).toEqual([handed.runId]);
    expect((await runtime.drive(handed.runId)).status).toBe('completed');
    expect(typesOf(await eventsOf(runtime, handed.runId))).not.toContain('run.resumed');
  });

  it('resume traces a recovery even for a handed-off run; drive does once a dead driver held it', async () => {
    const { runtime } = queueing();
    const first = await runtime.start(await lookupFlow(), { input: { text: 'x' }, model: finishing() });
    expect((await runtime.resume(first.runId)).status).toBe('completed');
    expect(typesOf(await eventsOf(runtime, first.runId))).toContain('run.resumed');

    const second = await runtime.start(await lookupFlow(), { input: { text: 'y' }, model: finishing() });
    const store = await runtime.db();
    const stored = await store.getRun(second.runId);
    // A driver that died: its lease is still on the run, and expired.
    await store.commit({
      runId: second.runId,
      expectedVersion: stored?.version ?? 0,
      patch: { leaseOwner: 'rt_dead', leaseExpiresAt: 1 },
    });
    expect((await runtime.drive(second.runId)).status).toBe('completed');
    const resumed = (await eventsOf(runtime, second.runId)).filter((e) => e.type === 'run.resumed');
    expect(resumed).toMatchObject([{ kind: 'RECOVERY', nodeId: 'work' }]);
  });

  it('both refuse a run that is not running, and one a live lease holds, with nothing changed', async () => {
    const { runtime } = queueing();
    const run = await runtime.start(await lookupFlow(), { input: { text: 'x' }, model: finishing() });
    const store = await runtime.db();
    const stored = await store.getRun(run.runId);
    const held = await store.commit({
      runId: run.runId,
      expectedVersion: stored?.version ?? 0,
      patch: { leaseOwner: 'rt_alive', leaseExpiresAt: Date.now() + 60_000 },
    });
    for (const take of [() => runtime.drive(run.runId), () => runtime.resume(run.runId)]) {
      await expect(take()).rejects.toThrow(/lease has not expired/);
    }
    expect((await store.getRun(run.runId))?.version).toBe(held.version);

    await store.commit({
      runId: run.runId,
      expectedVersion: held.version,
      patch: { status: 'completed', leaseOwner: null, leaseExpiresAt: null },
    });
    for (const take of [() => runtime.drive(run.runId), () => runtime.resume(run.runId)]) {
      const refused = take();
      await expect(refused).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
      await expect(refused).rejects.toThrow(/is completed, not running/);
    }
  });
});
