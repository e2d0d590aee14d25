import { expectStoreError, newRun, runState, type Harness } from './helpers.js';
import type { TestApi } from './test-api.js';

/** Cases for the run-document codec at the store boundary and the takeover query. */
export function documentCases(h: Harness, t: TestApi): void {
  const { describe, it, expect } = t;
  describe('run documents', () => {
    it('refuses a run saved under a newer document version, naming the version', async () => {
      await h.seed();
      // Written as a newer runtime would: the commit stores it, reading it back is refused.
      const newer = { ...runState('r1'), schema: 7 } as unknown as ReturnType<typeof runState>;
      await h.store.commit({ runId: 'r1', expectedVersion: 1, patch: { state: newer } });
      await expectStoreError(h.store.getRun('r1'), 'DOCUMENT_TOO_NEW');
      const error: unknown = await h.store.getRun('r1').catch((e: unknown) => e);
      expect((error as Error).message.includes('run document version 7')).toBe(true);
    });

    it('refuses a state that does not fit its version instead of guessing', async () => {
      await h.seed();
      const damaged = { ...runState('r1'), nodeRuns: 'two' } as unknown as ReturnType<typeof runState>;
      await h.store.commit({ runId: 'r1', expectedVersion: 1, patch: { state: damaged } });
      await expectStoreError(h.store.getRun('r1'), 'BAD_DOCUMENT');
    });
  });

  describe('unleasedRuns (takeover)', () => {
    it('lists top-level running runs without a live lease, least recently updated first', async () => {
      const now = Date.parse('2030-01-01T00:00:00Z');
      await h.store.createRun(newRun('free'), []);
      await h.store.createRun(newRun('expired', { leaseOwner: 'dead', leaseExpiresAt: now - 1 }), []);
      await h.store.createRun(newRun('live', { leaseOwner: 'alive', leaseExpiresAt: now + 60_000 }), []);
      await h.store.createRun(newRun('done', { status: 'completed' }), []);
      await h.store.createRun(newRun('child', { parentRunId: 'free', rootRunId: 'free' }), []);
      expect(await h.store.unleasedRuns(now)).toEqual(['free', 'expired']);
      expect(await h.store.unleasedRuns(now, 1)).toEqual(['free']);
      await h.store.acquireLease('free', 'me', now + 1000, now);
      expect(await h.store.unleasedRuns(now)).toEqual(['expired']);
    });
  });
}
