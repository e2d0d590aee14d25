import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { RunSummary } from '../../src/records/summary.js';
import type { Store } from '../../src/store/store.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import {
  call,
  eventsOf,
  flow,
  gatedModel,
  makeRuntime,
  ofType,
  script,
  sqliteUrl,
  toolKit,
  turn,
  type ToolKit,
} from './helpers.js';

/** One driver per run (leases), responses accepted once, takeover of a dead driver's run. */
describe('Runtime: races, leases and takeover', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  function rt(kit: ToolKit, store: string | Store, leaseMs?: number): Runtime {
    const runtime = makeRuntime(kit, { store, ...(leaseMs ? { leaseMs } : {}) });
    runtimes.push(runtime);
    return runtime;
  }

  const turns = () => [
    turn([call.tool('save', { name: 'a' })]),
    turn([call.approval('save')]),
    turn([call.tool('save', { name: 'a' })]),
    turn([call.finish()]),
  ];
  const saveFlow = () => flow({ nodes: [{ id: 'work', tools: ['save', 'lookup', 'slow'] }] });

  /** Of two settled responses, exactly one continued the run and the other was refused as a conflict. */
  function oneWins(results: PromiseSettledResult<RunSummary>[]): RunSummary {
    const won = results.filter((r): r is PromiseFulfilledResult<RunSummary> => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect(lost[0]?.reason).toMatchObject({ code: 'RUN_CONFLICT' });
    return (won[0] as PromiseFulfilledResult<RunSummary>).value;
  }

  it('two approvals racing from two runtimes on one SQLite file: one continues, the other conflicts, the write runs once', async () => {
    const kit = toolKit();
    const db = sqliteUrl();
    const first = await rt(kit, db).start(await saveFlow(), {
      input: { text: 'x' },
      model: script(...turns()),
    });
    const a = rt(kit, db);
    const b = rt(kit, db);
    const results = await Promise.allSettled([
      a.approve(first.runId, { model: script(...turns()) }),
      b.approve(first.runId, { model: script(...turns()) }),
    ]);
    expect(oneWins(results).status).toBe('completed');
    expect(kit.count('save')).toBe(1);
    const events = await eventsOf(a, first.runId);
    expect(ofType(events, 'run.resumed')).toHaveLength(1);
    expect(ofType(events, 'run.completed')).toHaveLength(1);
  });

  it('two approvals racing in one runtime: one continues, the other conflicts, the write runs once', async () => {
    const kit = toolKit();
    const runtime = rt(kit, sqliteUrl());
    const first = await runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model: script(...turns()),
    });
    const results = await Promise.allSettled([runtime.approve(first.runId), runtime.approve(first.runId)]);
    expect(oneWins(results).status).toBe('completed');
    expect(kit.count('save')).toBe(1);
    expect(ofType(await eventsOf(runtime, first.runId), 'run.resumed')).toHaveLength(1);
  });

  it('resume: refused while the driver lease is live (nothing changes); after it expires another runtime takes over', async () => {
    const kit = toolKit();
    const db = sqliteUrl();
    const script2 = [turn([call.tool('lookup', { id: 1 })]), turn([call.finish()])];
    const model = gatedModel(1, ...script2);
    const driver = rt(kit, db, 60_000);
    let runId = '';
    const started = driver.start(await saveFlow(), {
      input: { text: 'x' },
      model,
      onAccepted: (s) => (runId = s.runId),
    });
    await model.reached; // the driver now waits on its 2nd model call, holding a live lease
    const rescuer = rt(kit, db);
    const store = await rescuer.db();
    const before = { row: await store.getRun(runId), events: await store.events(runId) };
    expect(before.row).toMatchObject({ status: 'running' });
    await expect(rescuer.resume(runId, { model: script(...script2) })).rejects.toThrow(
      /driven by another process/,
    );
    expect({ row: await store.getRun(runId), events: await store.events(runId) }).toEqual(before);

    // The driver "dies": its lease runs out.
    const row = before.row!;
    await store.commit({ runId, expectedVersion: row.version, patch: { leaseExpiresAt: Date.now() - 1 } });
    const resumed = await rescuer.resume(runId, { model: script(...script2) });
    expect(resumed).toMatchObject({ status: 'completed', outputs: { work: {} } });
    expect(kit.count('lookup')).toBe(1);
    const events = await eventsOf(rescuer, runId);
    const i = events.findIndex((e) => e.type === 'run.resumed');
    expect(events[i]).toMatchObject({ kind: 'RECOVERY', nodeId: 'work' });
    expect(events[i - 1]).toMatchObject({ type: 'tool.invoked', tool: 'lookup' });
    expect(events[i + 1]).toMatchObject({ type: 'react.round', round: 2 });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, k) => k + 1));

    // The old driver wakes up: its next commit loses, it changes nothing and reports the run as it is.
    model.release();
    expect((await started).status).toBe('completed');
    expect(await store.events(runId)).toEqual(events);
    await expect(rescuer.resume(runId)).rejects.toThrow(/is completed, not running/);
  });

  it('after each call the run is persisted: a takeover mid-wave re-runs only the interrupted read', async () => {
    const kit = toolKit();
    let release: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const inSlow = new Promise<void>((resolve) => (entered = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    let slowRuns = 0;
    const slow: LocalTool = defineTool({
      name: 'slow',
      description: 'slow read',
      inputSchema: { type: 'object', properties: {} },
      execute: async () => {
        slowRuns += 1;
        if (slowRuns === 1) {
          entered();
          await gate;
        }
        return { run: slowRuns };
      },
    });
    const withSlow: ToolKit = { ...kit, tools: [...kit.tools, slow] };
    const db = sqliteUrl();
    const turns2 = [
      turn([call.tool('lookup', { id: 1 }), call.tool('slow'), call.tool('lookup', { id: 2 })]),
      turn([call.finish()]),
    ];
    const driver = rt(withSlow, db, 60_000);
    let runId = '';
    const started = driver.start(await saveFlow(), {
      input: { text: 'x' },
      model: script(...turns2),
      onAccepted: (s) => (runId = s.runId),
    });
    await inSlow;
    const rescuer = rt(withSlow, db);
    const store = await rescuer.db();
    const row = (await store.getRun(runId))!;
    expect((await store.evidence(runId)).map((e) => e.tool)).toEqual(['lookup']);
    await store.commit({ runId, expectedVersion: row.version, patch: { leaseExpiresAt: Date.now() - 1 } });
    const resumed = await rescuer.resume(runId, { model: script(...turns2) });
    expect(resumed.status).toBe('completed');
    expect(kit.calls.lookup).toEqual([{ id: 1 }, { id: 2 }]);
    expect(slowRuns).toBe(2);
    expect((await store.evidence(runId)).map((e) => [e.id, e.tool])).toEqual([
      ['ev_1', 'lookup'],
      ['ev_2', 'slow'],
      ['ev_3', 'lookup'],
    ]);
    release();
    await started;
    expect((await store.evidence(runId)).length).toBe(3);
  });
});
