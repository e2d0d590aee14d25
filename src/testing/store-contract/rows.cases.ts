import { event, evidence, expectStoreError, message, newRun, runState, type Harness } from './helpers.js';
import type { TestApi } from './test-api.js';

/** Cases for events, messages, evidence, leases, isolation and close. */
export function rowCases(h: Harness, t: TestApi): void {
  const { describe, it, expect } = t;
  describe('events, messages, evidence', () => {
    it('returns events in seq order across commits, after afterSeq, with their own fields', async () => {
      await h.seed();
      let version = 1;
      for (let seq = 3; seq <= 12; seq += 2) {
        const events = [
          event('r1', seq, 'model.turn', { usage: { totalTokens: seq } }),
          event('r1', seq + 1),
        ];
        version = (await h.store.commit({ runId: 'r1', expectedVersion: version, patch: {}, events }))
          .version;
      }
      expect((await h.store.events('r1')).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
      expect((await h.store.events('r1', 10)).map((e) => e.seq)).toEqual([11, 12]);
      expect(await h.store.events('r1', 12)).toEqual([]);
      expect((await h.store.events('r1', 0))[0]).toEqual(event('r1', 1, 'run.started'));
      expect((await h.store.events('r1', 8))[0]).toEqual(
        event('r1', 9, 'model.turn', { usage: { totalTokens: 9 } }),
      );
      expect(await h.store.events('unknown')).toEqual([]);
    });

    it("reads the working set (evidence and a node run's messages) as the separate reads do", async () => {
      await h.seed();
      await h.seed('r2');
      await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: {},
        messages: [message('query#1', 1), message('query#1', 0), message('create#1', 0)],
        evidence: [evidence(1), evidence(2)],
      });
      await h.store.commit({ runId: 'r2', expectedVersion: 1, patch: {}, messages: [message('query#1', 0)] });
      const read = h.store.workingSet?.bind(h.store);
      if (!read) return; // optional: this store has no combined read
      expect(await read('r1', 'query#1')).toEqual({
        evidence: await h.store.evidence('r1'),
        messages: await h.store.messages('r1', 'query#1'),
      });
      expect((await read('r1', null)).messages).toEqual([]);
      expect((await read('r1', null)).evidence.map((e) => e.id)).toEqual(['ev_1', 'ev_2']);
      expect(await read('unknown', 'query#1')).toEqual({ evidence: [], messages: [] });
    });

    it('stores values as JSON: undefined fields are dropped', async () => {
      await h.store.createRun(newRun('r1'), [
        event('r1', 1, 'run.started', { gone: undefined, kept: [1, null] }),
      ]);
      const [stored] = await h.store.events('r1');
      expect(stored).toBeDefined();
      expect(Object.hasOwn(stored!, 'gone')).toBe(false);
      expect(stored!.kept).toEqual([1, null]);
    });

    it('keeps messages per node run, in index order', async () => {
      await h.seed();
      await h.seed('r2');
      await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: {},
        messages: [message('query#1', 2), message('query#1', 0), message('create#1', 0)],
      });
      await h.store.commit({ runId: 'r1', expectedVersion: 2, patch: {}, messages: [message('query#1', 1)] });
      await h.store.commit({
        runId: 'r2',
        expectedVersion: 1,
        patch: {},
        messages: [message('query#1', 0, 'other run')],
      });
      expect(await h.store.messages('r1', 'query#1')).toEqual([
        message('query#1', 0),
        message('query#1', 1),
        message('query#1', 2),
      ]);
      expect(await h.store.messages('r1', 'create#1')).toEqual([message('create#1', 0)]);
      expect(await h.store.messages('r1', 'query#2')).toEqual([]);
      expect(await h.store.messages('r2', 'query#1')).toEqual([message('query#1', 0, 'other run')]);
    });

    it('returns evidence in the order appended (ev_10 after ev_9), per run', async () => {
      await h.seed();
      await h.seed('r2');
      let version = 1;
      for (let n = 1; n <= 12; n += 3) {
        const batch = [
          evidence(n),
          evidence(n + 1, { outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' }),
          evidence(n + 2, { lookBack: true }),
        ];
        version = (
          await h.store.commit({ runId: 'r1', expectedVersion: version, patch: {}, evidence: batch })
        ).version;
      }
      await h.store.commit({
        runId: 'r2',
        expectedVersion: 1,
        patch: {},
        evidence: [evidence(1, { tool: 'r2' })],
      });
      const ids = (await h.store.evidence('r1')).map((e) => e.id);
      expect(ids).toEqual(Array.from({ length: 12 }, (_, i) => `ev_${i + 1}`));
      expect((await h.store.evidence('r1'))[1]).toEqual(
        evidence(2, { outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' }),
      );
      expect((await h.store.evidence('r2')).map((e) => e.tool)).toEqual(['r2']);
      expect(await h.store.evidence('none')).toEqual([]);
    });

    it('never re-serialises history: a stored event is encoded once, whatever commits follow', async () => {
      await h.seed();
      let encoded = 0;
      const counted = { toJSON: () => ((encoded += 1), 'payload') };
      let version = (
        await h.store.commit({
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
          patch: { state: runState('r1', { seq }) },
          events: [event('r1', seq)],
        };
        version = (await h.store.commit(step)).version;
      }
      expect(encoded).toBe(1);
      expect((await h.store.events('r1', 2))[0]?.counted).toBe('payload');
    });
  });

  describe('leases', () => {
    const now = 1_000_000;

    it('takes a free lease and bumps the version', async () => {
      await h.seed();
      const leased = await h.store.acquireLease('r1', 'w1', now + 15_000, now);
      expect(leased).toMatchObject({ leaseOwner: 'w1', leaseExpiresAt: now + 15_000, version: 2 });
      expect(await h.store.getRun('r1')).toEqual(leased);
    });

    it('refuses a live lease of another owner without changing anything', async () => {
      await h.seed();
      await h.store.acquireLease('r1', 'w1', now + 15_000, now);
      expect(await h.store.acquireLease('r1', 'w2', now + 30_000, now + 14_999)).toBeNull();
      expect(await h.store.getRun('r1')).toMatchObject({
        leaseOwner: 'w1',
        leaseExpiresAt: now + 15_000,
        version: 2,
      });
    });

    it('lets anyone take an expired lease (expiry at now counts as expired)', async () => {
      await h.seed();
      await h.store.acquireLease('r1', 'w1', now + 15_000, now);
      const taken = await h.store.acquireLease('r1', 'w2', now + 30_000, now + 15_000);
      expect(taken).toMatchObject({ leaseOwner: 'w2', leaseExpiresAt: now + 30_000, version: 3 });
    });

    it('lets the owner renew its live lease', async () => {
      await h.seed();
      await h.store.acquireLease('r1', 'w1', now + 15_000, now);
      const renewed = await h.store.acquireLease('r1', 'w1', now + 20_000, now + 5_000);
      expect(renewed).toMatchObject({ leaseOwner: 'w1', leaseExpiresAt: now + 20_000, version: 3 });
    });

    it('fences a driver that lost its lease: its next commit conflicts', async () => {
      await h.seed();
      const mine = await h.store.acquireLease('r1', 'w1', now + 15_000, now);
      await h.store.acquireLease('r1', 'w2', now + 60_000, now + 20_000);
      await expectStoreError(
        h.store.commit({ runId: 'r1', expectedVersion: mine!.version, patch: { status: 'completed' } }),
        'VERSION_CONFLICT',
      );
    });

    it('frees the lease through a commit that clears it', async () => {
      await h.seed();
      const mine = await h.store.acquireLease('r1', 'w1', now + 15_000, now);
      await h.store.commit({
        runId: 'r1',
        expectedVersion: mine!.version,
        patch: { status: 'suspended', leaseOwner: null, leaseExpiresAt: null },
      });
      expect(await h.store.acquireLease('r1', 'w2', now + 15_000, now + 1)).toMatchObject({
        leaseOwner: 'w2',
      });
    });

    it('throws RUN_NOT_FOUND for an unknown run', async () => {
      await expectStoreError(h.store.acquireLease('ghost', 'w1', now + 1, now), 'RUN_NOT_FOUND');
    });
  });

  describe('isolation', () => {
    it('hands out copies: mutating a returned run or rows changes nothing stored', async () => {
      const created = await h.seed();
      created.state.run.approvals.push({} as never);
      // flow and input never change after creation: a store may hand them out frozen (read-only).
      tryMutate(() => ((created.flow as { id: string }).id = 'mutated'));
      created.outputs.injected = {};
      const committed = await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: {},
        messages: [message('n#1', 0)],
        evidence: [evidence(1)],
      });
      committed.usage.totalTokens = 99;
      (await h.store.events('r1'))[0]!.type = 'mutated';
      ((await h.store.messages('r1', 'n#1'))[0]!.message as { content: string }).content = 'mutated';
      ((await h.store.evidence('r1'))[0]!.payload as { rows: number[] }).rows.push(99);
      const listed = (await h.store.listRuns())[0]!;
      tryMutate(() => ((listed.input as { text: string }).text = 'mutated'));
      const again = await h.store.getRun('r1');
      expect(again?.state).toEqual(newRun('r1').state);
      expect(again?.flow).toEqual(newRun('r1').flow);
      expect(again?.outputs).toEqual({});
      expect(again?.usage.totalTokens).toBe(0);
      expect(again?.input).toEqual({ text: 'create a site' });
      expect((await h.store.events('r1'))[0]?.type).toBe('run.started');
      expect(await h.store.messages('r1', 'n#1')).toEqual([message('n#1', 0)]);
      expect((await h.store.evidence('r1'))[0]).toEqual(evidence(1));
    });

    it('keeps its own copy of what it was given', async () => {
      const run = newRun('r1');
      const first = event('r1', 1);
      await h.store.createRun(run, [first]);
      run.state.run.approvals.push({} as never);
      first.type = 'mutated';
      const deep = { n: 1 };
      const state = runState('r1', { deep });
      const ev = evidence(1);
      const msg = message('n#1', 0);
      await h.store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: { state },
        evidence: [ev],
        messages: [msg],
      });
      deep.n = 2;
      (ev.args as { name: string }).name = 'mutated';
      (msg.message as { content: string }).content = 'mutated';
      expect((await h.store.getRun('r1'))?.state).toEqual(runState('r1', { deep: { n: 1 } }));
      expect((await h.store.events('r1'))[0]?.type).toBe('tool.invoked');
      expect((await h.store.evidence('r1'))[0]?.args).toEqual({ name: 's1' });
      expect(await h.store.messages('r1', 'n#1')).toEqual([message('n#1', 0)]);
    });
  });

  describe('close', () => {
    it('refuses every call after close, and closing twice is fine', async () => {
      await h.seed();
      await h.store.close();
      await h.store.close();
      await expectStoreError(h.store.getRun('r1'), 'CLOSED');
      await expectStoreError(h.store.listRuns(), 'CLOSED');
      await expectStoreError(h.store.commit({ runId: 'r1', expectedVersion: 1, patch: {} }), 'CLOSED');
      await expectStoreError(h.store.events('r1'), 'CLOSED');
      await expectStoreError(h.store.acquireLease('r1', 'w', 2, 1), 'CLOSED');
    });
  });
}

/** Mutates a value that may be frozen; a TypeError (frozen) is as good as an ignored change. */
function tryMutate(change: () => void): void {
  try {
    change();
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
}
