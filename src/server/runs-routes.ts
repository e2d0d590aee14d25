import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { validateRunInput } from '../flow/input.js';
import type { LoadedFlow } from '../flow/load.js';
import { absolutizeModel } from '../model/resolve.js';
import type { RunSummary } from '../records/summary.js';
import { assertOpen, assertRole, requireRole, visibleRun, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import { requestModel, vetRequestFlow } from './request-policy.js';
import type { Principal } from './tokens.js';
import type { StoredResponse } from './idempotency.js';
import {
  AnswerSchema,
  ApprovalSchema,
  IdempotencyHeader,
  ListRunsQuery,
  RunIdParam,
  RunSummarySchema,
  StartRunSchema,
  errors,
  json,
} from './schemas.js';

const startRun = createRoute({
  method: 'post',
  path: '/v1/runs',
  tags: ['runs'],
  summary: 'Start a run; it executes in the background',
  middleware: [requireRole('operator')] as const,
  request: {
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: StartRunSchema } } },
  },
  responses: {
    201: json(
      RunSummarySchema,
      'The run was created (status `running`); watch it with GET /v1/runs/{id}/events.',
    ),
    ...errors(400, 401, 403, 404, 413),
  },
});

const listRuns = createRoute({
  method: 'get',
  path: '/v1/runs',
  tags: ['runs'],
  summary: 'List runs, newest first',
  request: { query: ListRunsQuery },
  responses: { 200: json(z.array(RunSummarySchema), 'Run summaries.'), ...errors(400, 401) },
});

const getRun = createRoute({
  method: 'get',
  path: '/v1/runs/{id}',
  tags: ['runs'],
  summary: 'The run summary',
  request: { params: RunIdParam },
  responses: { 200: json(RunSummarySchema, 'The run summary.'), ...errors(401, 404) },
});

const approval = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/approval',
  tags: ['runs'],
  summary: 'Approve or reject the pending write; the run continues in the background',
  middleware: [requireRole('operator')] as const,
  request: {
    params: RunIdParam,
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: ApprovalSchema } } },
  },
  responses: {
    200: json(RunSummarySchema, 'The decision was recorded; the summary as the run continues.'),
    ...errors(400, 401, 403, 404, 409, 413),
  },
});

const answer = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/answer',
  tags: ['runs'],
  summary: 'Answer the pending follow-up question; the run continues in the background',
  middleware: [requireRole('operator')] as const,
  request: {
    params: RunIdParam,
    headers: IdempotencyHeader,
    body: { required: true, content: { 'application/json': { schema: AnswerSchema } } },
  },
  responses: {
    200: json(RunSummarySchema, 'The answer was recorded; the summary as the run continues.'),
    ...errors(400, 401, 403, 404, 409, 413),
  },
});

const cancel = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/cancel',
  tags: ['runs'],
  summary: 'Cancel a run that has not ended',
  middleware: [requireRole('operator')] as const,
  request: { params: RunIdParam, headers: IdempotencyHeader },
  responses: { 200: json(RunSummarySchema, 'The cancelled run.'), ...errors(401, 403, 404, 409) },
});

/** Registers the run routes of docs/api.md (the events stream lives in events.ts). */
export function registerRunRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(startRun, async (c) => {
    const body = c.req.valid('json');
    const result = await idempotent(deps, c, body, async () => ({
      status: 201,
      body: await start(deps, c, body),
    }));
    c.header('Location', `/v1/runs/${result.runId}`);
    return c.json(result, 201);
  });

  app.openapi(listRuns, async (c) => {
    const { status, limit } = c.req.valid('query');
    const tenant = c.get('principal').tenant;
    const list = await deps.runtime.list({
      ...(status ? { status } : {}),
      ...(tenant !== null ? { tenant } : {}),
      limit,
    });
    return c.json(list, 200);
  });

  app.openapi(getRun, async (c) => {
    const { id } = c.req.valid('param');
    await visibleRun(deps, c.get('principal'), id);
    return c.json(await deps.runtime.status(id), 200);
  });

  registerResponseRoutes(app, deps);
}

/** The routes by which a person acts on a run: approval, answer, cancel. */
function registerResponseRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(approval, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const principal = c.get('principal');
    if (body.args !== undefined && body.decision !== 'approve')
      throw new ApiError(400, 'BAD_REQUEST', 'args edit the call on approval; expected decision: approve');
    const options = {
      comment: body.comment ?? null,
      who: principal.name,
      role: principal.role,
      ...(body.expect !== undefined ? { expect: body.expect } : {}),
      ...(body.args !== undefined ? { args: body.args } : {}),
    };
    const summary = await idempotent(deps, c, body, () =>
      respond(deps, c, id, (onAccepted) =>
        body.decision === 'approve'
          ? deps.runtime.approve(id, { ...options, onAccepted })
          : deps.runtime.reject(id, { ...options, onAccepted }),
      ),
    );
    return c.json(summary, 200);
  });

  app.openapi(answer, async (c) => {
    const { id } = c.req.valid('param');
    const body = c.req.valid('json');
    const who = c.get('principal').name;
    const summary = await idempotent(deps, c, body, () =>
      respond(deps, c, id, (onAccepted) =>
        deps.runtime.answer(id, body.text ?? '', {
          who,
          onAccepted,
          ...(body.action !== undefined ? { action: body.action } : {}),
          ...(body.expect !== undefined ? { expect: body.expect } : {}),
        }),
      ),
    );
    return c.json(summary, 200);
  });

  app.openapi(cancel, async (c) => {
    const { id } = c.req.valid('param');
    const summary = await idempotent(deps, c, null, async () => {
      assertOpen(deps, c);
      await visibleRun(deps, c.get('principal'), id);
      return { status: 200, body: await deps.locks.with(id, () => deps.runtime.cancel(id)) };
    });
    return c.json(summary, 200);
  });
}

