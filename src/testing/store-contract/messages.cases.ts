import type { NewRunMessage } from '../../records/run-message.js';
import type { Store } from '../../store/store.js';
import { expectStoreError, type Harness } from './helpers.js';
import type { TestApi } from './test-api.js';

type MessageStore = Required<Pick<Store, 'addRunMessage' | 'runMessages'>>;

/** A steering message `n` to run `runId`. */
function said(runId: string, n: number, text = `message ${n}`): NewRunMessage {
  return { runId, messageId: `msg_${runId}_${n}`, text, who: 'olivia', at: '2025-01-01T00:00:00.000Z' };
}

/** Cases for the optional steering-message methods; skipped by a store without them. */
export function messageCases(h: Harness, t: TestApi): void {
  const { describe, it, expect } = t;
  const messages = (): MessageStore | null => {
    const s = h.store;
    return s.addRunMessage && s.runMessages ? (s as Store & MessageStore) : null;
  };
  const open = { afterSeq: 0, maxPending: 10 };
  describe('steering messages', () => {
    it('numbers a run’s messages from 1 and reads them back after a seq, in order', async () => {
      const s = messages();
      if (!s) return;
      await h.seed('r1');
      await h.seed('r2');
      expect(await s.addRunMessage(said('r1', 1, 'use the other card'), open)).toEqual({
        added: { ...said('r1', 1, 'use the other card'), seq: 1 },
      });
      expect(await s.addRunMessage(said('r2', 1), open)).toMatchObject({ added: { seq: 1 } });
      expect(await s.addRunMessage(said('r1', 2), open)).toMatchObject({ added: { seq: 2 } });
      expect((await s.runMessages('r1')).map((m) => [m.seq, m.text])).toEqual([
        [1, 'use the other card'],
        [2, 'message 2'],
      ]);
      expect((await s.runMessages('r1', 1)).map((m) => m.seq)).toEqual([2]);
      expect(await s.runMessages('r1', 2)).toEqual([]);
      expect(await s.runMessages('nope')).toEqual([]);
    });

    it('keeps a message across a commit of the run and hands out copies', async () => {
      const s = messages();
      if (!s) return;
      const run = await h.seed('r1');
      await s.addRunMessage(said('r1', 1), open);
      await h.store.commit({ runId: 'r1', expectedVersion: run.version, patch: { status: 'suspended' } });
      const [first] = await s.runMessages('r1');
      if (!first) throw new Error('the message is gone');
      first.text = 'changed';
      expect((await s.runMessages('r1'))[0]?.text).toBe('message 1');
      expect(await s.addRunMessage(said('r1', 2), open)).toMatchObject({ added: { seq: 2 } });
    });

    it('refuses a message beyond the pending limit, counting only those above afterSeq', async () => {
      const s = messages();
      if (!s) return;
      await h.seed('r1');
      const limit = { afterSeq: 0, maxPending: 2 };
      await s.addRunMessage(said('r1', 1), limit);
      await s.addRunMessage(said('r1', 2), limit);
      expect(await s.addRunMessage(said('r1', 3), limit)).toEqual({ refused: 'PENDING_LIMIT' });
      expect((await s.runMessages('r1')).length).toBe(2);
      // Once the run has read the first, one more may wait.
      expect(await s.addRunMessage(said('r1', 3), { afterSeq: 1, maxPending: 2 })).toMatchObject({
        added: { seq: 3 },
      });
    });

    it('refuses a message to an ended run and throws RUN_NOT_FOUND for an unknown one', async () => {
      const s = messages();
      if (!s) return;
      const run = await h.seed('r1');
      await h.store.commit({ runId: 'r1', expectedVersion: run.version, patch: { status: 'completed' } });
      expect(await s.addRunMessage(said('r1', 1), open)).toEqual({ refused: 'RUN_ENDED' });
      expect(await s.runMessages('r1')).toEqual([]);
      await expectStoreError(s.addRunMessage(said('nope', 1), open), 'RUN_NOT_FOUND');
    });

    it('numbers messages sent at once without a gap or a duplicate', async () => {
      const s = messages();
      if (!s) return;
      await h.seed('r1');
      const results = await Promise.all([1, 2, 3, 4, 5].map((n) => s.addRunMessage(said('r1', n), open)));
      const seqs = results.map((r) => ('added' in r ? r.added.seq : 0)).sort((a, b) => a - b);
      expect(seqs).toEqual([1, 2, 3, 4, 5]);
      expect((await s.runMessages('r1')).map((m) => m.seq)).toEqual([1, 2, 3, 4, 5]);
    });
  });
}
