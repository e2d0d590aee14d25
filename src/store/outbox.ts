import type { WebhookDelivery } from '../records/webhook-delivery.js';

/**
 * The durable webhook outbox (docs/notifications.md, "Retries and the delivery log"): every delivery
 * of an event to a webhook is a row, added once by whichever process saw the event first, claimed with
 * a lease by one process at a time for each attempt, and kept as the delivery log once settled. A
 * process that dies leaves its pending rows to the next one (the lease runs out).
 */
export interface WebhookOutbox {
  /** Adds the deliveries not known yet (by webhook and event id); returns how many were new. */
  add(deliveries: readonly NewDelivery[]): Promise<number>;
  /**
   * Claims, for `owner` until `now + leaseMs` (epoch ms), at most `limit` pending deliveries of the
   * named webhooks whose next attempt is due at `now` and that no live lease holds; oldest first.
   */
  claim(
    webhooks: readonly string[],
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<ClaimedDelivery[]>;
  /** Records an attempt and releases the claim; false (nothing changed) when `owner` no longer holds it. */
  settle(key: DeliveryKey, owner: string, result: AttemptResult): Promise<boolean>;
  /** The log, newest first: of one tenant (null: runs without one; undefined: all), of one webhook. */
  list(filter: DeliveryFilter): Promise<WebhookDelivery[]>;
  /** Drops the settled rows beyond the newest `keep` (pending ones stay). */
  prune(keep: number): Promise<void>;
}

export interface DeliveryKey {
  webhook: string;
  eventId: string;
}

/** A delivery as first added: pending, no attempt yet, due at once. */
export type NewDelivery = Pick<
  WebhookDelivery,
  'webhook' | 'eventId' | 'event' | 'runId' | 'tenant' | 'createdAt'
> & {
  /** The JSON body sent on every attempt (signed by the sender). */
  body: string;
};

/** A claimed delivery: its log row and the body to send. */
export type ClaimedDelivery = WebhookDelivery & { body: string };

/** What an attempt came to: the delivery's fields after it. */
export type AttemptResult = Pick<
  WebhookDelivery,
  'status' | 'attempts' | 'lastStatus' | 'lastError' | 'deliveredAt' | 'nextAttemptAt'
>;

export interface DeliveryFilter {
  tenant?: string | null;
  webhook?: string;
  /** At most this many (1 to 1000, default 100). */
  limit?: number;
}

/** The page size of `list`: 1 to 1000, default 100. */
export function deliveryLimit(filter: DeliveryFilter): number {
  return Math.min(1000, Math.max(1, Math.trunc(filter.limit ?? 100)));
}

interface MemoryRow {
  pos: number;
  delivery: WebhookDelivery;
  body: string;
  due: number | null;
  leaseOwner: string | null;
  leaseUntil: number;
}

/** The outbox of a MemoryStore (one process: durable only as long as it lives). Values handed out are copies. */
export class MemoryOutbox implements WebhookOutbox {
  readonly #rows = new Map<string, MemoryRow>();
  #pos = 0;

  constructor(private readonly check: () => void = () => {}) {}

  add(deliveries: readonly NewDelivery[]): Promise<number> {
    return this.#sync(() => {
      let added = 0;
      for (const d of deliveries) {
        const key = keyOf(d);
        if (this.#rows.has(key)) continue;
        const { body, ...fields } = d;
        const delivery: WebhookDelivery = {
          ...fields,
          status: 'pending',
          attempts: 0,
          lastStatus: null,
          lastError: null,
          deliveredAt: null,
          nextAttemptAt: d.createdAt,
        };
        this.#rows.set(key, {
          pos: ++this.#pos,
          delivery,
          body,
          due: Date.parse(d.createdAt),
          leaseOwner: null,
          leaseUntil: 0,
        });
        added += 1;
      }
      return added;
    });
  }

  claim(
    webhooks: readonly string[],
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<ClaimedDelivery[]> {
    return this.#sync(() => {
      const due = [...this.#rows.values()]
        .filter((r) => r.delivery.status === 'pending' && webhooks.includes(r.delivery.webhook))
        .filter((r) => r.due !== null && r.due <= now && r.leaseUntil <= now)
        .sort((a, b) => (a.due ?? 0) - (b.due ?? 0) || a.pos - b.pos)
        .slice(0, limit);
      for (const r of due) {
        r.leaseOwner = owner;
        r.leaseUntil = now + leaseMs;
      }
      return due.map((r) => ({ ...r.delivery, body: r.body }));
    });
  }

  settle(key: DeliveryKey, owner: string, result: AttemptResult): Promise<boolean> {
    return this.#sync(() => {
      const row = this.#rows.get(keyOf(key));
      if (!row || row.leaseOwner !== owner || row.delivery.status !== 'pending') return false;
      row.delivery = { ...row.delivery, ...result };
      row.due = result.nextAttemptAt === null ? null : Date.parse(result.nextAttemptAt);
      row.leaseOwner = null;
      row.leaseUntil = 0;
      return true;
    });
  }

  list(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    return this.#sync(() =>
      [...this.#rows.values()]
        .filter((r) => filter.tenant === undefined || r.delivery.tenant === filter.tenant)
        .filter((r) => filter.webhook === undefined || r.delivery.webhook === filter.webhook)
        .sort((a, b) => b.pos - a.pos)
        .slice(0, deliveryLimit(filter))
        .map((r) => ({ ...r.delivery })),
    );
  }

  prune(keep: number): Promise<void> {
    return this.#sync(() => {
      const newest = [...this.#rows.entries()].sort((a, b) => b[1].pos - a[1].pos);
      for (const [key, row] of newest.slice(keep))
        if (row.delivery.status !== 'pending') this.#rows.delete(key);
    });
  }

  #sync<T>(operation: () => T): Promise<T> {
    try {
      this.check();
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

function keyOf(key: DeliveryKey): string {
  return JSON.stringify([key.webhook, key.eventId]);
}
