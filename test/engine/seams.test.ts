import { afterEach, describe, expect, it } from 'vitest';
import type { IdSource } from '../../src/engine/seams.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { call, eventsOf, flow, makeRuntime, script, toolKit, turn } from '../runtime/helpers.js';

/** Ids counted up from 1, so that a test knows them in advance. */
function countingIds(): IdSource {
  let runs = 0;
  return {
    runId: () => `run_${String((runs += 1)).padStart(20, '0')}`,
    owner: () => 'rt_test-owner',
  };
}

describe('the engine seams: clock, ids and configuration are injected', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  const saveFlow = () => flow({ nodes: [{ id: 'work', tools: ['save'] }] });
  const approvalTurns = () => [
    turn([call.tool('save', { name: 'a' })]),
    turn([call.approval('save', 'save a')]),
    turn([call.tool('save', { name: 'a' })]),
    turn([call.finish()]),
  ];

  it('run ids, event times and leases come from the injected ids and clock', async () => {
    let now = Date.UTC(2030, 0, 2, 3, 4, 5);
    const runtime = makeRuntime(toolKit(), { clock: () => now, ids: countingIds(), leaseMs: 5_000 });
    runtimes.push(runtime);
    const first = await runtime.start(await saveFlow(), {
      input: { text: 'save a' },
      model: script(...approvalTurns()),
    });
    expect(first.runId).toBe('run_00000000000000000001');
    expect(first.status).toBe('suspended');
    const started = await eventsOf(runtime, first.runId);
    expect(new Set(started.map((e) => e.ts))).toEqual(new Set(['2030-01-02T03:04:05.000Z']));

    now += 60_000;
    const second = await runtime.start(await saveFlow(), {
      input: { text: 'save b' },
      model: script(turn([call.finish()])),
    });
    expect(second.runId).toBe('run_00000000000000000002');
    expect((await eventsOf(runtime, second.runId)).at(-1)?.ts).toBe('2030-01-02T03:05:05.000Z');

    // A cancellation is committed by a session too: its event carries the injected time.
    now += 1_000;
    await runtime.cancel(first.runId);
    expect((await eventsOf(runtime, first.runId)).at(-1)).toMatchObject({
      type: 'run.cancelled',
      ts: '2030-01-02T03:05:06.000Z',
    });
  });

  it('a lease is written with the injected owner and clock', async () => {
    const now = Date.UTC(2030, 0, 1);
    let seen: { owner: string | null; expiresAt: number | null } | null = null;
    const runtime = makeRuntime(toolKit(), { clock: () => now, ids: countingIds(), leaseMs: 7_000 });
    runtimes.push(runtime);
    const store = await runtime.db();
    const model = script(turn([call.finish()]));
    const observing = {
      id: model.id,
      call: async (...args: Parameters<typeof model.call>) => {
        const run = await store.getRun('run_00000000000000000001');
        seen = { owner: run?.leaseOwner ?? null, expiresAt: run?.leaseExpiresAt ?? null };
        return model.call(...args);
      },
    };
    await runtime.start(await saveFlow(), { input: { text: 'x' }, model: observing });
    expect(seen).toEqual({ owner: 'rt_test-owner', expiresAt: now + 7_000 });
  });

  it('settings not given as options are read from the injected environment, not process.env', () => {
    const runtime = makeRuntime(toolKit(), { env: { AGENT_RUNTIME_LEASE_MS: '4321' } });
    runtimes.push(runtime);
    expect(runtime.leaseLength).toBe(4321);
    expect(() => makeRuntime(toolKit(), { env: { AGENT_RUNTIME_TRACE_RESULT_BYTES: 'lots' } })).toThrow(
      /AGENT_RUNTIME_TRACE_RESULT_BYTES="lots"/,
    );
  });
});
