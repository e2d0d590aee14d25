/**
 * `cancelRun` and `endCancelled` (src/engine/cancel.ts, docs/durability.md "Cancel and shutdown racing
 * a write") against a memory store, with the host's driver, takeover and clock scripted: when a
 * cancel ends the run at once, when it records a request and waits, and when it gives up.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import {
  cancelRun,
  endCancelled,
  inFlightOf,
  settlingModel,
  type CancelHost,
} from '../../src/engine/cancel.js';
import { newRun } from '../../src/engine/new-run.js';
import { RunError, runConflict } from '../../src/domain/run-error.js';
import type { InFlightWrite } from '../../src/records/run-state.js';
import { summarize, type RunSummary } from '../../src/records/summary.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { RunPatch, RunRecord } from '../../src/store/store.js';

const RUN = 'run_cancel';

const write: InFlightWrite = {
  fingerprint: 'save:{"name":"a"}',
  tool: 'save',
  args: { name: 'a' },
  key: '0123456789abcdef0123456789abcdef',
  nodeId: 'work',
  callId: 'c1',
  startedAt: '2026-01-01T00:00:00.000Z',
};

/** A run in the store, then `patch` committed on it (and the in-flight write when `inFlight`). */
async function storedRun(
  store: MemoryStore,
  options: { patch?: RunPatch; inFlight?: boolean; requested?: boolean } = {},
): Promise<RunRecord> {
  const flow = (await loadFlow({ id: 'f', locale: 'en', nodes: [{ id: 'work' }] }, { knownTools: [] })).flow;
  const { run, events } = newRun(RUN, {
    flow,
    flowDir: null,
    input: { text: 'x' },
    model: null,
    parentRunId: null,
    rootRunId: null,
    tenant: null,
    lease: { owner: 'driver', expiresAt: 0 },
  });
  const created = await store.createRun(run, events);
  const state = structuredClone(created.state);
  if (options.inFlight) state.run.inFlight = [write];
  if (options.requested) state.cancelRequested = true;
  return store.commit({ runId: RUN, expectedVersion: created.version, patch: { ...options.patch, state } });
}

/** What a host did, in order. */
type Log = string[];

function host(store: MemoryStore, log: Log, overrides: Partial<CancelHost> = {}): CancelHost {
  return {
    store: () => Promise.resolve(store),
    read: async (runId) => {
      log.push('read');
      const record = await store.getRun(runId);
      if (!record) throw new Error(`no run ${runId}`);
      return record;
    },
    localDriver: () => undefined,
    takeOver: () => Promise.reject(new Error('no takeover expected')),
    endRun: async (record) => {
      log.push(`endRun@${record.version}`);
      return summarize(await endAt(store, record.version));
    },
    clock: () => 0,
    pollMs: 250,
    waitMs: 1000,
    ...overrides,
  };
}

/** Ends the run `cancelled` at a version, as a session's `endCancelled` does. */
function endAt(store: MemoryStore, version: number, status: 'cancelled' | 'completed' = 'cancelled') {
  return store.commit({
    runId: RUN,
    expectedVersion: version,
    patch: {
      status,
      reason: status === 'cancelled' ? 'CANCELLED' : null,
      suspension: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    },
  });
}

