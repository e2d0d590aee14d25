import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { requireRole, type AppEnv } from './context.js';
import { errors, json } from './schemas.js';
import type { WebhookDispatcher } from './webhooks.js';

const DeliverySchema = z
  .object({
    webhook: z.string().openapi({ description: "The webhook's `name` (default: its URL's host:port)." }),
    eventId: z
      .string()
      .openapi({ description: 'The `X-Agent-Runtime-Event` id: the same for each attempt.' }),
    event: z.string().openapi({ example: 'run.suspended' }),
    runId: z.string(),
    tenant: z.string().nullable(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.number().int(),
    lastStatus: z.number().int().nullable().openapi({ description: 'HTTP status of the last attempt.' }),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    deliveredAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
  })
  .openapi('WebhookDelivery');

const DeliveriesQuery = z.object({
  webhook: z
    .string()
    .min(1)
    .optional()
    .openapi({ description: "Only this webhook's deliveries (its name)." }),
  limit: z.coerce.number().int().min(1).max(1000).default(100).openapi({
    description: 'At most this many deliveries, newest first (default 100).',
  }),
});

const deliveries = createRoute({
  method: 'get',
  path: '/v1/webhooks/deliveries',
  tags: ['webhooks'],
  summary: 'The delivery log of the webhooks (serve --webhooks), newest first',
  middleware: [requireRole('operator')] as const,
  request: { query: DeliveriesQuery },
  responses: {
    200: json(z.array(DeliverySchema), 'Deliveries of events to webhooks, newest first.'),
    ...errors(400, 401, 403),
  },
});

/**
 * `GET /v1/webhooks/deliveries` (operator, admin): the log of notifications sent (docs/notifications.md).
 * A token with a tenant sees its tenant's runs only; without webhooks the list is empty.
 */
export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>, dispatcher: WebhookDispatcher | null): void {
  app.openapi(deliveries, async (c) => {
    const { webhook, limit } = c.req.valid('query');
    const tenant = c.get('principal').tenant;
    const list =
      (await dispatcher?.deliveries({
        ...(tenant !== null ? { tenant } : {}),
        ...(webhook !== undefined ? { webhook } : {}),
        limit,
      })) ?? [];
    return c.json(list, 200);
  });
}
