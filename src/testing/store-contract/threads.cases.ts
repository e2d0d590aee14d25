import type { Store } from '../../store/store.js';
import type { Harness } from './helpers.js';
import type { TestApi } from './test-api.js';

type ThreadStore = Required<Pick<Store, 'appendThreadRun' | 'getThread' | 'listThreads'>>;

/** Cases for the optional thread methods; skipped (one passing case says so) by a store without them. */
export function threadCases(h: Harness, t: TestApi): void {
  const { describe, it, expect } = t;
  const threads = (): ThreadStore | null => {
    const s = h.store;
    return s.appendThreadRun && s.getThread && s.listThreads ? (s as Store & ThreadStore) : null;
  };
  describe('threads', () => {
    it('creates a thread with its first run and appends only after the last one (compare-and-set)', async () => {
      const s = threads();
      if (!s) return;
      const first = await s.appendThreadRun('acme', 'T1', 'r1', null);
      expect(first).toMatchObject({ threadId: 'T1', tenant: 'acme', runIds: ['r1'] });
      expect(await s.appendThreadRun('acme', 'T1', 'r9', null)).toBeNull();
      expect(await s.appendThreadRun('acme', 'T1', 'r9', 'r0')).toBeNull();
      const second = await s.appendThreadRun('acme', 'T1', 'r2', 'r1');
      expect(second?.runIds).toEqual(['r1', 'r2']);
      expect(second?.createdAt).toBe(first?.createdAt);
      expect(await s.getThread('acme', 'T1')).toEqual(second);
    });

    it('keeps tenants apart: the same thread id of another tenant (or none) is another thread', async () => {
      const s = threads();
      if (!s) return;
      await s.appendThreadRun('acme', 'T1', 'r1', null);
      expect(await s.getThread('other', 'T1')).toBeNull();
      expect(await s.getThread(null, 'T1')).toBeNull();
      expect((await s.appendThreadRun(null, 'T1', 'r5', null))?.tenant).toBeNull();
      expect((await s.getThread('acme', 'T1'))?.runIds).toEqual(['r1']);
      expect((await s.listThreads({ tenant: 'other' })).length).toBe(0);
    });

    it('lists a tenant’s threads most recently updated first, paged after the last one', async () => {
      const s = threads();
      if (!s) return;
      await s.appendThreadRun('acme', 'A', 'r1', null);
      await s.appendThreadRun('acme', 'B', 'r2', null);
      await s.appendThreadRun('acme', 'C', 'r3', null);
      await s.appendThreadRun('acme', 'A', 'r4', 'r1');
      const all = await s.listThreads({ tenant: 'acme' });
      expect(all.map((x) => x.threadId)).toEqual(['A', 'C', 'B']);
      const page = await s.listThreads({ tenant: 'acme', limit: 2 });
      expect(page.map((x) => x.threadId)).toEqual(['A', 'C']);
      const last = page[1];
      if (!last) throw new Error('no second thread');
      const next = await s.listThreads({ tenant: 'acme', limit: 2, after: last });
      expect(next.map((x) => x.threadId)).toEqual(['B']);
    });
  });
}
