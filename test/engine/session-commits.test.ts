/**
 * RunSession beyond test/engine/session.test.ts: the lease stamped on commits, the cancel request a
 * commit adopts (and the write-ahead commit that must not), lease renewal, ending a run cancelled,
 * delivery of committed events, what a session opens, and what it has spent.
 */
import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { newRun } from '../../src/engine/new-run.js';
import { RunSession } from '../../src/engine/session.js';
import { isVersionConflict } from '../../src/store/store-error.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { RunPatch, RunRecord, StoredEvent } from '../../src/store/store.js';
import { EventHub } from '../../src/trace/event-hub.js';

const RUN = 'run_commits';

async function created(
  store: MemoryStore,
  runId = RUN,
  parentRunId: string | null = null,
): Promise<RunRecord> {
  const flow = (await loadFlow({ id: 'f', locale: 'en', nodes: [{ id: 'work' }] }, { knownTools: [] })).flow;
  const { run, events } = newRun(runId, {
    flow,
    flowDir: null,
    input: { text: 'x' },
    model: null,
    parentRunId,
    rootRunId: parentRunId,
    tenant: null,
    lease: { owner: 'me', expiresAt: 1_000 },
  });
  return store.createRun(run, events);
}

interface Opened {
  store: MemoryStore;
  session: RunSession;
  delivered: StoredEvent[];
  published: StoredEvent[];
  now: { ms: number };
}

async function open(options: { lease?: boolean } = {}): Promise<Opened> {
  const store = new MemoryStore();
  const record = await created(store);
  const hub = new EventHub();
  const published: StoredEvent[] = [];
  hub.subscribe(RUN, (event) => published.push(event));
  const delivered: StoredEvent[] = [];
  const now = { ms: 10_000 };
  const session = await RunSession.open(store, hub, record, [(event) => delivered.push(event)], {
    clock: () => now.ms,
  });
  if (options.lease !== false) session.lease = { owner: 'me', ms: 5_000 };
  return { store, session, delivered, published, now };
}

/** Another process's commit on the run: `patch`, and the state changed by `state`. */
async function elsewhere(
  store: MemoryStore,
  change: { patch?: RunPatch; state?: (state: RunRecord['state']) => void; event?: boolean } = {},
): Promise<RunRecord> {
  const now = (await store.getRun(RUN)) as RunRecord;
  const state = structuredClone(now.state);
  change.state?.(state);
  const events: StoredEvent[] = change.event
    ? [
        {
          seq: now.lastSeq + 1,
          ts: '2026-01-01T00:00:00.000Z',
          runId: RUN,
          type: 'react.round',
          nodeId: 'work',
          round: 9,
        },
      ]
    : [];
  return store.commit({
    runId: RUN,
    expectedVersion: now.version,
    patch: { ...change.patch, state },
    events,
  });
}

const requestCancel = (store: MemoryStore) => elsewhere(store, { state: (s) => (s.cancelRequested = true) });

describe('RunSession: the lease on commits', () => {
  it('stamps its lease from its clock on every commit of a running run', async () => {
    const { store, session, now } = await open();
    await session.checkpoint();
    expect(await store.getRun(RUN)).toMatchObject({ leaseOwner: 'me', leaseExpiresAt: 15_000 });
    now.ms = 12_000;
    await session.checkpoint();
    expect(await store.getRun(RUN)).toMatchObject({ leaseOwner: 'me', leaseExpiresAt: 17_000 });
  });

  it('leaves the lease fields alone without a lease, for a run that stops running, or when the step sets them', async () => {
    const bare = await open({ lease: false });
    await bare.session.checkpoint();
    expect(await bare.store.getRun(RUN)).toMatchObject({ leaseOwner: 'me', leaseExpiresAt: 1_000 });

    const suspending = await open();
    suspending.session.update({ status: 'suspended' });
    await suspending.session.checkpoint();
    expect(await suspending.store.getRun(RUN)).toMatchObject({ status: 'suspended', leaseExpiresAt: 1_000 });

    const releasing = await open();
    releasing.session.update({ leaseOwner: null, leaseExpiresAt: null });
    await releasing.session.checkpoint();
    expect(await releasing.store.getRun(RUN)).toMatchObject({ leaseOwner: null, leaseExpiresAt: null });
  });

  it('renews only the lease: what is buffered stays buffered', async () => {
    const { store, session, now } = await open();
    const base = session.current.lastSeq;
    session.emit({ type: 'react.round', nodeId: 'work', round: 1 });
    now.ms = 20_000;
    await session.renewLease();
    const stored = (await store.getRun(RUN)) as RunRecord;
    expect(stored).toMatchObject({ leaseOwner: 'me', leaseExpiresAt: 25_000, lastSeq: base, version: 2 });
    expect(session.current.version).toBe(2);
    await session.checkpoint();
    expect((await store.events(RUN, base)).map((e) => e.seq)).toEqual([base + 1]);
  });

  it('does not renew without a lease or once the run is not running', async () => {
    const bare = await open({ lease: false });
    await bare.session.renewLease();
    expect((await bare.store.getRun(RUN))?.version).toBe(1);

    const ended = await open();
    ended.session.update({ status: 'completed' });
    await ended.session.checkpoint();
    await ended.session.renewLease();
    expect((await ended.store.getRun(RUN))?.version).toBe(2);
  });
});