async function settle(store: MemoryStore, status: 'cancelled' | 'completed' = 'cancelled'): Promise<void> {
  const now = await store.getRun(RUN);
  await endAt(store, now?.version ?? 0, status);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('cancelRun: no write in flight', () => {
  it('ends a running run at once, then stops the local driver', async () => {
    const store = new MemoryStore();
    const before = await storedRun(store, { patch: { leaseOwner: 'driver', leaseExpiresAt: 10_000 } });
    const log: Log = [];
    const stop = vi.fn(() => log.push('stop'));
    const summary = await cancelRun(
      host(store, log, { localDriver: () => ({ stop, done: new Promise(() => undefined) }) }),
      RUN,
    );
    expect(summary).toMatchObject({ runId: RUN, status: 'cancelled', reason: 'CANCELLED' });
    expect(log).toEqual(['read', `endRun@${before.version}`, 'stop']);
  });

  it('ends a suspended run at once even with a write marked in flight (no driver can be sending it)', async () => {
    const store = new MemoryStore();
    await storedRun(store, { inFlight: true, patch: { status: 'suspended' } });
    const log: Log = [];
    const summary = await cancelRun(host(store, log), RUN);
    expect(summary.status).toBe('cancelled');
    expect(log.filter((l) => l.startsWith('endRun'))).toHaveLength(1);
  });

  it('refuses a run that has ended, naming its status, and changes nothing', async () => {
    for (const status of ['completed', 'failed', 'cancelled'] as const) {
      const store = new MemoryStore();
      const before = await storedRun(store, { patch: { status } });
      const log: Log = [];
      const error = await cancelRun(host(store, log), RUN).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunError);
      expect(error).toMatchObject({ code: 'RUN_CONFLICT', runId: RUN });
      expect((error as Error).message).toBe(`run ${RUN} has already ended (${status})`);
      expect(log).toEqual(['read']);
      expect((await store.getRun(RUN))?.version).toBe(before.version);
    }
  });

  it('reads the run again when it moved between the read and the end', async () => {
    const store = new MemoryStore();
    await storedRun(store);
    const log: Log = [];
    let first = true;
    const h = host(store, log, {
      endRun: async (record) => {
        log.push(`endRun@${record.version}`);
        if (first) {
          first = false;
          // another step of the driver lands first
          await store.commit({ runId: RUN, expectedVersion: record.version, patch: {} });
        }
        return summarize(await endAt(store, record.version));
      },
    });
    const summary = await cancelRun(h, RUN);
    expect(summary.status).toBe('cancelled');
    expect(log).toEqual(['read', 'endRun@2', 'read', 'endRun@3']);
  });

  it('passes on an error of the store that is not a version conflict', async () => {
    const store = new MemoryStore();
    await storedRun(store);
    const h = host(store, [], { endRun: () => Promise.reject(new Error('disk full')) });
    await expect(cancelRun(h, RUN)).rejects.toThrow('disk full');
  });
});

describe('cancelRun: a write in flight', () => {
  it('records a cancel request (no event, lease untouched), stops the local driver and answers its end', async () => {
    const store = new MemoryStore();
    const before = await storedRun(store, {
      inFlight: true,
      patch: { leaseOwner: 'driver', leaseExpiresAt: 10_000 },
    });
    const log: Log = [];
    let release: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (release = resolve));
    const stop = vi.fn(() => {
      log.push('stop');
      // the driver records the write's result, then ends the run cancelled itself
      void store
        .getRun(RUN)
        .then(async (now) => {
          expect(now).toMatchObject({
            version: before.version + 1,
            lastSeq: before.lastSeq,
            leaseOwner: 'driver',
            leaseExpiresAt: 10_000,
          });
          expect(now?.state.cancelRequested).toBe(true);
          expect(inFlightOf(now as RunRecord)).toEqual([write]);
          await settle(store);
        })
        .then(release);
    });
    const summary = await cancelRun(host(store, log, { localDriver: () => ({ stop, done }) }), RUN);
    expect(summary).toMatchObject({ status: 'cancelled', reason: 'CANCELLED' });
    expect(log).toEqual(['read', 'stop', 'read']);
  });

  it('does not record the request twice when it stands, and ignores a driver that failed', async () => {
    const store = new MemoryStore();
    const before = await storedRun(store, { inFlight: true, requested: true });
    const log: Log = [];
    const done = Promise.reject(new Error('driver crashed'));
    done.catch(() => undefined);
    let calls = 0;
    const h = host(store, log, {
      localDriver: () => {
        calls += 1;
        if (calls > 1) return undefined;
        return {
          stop: () => log.push('stop'),
          done: done.finally(() => settle(store)),
        };
      },
    });
    const summary = await cancelRun(h, RUN);
    expect(summary.status).toBe('cancelled');
    expect(log).toEqual(['read', 'stop', 'read']);
    // one commit only: the driver's end (no second request)
    expect((await store.getRun(RUN))?.version).toBe(before.version + 1);
  });

  it('is refused once the driver ended the run otherwise than cancelled', async () => {
    const store = new MemoryStore();
    await storedRun(store, { inFlight: true });
    const h = host(store, [], {
      localDriver: () => ({ stop: () => undefined, done: settle(store, 'completed') }),
    });
    await expect(cancelRun(h, RUN)).rejects.toMatchObject({
      code: 'RUN_CONFLICT',
      message: `run ${RUN} has already ended (completed)`,
    });
  });

  it('takes over a run whose lease expired (at the very instant too), which then ends cancelled', async () => {
    for (const lease of [
      { leaseOwner: null, leaseExpiresAt: null },
      { leaseOwner: 'dead', leaseExpiresAt: 999 },
      { leaseOwner: 'dead', leaseExpiresAt: 1000 },
    ]) {
      const store = new MemoryStore();
      await storedRun(store, { inFlight: true, patch: lease });
      const takeOver = vi.fn(async (runId: string) => {
        expect((await store.getRun(runId))?.state.cancelRequested).toBe(true);
        await settle(store);
      });
      const summary = await cancelRun(host(store, [], { takeOver, clock: () => 1000 }), RUN);
      expect(summary.status).toBe('cancelled');
      expect(takeOver.mock.calls).toEqual([[RUN]]);
    }
  });

  it('looks again when another process took the run over first, and passes on any other takeover error', async () => {
    const store = new MemoryStore();
    await storedRun(store, { inFlight: true });
    let tries = 0;
    const takeOver = vi.fn(async () => {
      tries += 1;
      if (tries === 1) throw runConflict(RUN, 'taken');
      await settle(store);
    });
    expect((await cancelRun(host(store, [], { takeOver }), RUN)).status).toBe('cancelled');
    expect(takeOver).toHaveBeenCalledTimes(2);

    const other = new MemoryStore();
    await storedRun(other, { inFlight: true });
    const failing = host(other, [], {
      takeOver: () => Promise.reject(new RunError('RUN_NOT_FOUND', 'gone')),
    });
    await expect(cancelRun(failing, RUN)).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
  });

  it('polls while a live driver elsewhere settles the write, and answers once it ended the run', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new MemoryStore();
    await storedRun(store, { inFlight: true, patch: { leaseOwner: 'other', leaseExpiresAt: 60_000 } });
    const log: Log = [];
    const pending = cancelRun(host(store, log, { clock: () => Date.now() }), RUN);
    await vi.advanceTimersByTimeAsync(500);
    expect(log).toEqual(['read', 'read', 'read']);
    await settle(store);
    await vi.advanceTimersByTimeAsync(250);
    expect((await pending).status).toBe('cancelled');
    expect(log).toHaveLength(4);
  });

  it('gives up after waitMs (strictly past the deadline) with the request left standing', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new MemoryStore();
    await storedRun(store, { inFlight: true, patch: { leaseOwner: 'other', leaseExpiresAt: 60_000 } });
    const log: Log = [];
    const pending = cancelRun(host(store, log, { clock: () => Date.now() }), RUN);
    let settled = false;
    const outcome = pending.then(
      () => 'answered',
      (e: unknown) => e,
    );
    void outcome.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(1000);
    // at the deadline itself it still waits
    expect(log).toHaveLength(5);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(250);
    const error = await outcome;
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ code: 'RUN_CONFLICT', runId: RUN });
    expect((error as Error).message).toBe(
      `run ${RUN} has a write in flight that its driver is still settling; the cancel is recorded and ends the run once the write's result is`,
    );
    const stored = await store.getRun(RUN);
    expect(stored?.status).toBe('running');
    expect(stored?.state.cancelRequested).toBe(true);
  });
});

