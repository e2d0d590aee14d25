import type { NewDelivery, WebhookOutbox } from '../../store/outbox.js';
import type { Harness } from './helpers.js';
import type { TestApi } from './test-api.js';

const T0 = Date.parse('2026-12-07T09:00:00.000Z');

function delivery(eventId: string, fields: Partial<NewDelivery> = {}): NewDelivery {
  return {
    webhook: 'ops',
    eventId,
    event: 'run.suspended',
    runId: 'r1',
    tenant: 'acme',
    createdAt: new Date(T0).toISOString(),
    body: `{"id":"${eventId}"}`,
    ...fields,
  };
}

/** Cases for the optional webhook outbox; skipped (each passing at once) by a store without one. */
export function outboxCases(h: Harness, t: TestApi): void {
  const { describe, it, expect } = t;
  const outbox = (): WebhookOutbox | null => h.store.outbox ?? null;
  describe('webhook outbox', () => {
    it('adds a delivery once per webhook and event id, pending and due at once', async () => {
      const o = outbox();
      if (!o) return;
      expect(await o.add([delivery('e1'), delivery('e1'), delivery('e1', { webhook: 'finance' })])).toBe(2);
      expect(await o.add([delivery('e1')])).toBe(0);
      const log = await o.list({});
      expect(log.map((d) => [d.webhook, d.eventId])).toEqual([
        ['finance', 'e1'],
        ['ops', 'e1'],
      ]);
      expect(log[1]).toEqual({
        webhook: 'ops',
        eventId: 'e1',
        event: 'run.suspended',
        runId: 'r1',
        tenant: 'acme',
        status: 'pending',
        attempts: 0,
        lastStatus: null,
        lastError: null,
        createdAt: '2026-12-07T09:00:00.000Z',
        deliveredAt: null,
        nextAttemptAt: '2026-12-07T09:00:00.000Z',
      });
    });

    it('claims a due delivery for one owner until its lease runs out; another owner gets it after', async () => {
      const o = outbox();
      if (!o) return;
      await o.add([delivery('e1'), delivery('e2', { webhook: 'other' })]);
      expect(await o.claim(['ops'], 'p1', T0 - 1, 10_000, 10)).toEqual([]); // not due yet
      const claimed = await o.claim(['ops'], 'p1', T0, 10_000, 10);
      expect(claimed.map((d) => [d.eventId, d.body])).toEqual([['e1', '{"id":"e1"}']]);
      expect(await o.claim(['ops', 'other'], 'p2', T0 + 5_000, 10_000, 10)).toHaveLength(1); // e2 only
      const taken = await o.claim(['ops'], 'p2', T0 + 10_000, 10_000, 10); // p1's lease ran out
      expect(taken.map((d) => d.eventId)).toEqual(['e1']);
      const result = {
        status: 'delivered' as const,
        attempts: 1,
        lastStatus: 200,
        lastError: null,
        deliveredAt: '2026-12-07T09:00:11.000Z',
        nextAttemptAt: null,
      };
      expect(await o.settle({ webhook: 'ops', eventId: 'e1' }, 'p1', result)).toBe(false); // lost its claim
      expect(await o.settle({ webhook: 'ops', eventId: 'e1' }, 'p2', result)).toBe(true);
      expect(await o.settle({ webhook: 'ops', eventId: 'e1' }, 'p2', result)).toBe(false); // settled already
      expect(await o.claim(['ops'], 'p3', T0 + 60_000, 10_000, 10)).toEqual([]);
      expect((await o.list({ webhook: 'ops' }))[0]).toMatchObject(result);
    });

    it('a retry waits for its next attempt; the claim takes the earliest due first, at most `limit`', async () => {
      const o = outbox();
      if (!o) return;
      await o.add([delivery('e1'), delivery('e2'), delivery('e3')]);
      const [first] = await o.claim(['ops'], 'p1', T0, 10_000, 1);
      expect(first?.eventId).toBe('e1');
      const retry = {
        status: 'pending' as const,
        attempts: 1,
        lastStatus: 500,
        lastError: 'HTTP 500',
        deliveredAt: null,
        nextAttemptAt: new Date(T0 + 5_000).toISOString(),
      };
      expect(await o.settle({ webhook: 'ops', eventId: 'e1' }, 'p1', retry)).toBe(true);
      expect((await o.claim(['ops'], 'p1', T0 + 1_000, 10_000, 10)).map((d) => d.eventId)).toEqual([
        'e2',
        'e3',
      ]);
      const again = await o.claim(['ops'], 'p2', T0 + 5_000, 10_000, 10);
      expect(again.map((d) => [d.eventId, d.attempts, d.lastStatus])).toEqual([['e1', 1, 500]]);
    });

    it('lists newest first by tenant (null: runs without one) and webhook; prunes settled rows beyond `keep`', async () => {
      const o = outbox();
      if (!o) return;
      await o.add([delivery('e1'), delivery('e2', { tenant: null }), delivery('e3', { webhook: 'finance' })]);
      expect((await o.list({ tenant: 'acme' })).map((d) => d.eventId)).toEqual(['e3', 'e1']);
      expect((await o.list({ tenant: null })).map((d) => d.eventId)).toEqual(['e2']);
      expect((await o.list({ webhook: 'finance' })).map((d) => d.eventId)).toEqual(['e3']);
      expect((await o.list({ limit: 1 })).map((d) => d.eventId)).toEqual(['e3']);
      const failed = {
        status: 'failed' as const,
        attempts: 1,
        lastStatus: null,
        lastError: 'refused',
        deliveredAt: null,
        nextAttemptAt: null,
      };
      await o.claim(['ops'], 'p1', T0, 10_000, 10);
      await o.settle({ webhook: 'ops', eventId: 'e1' }, 'p1', failed);
      await o.prune(1);
      // e1 (settled, not among the newest 1) goes; e2 (pending) stays.
      expect((await o.list({})).map((d) => d.eventId)).toEqual(['e3', 'e2']);
    });
  });
}