describe('RunSession: a cancel request made meanwhile', () => {
  it('is adopted by an ordinary commit, which lands with it, and told once', async () => {
    const { store, session, delivered } = await open();
    let told = 0;
    session.onCancelRequested = () => (told += 1);
    await requestCancel(store);
    const event = session.emit({ type: 'react.round', nodeId: 'work', round: 1 });
    await session.checkpoint();
    expect(told).toBe(1);
    const stored = (await store.getRun(RUN)) as RunRecord;
    expect(stored.version).toBe(3);
    expect(stored.state.cancelRequested).toBe(true);
    expect(stored.lastSeq).toBe(event.seq);
    expect(delivered.map((e) => e.seq)).toEqual([event.seq]);
    // later commits keep it (the session's own state carries it now) and tell nobody again
    await session.checkpoint();
    expect((await store.getRun(RUN))?.state.cancelRequested).toBe(true);
    expect(told).toBe(1);
  });

  it('fails a write-ahead commit, keeping everything buffered for the next commit', async () => {
    const { store, session, delivered, published } = await open();
    let told = 0;
    session.onCancelRequested = () => (told += 1);
    await requestCancel(store);
    const event = session.emit({ type: 'react.round', nodeId: 'work', round: 1 });
    const error = await session.checkpoint({ beforeEffect: true }).catch((e: unknown) => e);
    expect(isVersionConflict(error)).toBe(true);
    expect(told).toBe(0);
    expect(delivered).toEqual([]);
    expect(published).toEqual([]);
    await session.checkpoint();
    expect(told).toBe(1);
    expect(delivered.map((e) => e.seq)).toEqual([event.seq]);
  });

  it('is adopted by a lease renewal too', async () => {
    const { store, session } = await open();
    let told = 0;
    session.onCancelRequested = () => (told += 1);
    await requestCancel(store);
    await session.renewLease();
    expect(told).toBe(1);
    expect(session.current.version).toBe(3);
  });

  it('is not adopted when anything else changed: an event, another lease owner, another status', async () => {
    const changes: Parameters<typeof elsewhere>[1][] = [
      { state: (s) => (s.cancelRequested = true), event: true },
      { state: (s) => (s.cancelRequested = true), patch: { leaseOwner: 'thief' } },
      { state: (s) => (s.cancelRequested = true), patch: { status: 'suspended' } },
      // a change that is no cancel request
      { patch: { message: 'someone else' } },
    ];
    for (const change of changes) {
      const { store, session } = await open();
      let told = 0;
      session.onCancelRequested = () => (told += 1);
      await elsewhere(store, change);
      session.emit({ type: 'react.round', nodeId: 'work', round: 1 });
      const error = await session.checkpoint().catch((e: unknown) => e);
      expect(isVersionConflict(error), JSON.stringify(change?.patch)).toBe(true);
      expect(told).toBe(0);
    }
  });
});

