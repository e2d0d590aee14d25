/**
 * The Store contract: the same cases run on every implementation (STYLE habit 5, after Hono's
 * src/router/common.case.test.ts). Call `storeContract` from an implementation's test file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvidenceRecord } from '../../src/domain/run-state.js';
import {
  StoreError,
  VersionConflictError,
  type NewRun,
  type RunRecord,
  type Store,
  type StoredEvent,
  type StoredMessage,
} from '../../src/store/store.js';

/** Opens a fresh, empty store that uses `now` for its timestamps. */
export type OpenStore = (now: () => Date) => Promise<Store>;

export function newRun(runId: string, fields: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    parentRunId: null,
    rootRunId: runId,
    tenant: null,
    flowId: 'site-setup',
    flowVersion: '1',
    flow: { id: 'site-setup', nodes: [{ id: 'query' }, { id: 'create' }] },
    flowDir: '/flows',
    model: 'scripted:/turns.json',
    input: { text: 'create a site' },
    status: 'running',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    outputs: {},
    state: { approvals: [], inFlight: [] },
    leaseOwner: null,
    leaseExpiresAt: null,
    ...fields,
  };
}

export function event(
  runId: string,
  seq: number,
  type = 'tool.invoked',
  extra: Record<string, unknown> = {},
): StoredEvent {
  return {
    seq,
    ts: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
    runId,
    type,
    nodeId: 'query',
    round: 1,
    ...extra,
  };
}

export function evidence(n: number, fields: Partial<EvidenceRecord> = {}): EvidenceRecord {
  return {
    id: `ev_${n}`,
    tool: 'site_query',
    args: { name: `s${n}` },
    fingerprint: `fp${n}`,
    outcome: 'SUCCESS',
    errorCode: null,
    payload: { rows: [n] },
    ts: '2025-01-01T00:00:00Z',
    nodeId: 'query',
    callId: `call_${n}`,
    ...fields,
  };
}

export function message(nodeRun: string, index: number, text = `m${index}`): StoredMessage {
  return { nodeRun, index, message: { role: 'assistant', content: text } };
}

/** Rejects with a StoreError carrying `code`. */
async function expectStoreError(promise: Promise<unknown>, code: StoreError['code']): Promise<void> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  expect((error as StoreError).code).toBe(code);
}

/** A clock that moves one second per reading, so creation order is visible in timestamps. */
function steppingClock(): () => Date {
  let t = Date.parse('2025-01-01T00:00:00Z');
  return () => new Date((t += 1000));
}

