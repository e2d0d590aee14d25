import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { LoadedFlow } from '../flow/load.js';
import type { RunRecord } from '../store/store.js';
import { ApiError } from './errors.js';
import { requestModel } from './request-policy.js';
import { idempotent } from './runs-routes.js';
import { assertOpen, requireRole, visibleRun, type AppEnv, type ServerDeps } from './context.js';
import { IdempotencyHeader, RunIdParam, RunSummarySchema, errors, json } from './schemas.js';

/** The body of `POST /v1/runs/{id}/fork`: the event to continue after, optionally another model. */
export const ForkSchema = z
  .strictObject({
    at: z.int().min(1).openapi({ description: 'The `seq` of the event to continue after', example: 12 }),
    model: z.string().min(1).optional().openapi({
      description: 'Continue with this model (`<provider>:<model id>`); default: the run’s',
      example: 'anthropic:claude-sonnet-4-5',
    }),
    flowVersion: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .openapi({
        description:
          'Continue with the flow registered now under the run’s flow id, which must have this version ' +
          '(400 naming the registered version otherwise); default: the run’s own flow',
        example: '2',
      }),
  })
  .openapi('Fork');

const forkRoute = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/fork',
  tags: ['runs'],
  summary: 'Start a new run continuing from an event of this run; it continues in the background',
  description:
    'The new run’s state is this run’s right after event `at` — its trace up to there, evidence, approvals, ' +
    'outputs and conversation — and it continues with `model`. Nothing before `at` is executed again. The new ' +
    'summary has `forkedFrom: {runId, seq}`. 400 when `at` is not an event a fork can continue from (after a ' +
    'tool call that ended its round; the message names the nearest ones).',
  middleware: [requireRole('operator')] as const,
  request: {
    params: RunIdParam,
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: ForkSchema } } },
  },
  responses: {
    200: json(RunSummarySchema, 'The new run, as it starts (`forkedFrom` names where it came from).'),
    ...errors(400, 401, 403, 404, 409, 413),
  },
});

/**
 * The flow registered under the run's flow id for the run's tenant, if it has `version`; 400 naming
 * the registered version (or saying none is registered) otherwise.
 */
function registeredVersion(deps: ServerDeps, record: RunRecord, version: string): LoadedFlow {
  const entry = deps.flows.entry(record.flowId, record.tenant);
  if (!entry)
    throw new ApiError(
      400,
      'BAD_REQUEST',
      `no flow ${record.flowId} is registered to fork with (GET /v1/flows)`,
    );
  const registered = String(entry.loaded.flow.version);
  if (registered !== version)
    throw new ApiError(
      400,
      'BAD_REQUEST',
      `flow ${record.flowId} is registered at version ${visibleLabel(registered)}, not ${visibleLabel(version)}`,
    );
  return entry.loaded;
}

const visibleLabel = (text: string): string => JSON.stringify(text.slice(0, 80));

/** Registers `POST /v1/runs/{id}/fork` (operator): the runtime's `fork`, answered once the new run is persisted. */
export function registerForkRoute(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(forkRoute, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    // Like a start request's: a provider name, never a server path (docs/security.md).
    const model = body.model === undefined ? undefined : requestModel(body.model, deps.policy);
    const produce = async () => {
      assertOpen(deps, c);
      const record = await visibleRun(deps, c.get('principal'), id);
      const flow =
        body.flowVersion === undefined ? undefined : registeredVersion(deps, record, body.flowVersion);
      const summary = await deps.background.accept((onAccepted) =>
        deps.runtime.fork(id, {
          at: body.at,
          onAccepted,
          ...(model !== undefined ? { model } : {}),
          ...(flow !== undefined ? { flow } : {}),
        }),
      );
      return { status: 200, body: summary };
    };
    return c.json(await idempotent(deps, c, body, produce), 200);
  });
}
