import { RUN_HEAD_FIELDS, StoreError, type RunRecord } from '../../store/store.js';
import { event, evidence, expectStoreError, message, newRun, runState, type Harness } from './helpers.js';
import type { TestApi } from './test-api.js';

/** Cases for createRun, getRun, listRuns and commit. */
export function runCases(h: Harness, t: TestApi): void {
  const { describe, it, expect } = t;
  describe('create, get, list', () => {
    it('creates a run at version 1 with lastSeq from its events and the store clock', async () => {
      const created = await h.seed();
      expect(created).toMatchObject({ runId: 'r1', version: 1, lastSeq: 2, status: 'running' });
      expect(created.createdAt).toBe('2025-01-01T00:00:01.000Z');
      expect(created.updatedAt).toBe(created.createdAt);
      expect(await h.store.getRun('r1')).toEqual(created);
      expect(created).toEqual({
        ...newRun('r1'),
        version: 1,
        lastSeq: 2,
        createdAt: created.createdAt,
        updatedAt: created.updatedAt,
      });
    });

    it('starts lastSeq at 0 without events, and answers null for an unknown run', async () => {
      expect((await h.store.createRun(newRun('r0'), [])).lastSeq).toBe(0);
      expect(await h.store.getRun('nope')).toBeNull();
    });

    it('refuses a second run with the same id and keeps the first', async () => {
      await h.seed();
      await expectStoreError(h.store.createRun(newRun('r1', { flowId: 'other' }), []), 'DUPLICATE');
      expect((await h.store.getRun('r1'))?.flowId).toBe('site-setup');
      expect(await h.store.events('r1')).toHaveLength(2);
    });

    it('refuses first events of another run or out of order, creating nothing', async () => {
      await expectStoreError(h.store.createRun(newRun('r1'), [event('r2', 1)]), 'INVALID_APPEND');
      await expectStoreError(
        h.store.createRun(newRun('r1'), [event('r1', 2), event('r1', 1)]),
        'INVALID_APPEND',
      );
      expect(await h.store.getRun('r1')).toBeNull();
    });

    it('lists newest first, filtered by status, tenant, parentRunId, and limited', async () => {
      await h.seed('a', { tenant: 't1' });
      await h.seed('b', { tenant: 't2', status: 'suspended' });
      await h.seed('c', { parentRunId: 'a', rootRunId: 'a', tenant: 't1' });
      await h.seed('d');
      const ids = (runs: RunRecord[]): string[] => runs.map((r) => r.runId);
      expect(ids(await h.store.listRuns())).toEqual(['d', 'c', 'b', 'a']);
      expect(ids(await h.store.listRuns({ status: 'running' }))).toEqual(['d', 'c', 'a']);
      expect(ids(await h.store.listRuns({ status: 'suspended' }))).toEqual(['b']);
      expect(ids(await h.store.listRuns({ tenant: 't1' }))).toEqual(['c', 'a']);
      expect(ids(await h.store.listRuns({ tenant: null }))).toEqual(['d']);
      expect(ids(await h.store.listRuns({ parentRunId: 'a' }))).toEqual(['c']);
      expect(ids(await h.store.listRuns({ tenant: 't1', status: 'running', parentRunId: 'a' }))).toEqual([
        'c',
      ]);
      expect(ids(await h.store.listRuns({ limit: 2 }))).toEqual(['d', 'c']);
      expect(ids(await h.store.listRuns({ limit: 0 }))).toEqual([]);
      expect(await h.store.listRuns({ status: 'completed' })).toEqual([]);
    });

    it('lists run heads like runs (same filter and order), without flow, input or state', async () => {
      await h.seed('a', { tenant: 't1' });
      await h.seed('b', { tenant: 't2', status: 'suspended' });
      const seeded = await h.seed('c', { parentRunId: 'a', rootRunId: 'a', tenant: 't1' });
      // A head carries two short fields of the state document, extracted by the store.
      await h.store.commit({
        runId: 'c',
        expectedVersion: seeded.version,
        patch: { state: { ...seeded.state, reply: 'done: ＂c＂', thread: { id: 'T1', history: [] } } },
        events: [],
      });
      const heads = (await h.store.listRunHeads?.({ tenant: 't1', limit: 5 })) ?? [];
      expect(heads.map((r) => r.runId)).toEqual(['c', 'a']);
      const full = await h.store.listRuns({ tenant: 't1', limit: 5 });
      for (const [i, head] of heads.entries()) {
        expect(Object.keys(head).sort()).toEqual([...RUN_HEAD_FIELDS, 'reply', 'threadId'].sort());
        const record = full[i] as unknown as Record<string, unknown>;
        for (const field of RUN_HEAD_FIELDS) expect(head[field]).toEqual(record[field]);
        expect(head.reply).toBe(full[i]?.state.reply ?? null);
        expect(head.threadId).toBe(full[i]?.state.thread?.id ?? null);
      }
      expect(heads[0]).toMatchObject({ runId: 'c', reply: 'done: ＂c＂', threadId: 'T1' });
      expect(heads[1]).toMatchObject({ runId: 'a', reply: null, threadId: null });
      expect((await h.store.listRunHeads?.({ limit: 0 })) ?? []).toEqual([]);
    });
  });

  describe('commit', () => {
    it('stores model-written texts with NUL and lone surrogates (PostgreSQL: as U+FFFD), never refusing the commit', async () => {
      await h.seed('r1');
      const seq = ((await h.store.getRun('r1'))?.lastSeq ?? 0) + 1;
      const bad = 'fail\u0000reason \ud800 end';
      const next = await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: { status: 'failed', reason: 'MODEL_FAILED', message: bad, outputs: { out: { text: bad } } },
        events: [event('r1', seq, 'run.failed', { message: bad })],
      });
      expect(next.version).toBe(2);
      const stored = await h.store.getRun('r1');
      expect(stored?.status).toBe('failed');
      // PostgreSQL refuses NUL and lone surrogates: its store writes U+FFFD; SQLite turns lone surrogates so.
      const allowed = [bad, 'fail\ufffdreason \ufffd end', 'fail\u0000reason \ufffd end'];
      expect(allowed.includes(String(stored?.message))).toBe(true);
      expect(allowed.includes(String(stored?.outputs.out?.text))).toBe(true);
      expect((await h.store.events('r1')).some((e) => e.type === 'run.failed')).toBe(true);
    });

    it('applies the patch, bumps the version, appends rows and moves lastSeq', async () => {
      await h.seed();
      const next = await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: {
          status: 'suspended',
          suspension: { kind: 'APPROVAL', pending: { tool: 'site_create', args: {}, summary: 'create' } },
          state: runState('r1', { n: 1 }),
        },
        events: [event('r1', 3), event('r1', 4, 'run.suspended')],
        messages: [message('query#1', 0)],
        evidence: [evidence(1)],
      });
      expect(next).toMatchObject({
        version: 2,
        lastSeq: 4,
        status: 'suspended',
        state: runState('r1', { n: 1 }),
      });
      expect(next.suspension).toEqual({
        kind: 'APPROVAL',
        pending: { tool: 'site_create', args: {}, summary: 'create' },
      });
      expect(next.updatedAt > next.createdAt).toBe(true);
      expect(next.flow).toEqual(newRun('r1').flow);
      expect(await h.store.getRun('r1')).toEqual(next);
    });

    it('leaves fields absent or undefined in the patch alone, and sets null where asked', async () => {
      await h.seed('r1', { reason: 'was', message: 'kept' });
      const next = await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: { reason: null, message: undefined },
      });
      expect(next.reason).toBeNull();
      expect(next.message).toBe('kept');
      expect(next.lastSeq).toBe(2);
      const usage = { inputTokens: 5, outputTokens: 7, totalTokens: 12 };
      const third = await h.store.commit({
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

    it('refuses a stale version with StoreError VERSION_CONFLICT and changes nothing', async () => {
      await h.seed();
      await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: { state: runState('r1', { by: 'first' }) },
      });
      const error: unknown = await h.store
        .commit({
          runId: 'r1',
          expectedVersion: 1,
          patch: { state: runState('r1', { by: 'second' }) },
          events: [event('r1', 3)],
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe('VERSION_CONFLICT');
      expect(error).toMatchObject({ runId: 'r1', expected: 1, actual: 2 });
      expect((await h.store.getRun('r1'))?.state).toEqual(runState('r1', { by: 'first' }));
      expect(await h.store.events('r1')).toHaveLength(2);
    });

    it('refuses a commit on an unknown run as a conflict with actual null', async () => {
      const error: unknown = await h.store
        .commit({ runId: 'ghost', expectedVersion: 1, patch: {} })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe('VERSION_CONFLICT');
      expect((error as StoreError).actual).toBeNull();
    });

    it('rolls the whole step back when an append collides with stored evidence', async () => {
      await h.seed();
      await h.store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, evidence: [evidence(1)] });
      await expectStoreError(
        h.store.commit({
          runId: 'r1',
          expectedVersion: 2,
          patch: { status: 'completed', state: runState('r1', { lost: true }) },
          events: [event('r1', 3)],
          messages: [message('query#1', 0)],
          evidence: [evidence(2), evidence(1, { tool: 'again' })],
        }),
        'DUPLICATE',
      );
      const run = await h.store.getRun('r1');
      expect(run).toMatchObject({ version: 2, status: 'running', lastSeq: 2 });
      expect(run?.state).toEqual(newRun('r1').state);
      expect(await h.store.events('r1')).toHaveLength(2);
      expect(await h.store.messages('r1', 'query#1')).toEqual([]);
      expect((await h.store.evidence('r1')).map((e) => e.id)).toEqual(['ev_1']);
    });

    it('rolls back when a message collides with a stored one', async () => {
      await h.seed();
      await h.store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, messages: [message('query#1', 0)] });
      await expectStoreError(
        h.store.commit({
          runId: 'r1',
          expectedVersion: 2,
          patch: { status: 'failed' },
          messages: [message('query#1', 1), message('query#1', 0, 'again')],
        }),
        'DUPLICATE',
      );
      expect((await h.store.getRun('r1'))?.status).toBe('running');
      expect(await h.store.messages('r1', 'query#1')).toEqual([message('query#1', 0)]);
    });

    it('refuses events not above lastSeq, out of order, or of another run', async () => {
      await h.seed();
      const bad = [[event('r1', 2)], [event('r1', 4), event('r1', 3)], [event('r2', 3)], [event('r1', 1.5)]];
      for (const events of bad) {
        await expectStoreError(
          h.store.commit({ runId: 'r1', expectedVersion: 1, patch: { status: 'failed' }, events }),
          'INVALID_APPEND',
        );
      }
      expect(await h.store.getRun('r1')).toMatchObject({ version: 1, status: 'running', lastSeq: 2 });
      await expectStoreError(
        h.store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, evidence: [evidence(1), evidence(1)] }),
        'DUPLICATE',
      );
    });

    it('accepts a gap in seqs (a writer may skip) and keeps seq order', async () => {
      await h.seed();
      const next = await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: {},
        events: [event('r1', 5)],
      });
      expect(next.lastSeq).toBe(5);
      expect((await h.store.events('r1')).map((e) => e.seq)).toEqual([1, 2, 5]);
    });
  });
}