/** Registers the contract cases for one Store implementation. */
export function storeContract(name: string, open: OpenStore): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open(steppingClock());
    });
    afterEach(async () => {
      await store.close();
    });

    /** Creates run `r1` with events 1..2 and returns it. */
    const seed = (runId = 'r1', fields: Partial<NewRun> = {}): Promise<RunRecord> =>
      store.createRun(newRun(runId, fields), [
        event(runId, 1, 'run.started'),
        event(runId, 2, 'node.started'),
      ]);

    describe('create, get, list', () => {
      it('creates a run at version 1 with lastSeq from its events and the store clock', async () => {
        const created = await seed();
        expect(created).toMatchObject({ runId: 'r1', version: 1, lastSeq: 2, status: 'running' });
        expect(created.createdAt).toBe('2025-01-01T00:00:01.000Z');
        expect(created.updatedAt).toBe(created.createdAt);
        expect(await store.getRun('r1')).toEqual(created);
        expect(created).toEqual({
          ...newRun('r1'),
          version: 1,
          lastSeq: 2,
          createdAt: created.createdAt,
          updatedAt: created.updatedAt,
        });
      });

      it('starts lastSeq at 0 without events, and answers null for an unknown run', async () => {
        expect((await store.createRun(newRun('r0'), [])).lastSeq).toBe(0);
        expect(await store.getRun('nope')).toBeNull();
      });

      it('refuses a second run with the same id and keeps the first', async () => {
        await seed();
        await expectStoreError(store.createRun(newRun('r1', { flowId: 'other' }), []), 'DUPLICATE');
        expect((await store.getRun('r1'))?.flowId).toBe('site-setup');
        expect(await store.events('r1')).toHaveLength(2);
      });

      it('refuses first events of another run or out of order, creating nothing', async () => {
        await expectStoreError(store.createRun(newRun('r1'), [event('r2', 1)]), 'INVALID_APPEND');
        await expectStoreError(
          store.createRun(newRun('r1'), [event('r1', 2), event('r1', 1)]),
          'INVALID_APPEND',
        );
        expect(await store.getRun('r1')).toBeNull();
      });

      it('lists newest first, filtered by status, tenant, parentRunId, and limited', async () => {
        await seed('a', { tenant: 't1' });
        await seed('b', { tenant: 't2', status: 'suspended' });
        await seed('c', { parentRunId: 'a', rootRunId: 'a', tenant: 't1' });
        await seed('d');
        const ids = (runs: RunRecord[]): string[] => runs.map((r) => r.runId);
        expect(ids(await store.listRuns())).toEqual(['d', 'c', 'b', 'a']);
        expect(ids(await store.listRuns({ status: 'running' }))).toEqual(['d', 'c', 'a']);
        expect(ids(await store.listRuns({ status: 'suspended' }))).toEqual(['b']);
        expect(ids(await store.listRuns({ tenant: 't1' }))).toEqual(['c', 'a']);
        expect(ids(await store.listRuns({ tenant: null }))).toEqual(['d']);
        expect(ids(await store.listRuns({ parentRunId: 'a' }))).toEqual(['c']);
        expect(ids(await store.listRuns({ tenant: 't1', status: 'running', parentRunId: 'a' }))).toEqual([
          'c',
        ]);
        expect(ids(await store.listRuns({ limit: 2 }))).toEqual(['d', 'c']);
        expect(ids(await store.listRuns({ limit: 0 }))).toEqual([]);
        expect(await store.listRuns({ status: 'completed' })).toEqual([]);
      });
    });

    describe('commit', () => {
      it('applies the patch, bumps the version, appends rows and moves lastSeq', async () => {
        await seed();
        const next = await store.commit({
          runId: 'r1',
          expectedVersion: 1,
          patch: {
            status: 'suspended',
            suspension: { kind: 'APPROVAL', pending: { tool: 'site_create' } },
            state: { n: 1 },
          },
          events: [event('r1', 3), event('r1', 4, 'run.suspended')],
          messages: [message('query#1', 0)],
          evidence: [evidence(1)],
        });
        expect(next).toMatchObject({ version: 2, lastSeq: 4, status: 'suspended', state: { n: 1 } });
        expect(next.suspension).toEqual({ kind: 'APPROVAL', pending: { tool: 'site_create' } });
        expect(next.updatedAt > next.createdAt).toBe(true);
        expect(next.flow).toEqual(newRun('r1').flow);
        expect(await store.getRun('r1')).toEqual(next);
      });

      it('leaves fields absent or undefined in the patch alone, and sets null where asked', async () => {
        await seed('r1', { reason: 'was', message: 'kept' });
        const next = await store.commit({
          runId: 'r1',
          expectedVersion: 1,
          patch: { reason: null, message: undefined },
        });
        expect(next.reason).toBeNull();
        expect(next.message).toBe('kept');
        expect(next.lastSeq).toBe(2);
        const usage = { inputTokens: 5, outputTokens: 7, totalTokens: 12 };
        const third = await store.commit({
          runId: 'r1',
          expectedVersion: 2,
          patch: { usage, outputs: { query: { id: 1 } }, model: 'openai:gpt-4.1' },
        });
        expect(third).toMatchObject({
          usage,
          outputs: { query: { id: 1 } },
          model: 'openai:gpt-4.1',
          version: 3,
        });
      });

      it('refuses a stale version with VersionConflictError and changes nothing', async () => {
        await seed();
        await store.commit({ runId: 'r1', expectedVersion: 1, patch: { state: { by: 'first' } } });
        const error: unknown = await store
          .commit({
            runId: 'r1',
            expectedVersion: 1,
            patch: { state: { by: 'second' } },
            events: [event('r1', 3)],
          })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(VersionConflictError);
        expect(error).toMatchObject({ runId: 'r1', expected: 1, actual: 2 });
        expect((await store.getRun('r1'))?.state).toEqual({ by: 'first' });
        expect(await store.events('r1')).toHaveLength(2);
      });

      it('refuses a commit on an unknown run as a conflict with actual null', async () => {
        const error: unknown = await store
          .commit({ runId: 'ghost', expectedVersion: 1, patch: {} })
          .catch((e: unknown) => e);
        expect(error).toBeInstanceOf(VersionConflictError);
        expect((error as VersionConflictError).actual).toBeNull();
      });

      it('rolls the whole step back when an append collides with stored evidence', async () => {
        await seed();
        await store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, evidence: [evidence(1)] });
        await expectStoreError(
          store.commit({
            runId: 'r1',
            expectedVersion: 2,
            patch: { status: 'completed', state: { lost: true } },
            events: [event('r1', 3)],
            messages: [message('query#1', 0)],
            evidence: [evidence(2), evidence(1, { tool: 'again' })],
          }),
          'DUPLICATE',
        );
        const run = await store.getRun('r1');
        expect(run).toMatchObject({ version: 2, status: 'running', lastSeq: 2 });
        expect(run?.state).toEqual(newRun('r1').state);
        expect(await store.events('r1')).toHaveLength(2);
        expect(await store.messages('r1', 'query#1')).toEqual([]);
        expect((await store.evidence('r1')).map((e) => e.id)).toEqual(['ev_1']);
      });

      it('rolls back when a message collides with a stored one', async () => {
        await seed();
        await store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, messages: [message('query#1', 0)] });
        await expectStoreError(
          store.commit({
            runId: 'r1',
            expectedVersion: 2,
            patch: { status: 'failed' },
            messages: [message('query#1', 1), message('query#1', 0, 'again')],
          }),
          'DUPLICATE',
        );
        expect((await store.getRun('r1'))?.status).toBe('running');
        expect(await store.messages('r1', 'query#1')).toEqual([message('query#1', 0)]);
      });

      it('refuses events not above lastSeq, out of order, or of another run', async () => {
        await seed();
        const bad = [
          [event('r1', 2)],
          [event('r1', 4), event('r1', 3)],
          [event('r2', 3)],
          [event('r1', 1.5)],
        ];
        for (const events of bad) {
          await expectStoreError(
            store.commit({ runId: 'r1', expectedVersion: 1, patch: { status: 'failed' }, events }),
            'INVALID_APPEND',
          );
        }
        expect(await store.getRun('r1')).toMatchObject({ version: 1, status: 'running', lastSeq: 2 });
        await expectStoreError(
          store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, evidence: [evidence(1), evidence(1)] }),
          'DUPLICATE',
        );
      });

      it('accepts a gap in seqs (a writer may skip) and keeps seq order', async () => {
        await seed();
        const next = await store.commit({
          runId: 'r1',
          expectedVersion: 1,
          patch: {},
          events: [event('r1', 5)],
        });
        expect(next.lastSeq).toBe(5);
        expect((await store.events('r1')).map((e) => e.seq)).toEqual([1, 2, 5]);
      });
    });

    describe('events, messages, evidence', () => {
      it('returns events in seq order across commits, after afterSeq, with their own fields', async () => {
        await seed();
        let version = 1;
        for (let seq = 3; seq <= 12; seq += 2) {
          const events = [
            event('r1', seq, 'model.turn', { usage: { totalTokens: seq } }),
            event('r1', seq + 1),
          ];
          version = (await store.commit({ runId: 'r1', expectedVersion: version, patch: {}, events }))
            .version;
        }
        expect((await store.events('r1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
        expect((await store.events('r1', 10)).map((e) => e.seq)).toEqual([11, 12]);
        expect(await store.events('r1', 12)).toEqual([]);
        expect((await store.events('r1', 0))[0]).toEqual(event('r1', 1, 'run.started'));
        expect((await store.events('r1', 8))[0]).toEqual(
          event('r1', 9, 'model.turn', { usage: { totalTokens: 9 } }),
        );
        expect(await store.events('unknown')).toEqual([]);
      });

      it('stores values as JSON: undefined fields are dropped', async () => {
        await store.createRun(newRun('r1'), [
          event('r1', 1, 'run.started', { gone: undefined, kept: [1, null] }),
        ]);
        const [stored] = await store.events('r1');
        expect(stored).toBeDefined();
        expect(Object.hasOwn(stored!, 'gone')).toBe(false);
        expect(stored!.kept).toEqual([1, null]);
      });

      it('keeps messages per node run, in index order', async () => {
        await seed();
        await seed('r2');
        await store.commit({
          runId: 'r1',
          expectedVersion: 1,
          patch: {},
          messages: [message('query#1', 2), message('query#1', 0), message('create#1', 0)],
        });
        await store.commit({ runId: 'r1', expectedVersion: 2, patch: {}, messages: [message('query#1', 1)] });
        await store.commit({
          runId: 'r2',
          expectedVersion: 1,
          patch: {},
          messages: [message('query#1', 0, 'other run')],
        });
        expect(await store.messages('r1', 'query#1')).toEqual([
          message('query#1', 0),
          message('query#1', 1),
          message('query#1', 2),
        ]);
        expect(await store.messages('r1', 'create#1')).toEqual([message('create#1', 0)]);
        expect(await store.messages('r1', 'query#2')).toEqual([]);
        expect(await store.messages('r2', 'query#1')).toEqual([message('query#1', 0, 'other run')]);
      });

      it('returns evidence in the order appended (ev_10 after ev_9), per run', async () => {
        await seed();
        await seed('r2');
        let version = 1;
        for (let n = 1; n <= 12; n += 3) {
          const batch = [
            evidence(n),
            evidence(n + 1, { outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' }),
            evidence(n + 2, { lookBack: true }),
          ];
          version = (
            await store.commit({ runId: 'r1', expectedVersion: version, patch: {}, evidence: batch })
          ).version;
        }
        await store.commit({
          runId: 'r2',
          expectedVersion: 1,
          patch: {},
          evidence: [evidence(1, { tool: 'r2' })],
        });
        const ids = (await store.evidence('r1')).map((e) => e.id);
        expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `ev_${i + 1}`));
        expect((await store.evidence('r1'))[1]).toEqual(
          evidence(2, { outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' }),
        );
        expect((await store.evidence('r2')).map((e) => e.tool)).toEqual(['r2']);
        expect(await store.evidence('none')).toEqual([]);
      });

      it('never re-serialises history: a stored event is encoded once, whatever commits follow', async () => {
        await seed();
        let encoded = 0;
        const counted = { toJSON: () => ((encoded += 1), 'payload') };
        let version = (
          await store.commit({
            runId: 'r1',
            expectedVersion: 1,
            patch: {},
            events: [event('r1', 3, 'x', { counted })],
          })
        ).version;
        expect(encoded).toBe(1);
        for (let seq = 4; seq < 54; seq++) {
          const step = {
            runId: 'r1',
            expectedVersion: version,
            patch: { state: { seq } },
            events: [event('r1', seq)],
          };
          version = (await store.commit(step)).version;
        }
        expect(encoded).toBe(1);
        expect((await store.events('r1', 2))[0]?.counted).toBe('payload');
      });
    });

    describe('leases', () => {
      const now = 1_000_000;

      it('takes a free lease and bumps the version', async () => {
        await seed();
        const leased = await store.acquireLease('r1', 'w1', now + 15_000, now);
        expect(leased).toMatchObject({ leaseOwner: 'w1', leaseExpiresAt: now + 15_000, version: 2 });
        expect(await store.getRun('r1')).toEqual(leased);
      });

      it('refuses a live lease of another owner without changing anything', async () => {
        await seed();
        await store.acquireLease('r1', 'w1', now + 15_000, now);
        expect(await store.acquireLease('r1', 'w2', now + 30_000, now + 14_999)).toBeNull();
        expect(await store.getRun('r1')).toMatchObject({
          leaseOwner: 'w1',
          leaseExpiresAt: now + 15_000,
          version: 2,
        });
      });

      it('lets anyone take an expired lease (expiry at now counts as expired)', async () => {
        await seed();
        await store.acquireLease('r1', 'w1', now + 15_000, now);
        const taken = await store.acquireLease('r1', 'w2', now + 30_000, now + 15_000);
        expect(taken).toMatchObject({ leaseOwner: 'w2', leaseExpiresAt: now + 30_000, version: 3 });
      });

      it('lets the owner renew its live lease', async () => {
        await seed();
        await store.acquireLease('r1', 'w1', now + 15_000, now);
        const renewed = await store.acquireLease('r1', 'w1', now + 20_000, now + 5_000);
        expect(renewed).toMatchObject({ leaseOwner: 'w1', leaseExpiresAt: now + 20_000, version: 3 });
      });

      it('fences a driver that lost its lease: its next commit conflicts', async () => {
        await seed();
        const mine = await store.acquireLease('r1', 'w1', now + 15_000, now);
        await store.acquireLease('r1', 'w2', now + 60_000, now + 20_000);
        await expect(
          store.commit({ runId: 'r1', expectedVersion: mine!.version, patch: { status: 'completed' } }),
        ).rejects.toBeInstanceOf(VersionConflictError);
      });

      it('frees the lease through a commit that clears it', async () => {
        await seed();
        const mine = await store.acquireLease('r1', 'w1', now + 15_000, now);
        await store.commit({
          runId: 'r1',
          expectedVersion: mine!.version,
          patch: { status: 'suspended', leaseOwner: null, leaseExpiresAt: null },
        });
        expect(await store.acquireLease('r1', 'w2', now + 15_000, now + 1)).toMatchObject({
          leaseOwner: 'w2',
        });
      });

      it('throws RUN_NOT_FOUND for an unknown run', async () => {
        await expectStoreError(store.acquireLease('ghost', 'w1', now + 1, now), 'RUN_NOT_FOUND');
      });
    });

    describe('isolation', () => {
      it('hands out copies: mutating a returned run or rows changes nothing stored', async () => {
        const created = await seed();
        (created.state as { approvals: unknown[] }).approvals.push('x');
        (created.flow as { id: string }).id = 'mutated';
        created.outputs.injected = {};
        const committed = await store.commit({
          runId: 'r1',
          expectedVersion: 1,
          patch: {},
          messages: [message('n#1', 0)],
          evidence: [evidence(1)],
        });
        committed.usage.totalTokens = 99;
        (await store.events('r1'))[0]!.type = 'mutated';
        ((await store.messages('r1', 'n#1'))[0]!.message as { content: string }).content = 'mutated';
        ((await store.evidence('r1'))[0]!.payload as { rows: number[] }).rows.push(99);
        ((await store.listRuns())[0]!.input as { text: string }).text = 'mutated';
        const again = await store.getRun('r1');
        expect(again?.state).toEqual(newRun('r1').state);
        expect(again?.flow).toEqual(newRun('r1').flow);
        expect(again?.outputs).toEqual({});
        expect(again?.usage.totalTokens).toBe(0);
        expect(again?.input).toEqual({ text: 'create a site' });
        expect((await store.events('r1'))[0]?.type).toBe('run.started');
        expect(await store.messages('r1', 'n#1')).toEqual([message('n#1', 0)]);
        expect((await store.evidence('r1'))[0]).toEqual(evidence(1));
      });

      it('keeps its own copy of what it was given', async () => {
        const run = newRun('r1');
        const first = event('r1', 1);
        await store.createRun(run, [first]);
        (run.state as { approvals: unknown[] }).approvals.push('x');
        first.type = 'mutated';
        const state = { deep: { n: 1 } };
        const ev = evidence(1);
        const msg = message('n#1', 0);
        await store.commit({
          runId: 'r1',
          expectedVersion: 1,
          patch: { state },
          evidence: [ev],
          messages: [msg],
        });
        state.deep.n = 2;
        (ev.args as { name: string }).name = 'mutated';
        (msg.message as { content: string }).content = 'mutated';
        expect((await store.getRun('r1'))?.state).toEqual({ deep: { n: 1 } });
        expect((await store.events('r1'))[0]?.type).toBe('tool.invoked');
        expect((await store.evidence('r1'))[0]?.args).toEqual({ name: 's1' });
        expect(await store.messages('r1', 'n#1')).toEqual([message('n#1', 0)]);
      });
    });

    describe('close', () => {
      it('refuses every call after close, and closing twice is fine', async () => {
        await seed();
        await store.close();
        await store.close();
        await expectStoreError(store.getRun('r1'), 'CLOSED');
        await expectStoreError(store.listRuns(), 'CLOSED');
        await expectStoreError(store.commit({ runId: 'r1', expectedVersion: 1, patch: {} }), 'CLOSED');
        await expectStoreError(store.events('r1'), 'CLOSED');
        await expectStoreError(store.acquireLease('r1', 'w', 2, 1), 'CLOSED');
      });
    });
  });
}
