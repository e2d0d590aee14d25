import type { WebhookDelivery } from '../records/webhook-delivery.js';
import type { ClaimedDelivery, NewDelivery } from './outbox.js';

/**
 * A `webhook_deliveries` row of the SQL stores (schema 3). Times the claim compares are epoch ms
 * (`next_attempt_at`, `lease_until`; bigint, which a PostgreSQL driver may hand back as text).
 */
export interface OutboxRow {
  webhook: string;
  event_id: string;
  event: string;
  run_id: string;
  tenant: string | null;
  body: string;
  status: string;
  attempts: number | string;
  last_status: number | string | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  next_attempt_at: number | string | null;
}

/** The log row of a stored delivery. */
export function deliveryFromRow(row: OutboxRow): WebhookDelivery {
  return {
    webhook: row.webhook,
    eventId: row.event_id,
    event: row.event,
    runId: row.run_id,
    tenant: row.tenant,
    status: row.status as WebhookDelivery['status'],
    attempts: Number(row.attempts),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    nextAttemptAt: row.next_attempt_at === null ? null : new Date(Number(row.next_attempt_at)).toISOString(),
  };
}

/** A claimed delivery with its body. */
export function claimedFromRow(row: OutboxRow): ClaimedDelivery {
  return { ...deliveryFromRow(row), body: row.body };
}

/** The insert parameters of a new delivery, in column order (webhook … next_attempt_at). */
export function newDeliveryParams(d: NewDelivery): (string | number | null)[] {
  return [d.webhook, d.eventId, d.event, d.runId, d.tenant, d.body, d.createdAt, Date.parse(d.createdAt)];
}

/** `nextAttemptAt` as the epoch ms the claim compares, or null. */
export function dueMs(nextAttemptAt: string | null): number | null {
  return nextAttemptAt === null ? null : Date.parse(nextAttemptAt);
}