describe('RunSession.endCancelled', () => {
  it('ends the run cancelled in one commit: event, status, reason, no suspension, no lease', async () => {
    const { store, session, delivered } = await open();
    session.update({ status: 'suspended', suspension: null });
    await session.checkpoint();
    const event = await session.endCancelled();
    expect(event).toMatchObject({ type: 'run.cancelled', reason: 'CANCELLED', runId: RUN });
    expect(await store.getRun(RUN)).toMatchObject({
      status: 'cancelled',
      reason: 'CANCELLED',
      suspension: null,
      leaseOwner: null,
      leaseExpiresAt: null,
      lastSeq: event.seq,
    });
    expect(delivered.at(-1)).toEqual(event);
  });

  it('fails, never adopting, when a cancel request came meanwhile', async () => {
    const { store, session } = await open();
    await requestCancel(store);
    const error = await session.endCancelled().catch((e: unknown) => e);
    expect(isVersionConflict(error)).toBe(true);
    expect((await store.getRun(RUN))?.status).toBe('running');
  });
});

describe('RunSession: events and what it reads', () => {
  it('delivers committed events to its sinks and the hub in seq order, stamped by its clock', async () => {
    const { session, delivered, published, now } = await open();
    const base = session.current.lastSeq;
    now.ms = Date.parse('2026-03-01T12:00:00.000Z');
    session.emit({ type: 'react.round', nodeId: 'work', round: 1 });
    session.emit({ type: 'react.round', nodeId: 'work', round: 2 });
    expect(delivered).toEqual([]);
    await session.checkpoint();
    expect(delivered.map((e) => [e.seq, e.round, e.ts])).toEqual([
      [base + 1, 1, '2026-03-01T12:00:00.000Z'],
      [base + 2, 2, '2026-03-01T12:00:00.000Z'],
    ]);
    expect(published).toEqual(delivered);
  });

  it('bounds a tool result in the trace by resultBytes (0: not traced)', async () => {
    const { session } = await open();
    const invoked = {
      type: 'tool.invoked' as const,
      nodeId: 'work',
      round: 1,
      callId: 'c1',
      tool: 'lookup',
      args: {},
      outcome: 'SUCCESS',
      errorCode: null,
      message: 'ok',
      evidenceId: null,
      executed: true,
      level: 'info' as const,
      lookBack: false,
      result: { rows: 'x'.repeat(100) },
    };
    expect(session.emit(invoked)).toMatchObject({ result: { rows: 'x'.repeat(100) } });
    session.resultBytes = 0;
    const bare = session.emit(invoked);
    expect(bare).not.toHaveProperty('result');
    expect(bare).not.toHaveProperty('resultTruncated');
    session.resultBytes = 20;
    expect(session.emit(invoked)).toMatchObject({ resultTruncated: true });
  });

  it('reads no conversation for a session that only ends the run, and the stored one otherwise', async () => {
    const { store, session } = await open();
    session.doc.nodeId = 'work';
    session.doc.nodeRuns = 1;
    session.addMessage({ role: 'user', content: 'kept' });
    await session.checkpoint();
    const record = (await store.getRun(RUN)) as RunRecord;
    const full = await RunSession.open(store, new EventHub(), record);
    expect(full.conversation()).toEqual([{ role: 'user', content: 'kept' }]);
    const light = await RunSession.open(store, new EventHub(), record, [], { journal: false });
    expect(light.conversation()).toEqual([]);
    // `stored` reads the store, `current` is what this session committed
    await elsewhere(store, { patch: { message: 'moved' } });
    expect((await full.stored())?.message).toBe('moved');
    expect(full.current.message).toBeNull();
  });

  it('counts its staged usage, its cost and what its child runs committed, recursively', async () => {
    const { store, session } = await open();
    const child = await created(store, 'run_child', RUN);
    await store.commit({
      runId: 'run_child',
      expectedVersion: child.version,
      patch: {
        usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
        state: { ...child.state, cost: 0.5 },
      },
    });
    const grandchild = await created(store, 'run_grandchild', 'run_child');
    await store.commit({
      runId: 'run_grandchild',
      expectedVersion: grandchild.version,
      patch: { usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 } },
    });
    session.addUsage({ inputTokens: 20, outputTokens: 2, totalTokens: 22 });
    session.doc.cost = 0.25;
    expect(await session.spent()).toEqual({ tokens: 22 + 110 + 10, cost: 0.75 });
  });
});
