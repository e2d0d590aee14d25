import type { StatementSync } from 'node:sqlite';
import type { WebhookDelivery } from '../../records/webhook-delivery.js';
import {
  deliveryLimit,
  type AttemptResult,
  type ClaimedDelivery,
  type DeliveryFilter,
  type DeliveryKey,
  type NewDelivery,
  type WebhookOutbox,
} from '../outbox.js';
import { claimedFromRow, deliveryFromRow, dueMs, newDeliveryParams, type OutboxRow } from '../outbox-rows.js';

/** Schema 3: the webhook outbox and delivery log (docs/notifications.md). */
export const OUTBOX_V3 = `
CREATE TABLE webhook_deliveries (
  pos             INTEGER PRIMARY KEY,
  webhook         TEXT NOT NULL,
  event_id        TEXT NOT NULL,
  event           TEXT NOT NULL,
  run_id          TEXT NOT NULL,
  tenant          TEXT,
  body            TEXT NOT NULL,
  status          TEXT NOT NULL,
  attempts        INTEGER NOT NULL,
  last_status     INTEGER,
  last_error      TEXT,
  created_at      TEXT NOT NULL,
  delivered_at    TEXT,
  next_attempt_at INTEGER,
  lease_owner     TEXT,
  lease_until     INTEGER NOT NULL,
  UNIQUE (webhook, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
`;

const SQL = {
  add:
    'INSERT INTO webhook_deliveries (webhook, event_id, event, run_id, tenant, body, status, attempts, ' +
    "created_at, next_attempt_at, lease_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, ?7, ?8, 0) " +
    'ON CONFLICT DO NOTHING',
  claim:
    'UPDATE webhook_deliveries SET lease_owner = ?2, lease_until = ?4 WHERE pos IN (' +
    "SELECT pos FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?3 AND lease_until <= ?3 " +
    'AND webhook IN (SELECT value FROM json_each(?1)) ORDER BY next_attempt_at, pos LIMIT ?5) RETURNING *',
  settle:
    'UPDATE webhook_deliveries SET status = ?4, attempts = ?5, last_status = ?6, last_error = ?7, delivered_at = ?8, ' +
    "next_attempt_at = ?9, lease_owner = NULL, lease_until = 0 WHERE webhook = ?1 AND event_id = ?2 AND lease_owner = ?3 AND status = 'pending'",
  list:
    'SELECT * FROM webhook_deliveries WHERE (?1 = 0 OR tenant IS ?2) AND (?3 IS NULL OR webhook = ?3) ' +
    'ORDER BY pos DESC LIMIT ?4',
  prune:
    "DELETE FROM webhook_deliveries WHERE status != 'pending' AND pos <= " +
    '(SELECT pos FROM webhook_deliveries ORDER BY pos DESC LIMIT 1 OFFSET ?1)',
} as const;

/** The outbox of SqliteStore over its prepared statements (each one statement: atomic). */
export class SqliteOutbox implements WebhookOutbox {
  constructor(private readonly stmt: (sql: string) => StatementSync) {}

  add(deliveries: readonly NewDelivery[]): Promise<number> {
    return this.#sync(() => {
      let added = 0;
      for (const d of deliveries) added += Number(this.stmt(SQL.add).run(...newDeliveryParams(d)).changes);
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
      const rows = this.stmt(SQL.claim).all(JSON.stringify(webhooks), owner, now, now + leaseMs, limit);
      return (rows as unknown as OutboxRow[]).map(claimedFromRow);
    });
  }

  settle(key: DeliveryKey, owner: string, r: AttemptResult): Promise<boolean> {
    return this.#sync(() => {
      const params = [r.status, r.attempts, r.lastStatus, r.lastError, r.deliveredAt, dueMs(r.nextAttemptAt)];
      return Number(this.stmt(SQL.settle).run(key.webhook, key.eventId, owner, ...params).changes) === 1;
    });
  }

  list(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    return this.#sync(() => {
      const byTenant = filter.tenant === undefined ? 0 : 1;
      const rows = this.stmt(SQL.list).all(
        byTenant,
        filter.tenant ?? null,
        filter.webhook ?? null,
        deliveryLimit(filter),
      );
      return (rows as unknown as OutboxRow[]).map(deliveryFromRow);
    });
  }

  prune(keep: number): Promise<void> {
    return this.#sync(() => void this.stmt(SQL.prune).run(keep));
  }

  #sync<T>(operation: () => T): Promise<T> {
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
