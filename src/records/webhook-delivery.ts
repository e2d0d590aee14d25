import { z } from 'zod';

/**
 * One event sent (or being sent) to one webhook (docs/notifications.md): a row of the durable outbox
 * and of the delivery log (`GET /v1/webhooks/deliveries`). Keyed by webhook name and event id.
 */
export const WebhookDeliverySchema = z.object({
  webhook: z.string(),
  eventId: z.string(),
  event: z.string(),
  runId: z.string(),
  tenant: z.string().nullable(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int().nonnegative(),
  /** The HTTP status of the last attempt, null when none answered (or none was made yet). */
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  /** When the next attempt is due (pending only), ISO 8601. */
  nextAttemptAt: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