describe('endCancelled', () => {
  it('ends a run that has not ended, reading it again after a version conflict', async () => {
    const store = new MemoryStore();
    await storedRun(store);
    const log: Log = [];
    let first = true;
    const summary = await endCancelled(
      {
        read: async (runId) => {
          log.push('read');
          return (await store.getRun(runId)) as RunRecord;
        },
        endRun: async (record) => {
          log.push(`endRun@${record.version}`);
          if (first) {
            first = false;
            await store.commit({ runId: RUN, expectedVersion: record.version, patch: {} });
          }
          return summarize(await endAt(store, record.version));
        },
      },
      RUN,
    );
    expect(summary.status).toBe('cancelled');
    expect(log).toEqual(['read', 'endRun@2', 'read', 'endRun@3']);
  });

  it('answers the summary of a run that ended otherwise, without ending it again', async () => {
    const store = new MemoryStore();
    await storedRun(store, { patch: { status: 'completed', outputs: { work: { n: 1 } } } });
    const endRun = vi.fn<(record: RunRecord) => Promise<RunSummary>>();
    const summary = await endCancelled(
      { read: async (id) => (await store.getRun(id)) as RunRecord, endRun },
      RUN,
    );
    expect(summary).toMatchObject({ status: 'completed', outputs: { work: { n: 1 } } });
    expect(endRun).not.toHaveBeenCalled();
  });

  it('passes on an error that is not a version conflict', async () => {
    const store = new MemoryStore();
    await storedRun(store);
    await expect(
      endCancelled(
        {
          read: async (id) => (await store.getRun(id)) as RunRecord,
          endRun: () => Promise.reject(new Error('disk full')),
        },
        RUN,
      ),
    ).rejects.toThrow('disk full');
  });
});

describe('settlingModel', () => {
  it('never answers a model call', async () => {
    expect(settlingModel.id).toBe('cancel:settling');
    const answer = await settlingModel.call(
      { system: '', messages: [], tools: [] },
      {
        runId: RUN,
        nodeId: 'work',
        callIndex: 0,
      },
    );
    expect(answer).toEqual({ ok: false, message: 'the run is being cancelled; no model call starts' });
  });
});
