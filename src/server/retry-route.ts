import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { requestModel } from './request-policy.js';
import { idempotent } from './runs-routes.js';
import {
  assertOpen,
  blankBodyIsNoBody,
  requireRole,
  visibleRun,
  type AppEnv,
  type ServerDeps,
} from './context.js';
import { IdempotencyHeader, RunIdParam, RunSummarySchema, errors, json } from './schemas.js';

/** The body of `POST /v1/runs/{id}/retry`: optionally another model for the rest of the run. */
export const RetrySchema = z
  .strictObject({
    model: z.string().min(1).optional().openapi({
      description: 'Continue with this model from now on (`<provider>:<model id>`)',
      example: 'anthropic:claude-sonnet-4-5',
    }),
  })
  .openapi('Retry');

const retryRoute = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/retry',
  tags: ['runs'],
  summary: 'Take a failed run up again in the node that failed; it continues in the background',
  description:
    'For MODEL_FAILED and TOOLS_UNAVAILABLE the same round is asked again; for NO_PROGRESS, ROUND_LIMIT and ' +
    'FAILED_BY_MODEL the node starts its round and stall counts afresh and the model is told why it is retried. ' +
    'The conversation, evidence, approvals and outputs stay; writes already executed are not executed again. ' +
    '409 when the run has not failed (or failed outside a node).',
  middleware: [requireRole('operator'), blankBodyIsNoBody] as const,
  request: {
    params: RunIdParam,
    headers: IdempotencyHeader,
    body: { required: false, content: { 'application/json': { schema: RetrySchema } } },
  },
  responses: {
    200: json(RunSummarySchema, 'The run was taken up again (`run.retried`); the summary as it continues.'),
    ...errors(400, 401, 403, 404, 409, 413),
  },
});

/** Registers `POST /v1/runs/{id}/retry` (operator): the runtime's `retry`, answered once the run is `running` again. */
export function registerRetryRoute(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(retryRoute, async (c) => {
    const { id } = c.req.valid('param');
    const body = (c.req.header('content-type') ?? '').includes('json') ? c.req.valid('json') : {};
    const who = c.get('principal').name;
    // Like a start request's: a provider name, never a server path (docs/security.md).
    const model = body.model === undefined ? undefined : requestModel(body.model, deps.policy);
    const produce = async () => {
      assertOpen(deps, c);
      await visibleRun(deps, c.get('principal'), id);
      const summary = await deps.locks.with(id, () =>
        deps.background.accept((onAccepted) =>
          deps.runtime.retry(id, { who, onAccepted, ...(model !== undefined ? { model } : {}) }),
        ),
      );
      return { status: 200, body: summary };
    };
    return c.json(await idempotent(deps, c, body, produce), 200);
  });
}