/** The body of `POST /v1/runs` (and of a thread message). */
export type StartBody = z.infer<typeof StartRunSchema>;

/** Starts a run of a registered or inline flow in the background; answers once it is persisted. */
async function start(deps: ServerDeps, c: Context<AppEnv>, body: StartBody): Promise<RunSummary> {
  assertOpen(deps, c);
  const principal = c.get('principal');
  const { loaded, trusted } = await chooseFlow(deps, principal, body);
  const input = typeof body.input === 'string' ? { text: body.input } : (body.input ?? {});
  const problems = validateRunInput(loaded.flow, input);
  if (problems.length > 0) {
    throw new ApiError(
      400,
      'INPUT_INVALID',
      `the input does not match the input schema of flow "${loaded.flow.id}"`,
      problems,
    );
  }
  const model = runModel(deps, body.model, loaded, trusted);
  return deps.background.accept((onAccepted) =>
    deps.runtime.start(loaded, {
      input,
      tenant: principal.tenant,
      who: principal.name,
      onAccepted,
      ...(model !== undefined ? { model } : {}),
    }),
  );
}

/**
 * The model a run started over HTTP persists: one the request names is held to the request policy,
 * and so is the `model:` of a flow that came over HTTP; a `--flows DIR` flow's own model is trusted.
 */
export function runModel(
  deps: ServerDeps,
  requested: string | undefined,
  loaded: LoadedFlow,
  trusted: boolean,
): string | undefined {
  if (requested !== undefined) return requestModel(requested, deps.policy);
  const own = loaded.flow.model;
  if (own === undefined) return undefined;
  return trusted ? absolutizeModel(own, loaded.dir ?? deps.flows.baseDir) : requestModel(own, deps.policy);
}

/**
 * The flow a start request names: registered by id (the caller's tenant's own, else a shared one),
 * or inline (admins only, held to the request policy). `trusted` is true for `--flows DIR` flows.
 */
export async function chooseFlow(
  deps: ServerDeps,
  principal: Principal,
  body: StartBody,
): Promise<{ loaded: LoadedFlow; trusted: boolean }> {
  const nonAdmin = principal.role === 'admin' ? null : principal.name;
  if ((body.flowId === undefined) === (body.flow === undefined)) {
    throw new ApiError(
      400,
      'BAD_REQUEST',
      'give exactly one of flowId (a registered flow) or flow (an inline flow)',
    );
  }
  if (body.flow !== undefined) {
    if (nonAdmin !== null) {
      throw new ApiError(
        403,
        'FORBIDDEN',
        `token ${nonAdmin} may start registered flows only; an inline flow needs role admin`,
      );
    }
    const loaded = await deps.flows.loadObject(body.flow);
    vetRequestFlow(loaded.flow, deps.policy);
    return { loaded, trusted: false };
  }
  const entry = deps.flows.entry(body.flowId as string, principal.tenant);
  if (!entry)
    throw new ApiError(
      404,
      'FLOW_NOT_FOUND',
      `unknown flow id ${body.flowId as string} (GET /v1/flows lists them)`,
    );
  return { loaded: entry.loaded, trusted: entry.info.origin === 'dir' };
}

/** A person's response to a visible run, serialised per run, answered once it is persisted. */
async function respond(
  deps: ServerDeps,
  c: Context<AppEnv>,
  runId: string,
  call: (onAccepted: (summary: RunSummary) => void) => Promise<RunSummary>,
): Promise<StoredResponse<RunSummary>> {
  assertOpen(deps, c);
  assertRole(c.get('principal'), 'operator');
  await visibleRun(deps, c.get('principal'), runId);
  const summary = await deps.locks.with(runId, () => deps.background.accept(call));
  return { status: 200, body: summary };
}

/**
 * Runs `produce` under the request's `Idempotency-Key` (if any): a retried request gets the first
 * successful response again, marked with `Idempotent-Replayed: true`.
 */
export async function idempotent<T>(
  deps: ServerDeps,
  c: Context<AppEnv>,
  body: unknown,
  produce: () => Promise<StoredResponse<T>>,
): Promise<T> {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return (await produce()).body;
  const principal = c.get('principal');
  const scope = `${principal.name}\u0000${principal.tenant ?? ''}\u0000${c.req.method} ${c.req.path}`;
  const result = await deps.cache.run(scope, key, body, produce);
  if (result.replayed) c.header('Idempotent-Replayed', 'true');
  return result.body;
}
