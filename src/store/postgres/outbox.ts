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
import type { QueryRunner } from './queryable.js';

/** Schema 3: the webhook outbox and delivery log (docs/notifications.md). */
export const PG_OUTBOX_V3 = (s: string): string => `
CREATE TABLE ${s}.webhook_deliveries (
  pos             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook         text NOT NULL,
  event_id        text NOT NULL,
  event           text NOT NULL,
  run_id          text NOT NULL,
  tenant          text,
  body            text NOT NULL,
  status          text NOT NULL,
  attempts        integer NOT NULL,
  last_status     integer,
  last_error      text,
  created_at      text NOT NULL,
  delivered_at    text,
  next_attempt_at bigint,
  lease_owner     text,
  lease_until     bigint NOT NULL,
  UNIQUE (webhook, event_id)
);
CREATE INDEX webhook_deliveries_due ON ${s}.webhook_deliveries (next_attempt_at) WHERE status = 'pending'
`;

/** The outbox of PostgresStore (each operation one statement: atomic). `s` is the quoted schema. */
export class PgOutbox implements WebhookOutbox {
  constructor(
    private readonly db: () => QueryRunner,
    private readonly s: string,
  ) {}

  async add(deliveries: readonly NewDelivery[]): Promise<number> {
    let added = 0;
    for (const d of deliveries) {
      const result = await this.db().query(
        `INSERT INTO ${this.s}.webhook_deliveries (webhook, event_id, event, run_id, tenant, body, status, ` +
          `attempts, created_at, next_attempt_at, lease_until) ` +
          `VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $8, 0) ON CONFLICT DO NOTHING`,
        newDeliveryParams(d),
      );
      added += result.rowCount;
    }
    return added;
  }

  /** Rows another transaction is claiming are skipped (`SKIP LOCKED`): each goes to one process. */
  async claim(
    webhooks: readonly string[],
    owner: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<ClaimedDelivery[]> {
    const result = await this.db().query<OutboxRow>(
      `UPDATE ${this.s}.webhook_deliveries SET lease_owner = $2, lease_until = $4 WHERE pos IN (` +
        `SELECT pos FROM ${this.s}.webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $3 ` +
        `AND lease_until <= $3 AND webhook IN (SELECT jsonb_array_elements_text($1::jsonb)) ` +
        `ORDER BY next_attempt_at, pos LIMIT $5 FOR UPDATE SKIP LOCKED) RETURNING *`,
      [JSON.stringify(webhooks), owner, now, now + leaseMs, limit],
    );
    return result.rows.map(claimedFromRow);
  }

  async settle(key: DeliveryKey, owner: string, r: AttemptResult): Promise<boolean> {
    const result = await this.db().query(
      `UPDATE ${this.s}.webhook_deliveries SET status = $4, attempts = $5, last_status = $6, last_error = $7, ` +
        `delivered_at = $8, next_attempt_at = $9, lease_owner = NULL, lease_until = 0 ` +
        `WHERE webhook = $1 AND event_id = $2 AND lease_owner = $3 AND status = 'pending'`,
      [
        key.webhook,
        key.eventId,
        owner,
        r.status,
        r.attempts,
        r.lastStatus,
        r.lastError,
        r.deliveredAt,
        dueMs(r.nextAttemptAt),
      ],
    );
    return result.rowCount === 1;
  }

  async list(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    const result = await this.db().query<OutboxRow>(
      `SELECT * FROM ${this.s}.webhook_deliveries WHERE ($1::int = 0 OR tenant IS NOT DISTINCT FROM $2::text) ` +
        `AND ($3::text IS NULL OR webhook = $3::text) ORDER BY pos DESC LIMIT $4`,
      [
        filter.tenant === undefined ? 0 : 1,
        filter.tenant ?? null,
        filter.webhook ?? null,
        deliveryLimit(filter),
      ],
    );
    return result.rows.map(deliveryFromRow);
  }

  async prune(keep: number): Promise<void> {
    await this.db().query(
      `DELETE FROM ${this.s}.webhook_deliveries WHERE status <> 'pending' AND pos <= ` +
        `(SELECT pos FROM ${this.s}.webhook_deliveries ORDER BY pos DESC LIMIT 1 OFFSET $1)`,
      [keep],
    );
  }
}
