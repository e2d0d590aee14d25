import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { isStdioServer } from '../domain/flow.js';
import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import { finishConnect, startConnect, type ConnectTarget } from '../mcp/connect.js';
import { McpError } from '../mcp/errors.js';
import type { McpCredentialStore } from '../mcp/token-store.js';
import type { FollowUpPending } from '../records/pending.js';
import type { RunSummary } from '../records/summary.js';
import type { RunRecord } from '../store/store.js';
import { assertOpen, blankBodyIsNoBody, visibleRun, type AppEnv, type ServerDeps } from './context.js';
import type { ConnectStates } from './connect-states.js';
import { ApiError } from './errors.js';
import { AuthorizationStartSchema, AuthorizationStartedSchema, RunIdParam, errors, json } from './schemas.js';
import { requireRole } from './context.js';

/** What the Connect routes need besides the server's deps. */
export interface ConnectDeps {
  readonly states: ConnectStates;
  /** Where the OAuth tokens are kept (the runtime's MCP connections read them from the same place). */
  readonly credentials: McpCredentialStore;
  /** The server's public base URL (`serve --public-url`, else where it listens), or null before it listens. */
  baseUrl(): string | null;
}

/** The path of the OAuth redirect `serve` registers with authorization servers. */
export const CALLBACK_PATH = '/v1/oauth/callback';

const start = createRoute({
  method: 'post',
  path: '/v1/runs/{id}/authorization',
  tags: ['runs'],
  summary: 'Start the authorization an MCP server needs for the run (Connect): the URL the person opens',
  middleware: [requireRole('operator'), blankBodyIsNoBody] as const,
  request: {
    params: RunIdParam,
    body: { required: false, content: { 'application/json': { schema: AuthorizationStartSchema } } },
  },
  responses: {
    200: json(
      AuthorizationStartedSchema,
      'The URL to open, or `authorized: true` when nothing is to be done.',
    ),
    ...errors(400, 401, 403, 404, 409, 502, 503),
  },
});

const callback = createRoute({
  method: 'get',
  path: CALLBACK_PATH,
  tags: ['runs'],
  summary: "The OAuth redirect: the authorization server sends the person's browser back here",
  security: [],
  request: {
    query: z.object({
      state: z.string().optional(),
      code: z.string().optional(),
      error: z.string().optional(),
      error_description: z.string().optional(),
      iss: z.string().optional(),
    }),
  },
  responses: {
    200: {
      description: 'The tokens are stored and the run continues (an HTML page).',
      content: { 'text/html': { schema: z.string() } },
    },
    ...errors(400, 502, 503),
  },
});

/**
 * The OAuth callback (docs/api.md, "Connect"). Registered before authentication: the browser coming
 * back from the authorization server carries no bearer token; the single-use `state` is what ties the
 * request to the authorization an operator started.
 */
export function registerConnectCallback(
  app: OpenAPIHono<AppEnv>,
  deps: ServerDeps,
  connect: ConnectDeps,
): void {
  app.openapi(callback, async (c) => {
    assertOpen(deps, c);
    const query = c.req.valid('query');
    if (query.state === undefined) throw badRequest('the callback has no `state`');
    const taken = connect.states.take(query.state);
    if (!taken.ok)
      throw badRequest(
        taken.why === 'expired'
          ? 'this authorization expired; start it again (Connect)'
          : 'unknown or already used `state`: start the authorization again (Connect)',
      );
    const entry = taken.state;
    if (query.error !== undefined)
      throw badRequest(
        `the authorization server refused: ${bounded(query.error)}${query.error_description ? ` (${bounded(query.error_description)})` : ''}`,
      );
    if (query.code === undefined) throw badRequest('the callback has no `code`');
    const record = await visibleRun(
      deps,
      { name: entry.who ?? 'anonymous', role: 'operator', tenant: entry.tenant },
      entry.runId,
    );
    const target = targetOf(await waitingRun(deps, record), entry.serverId, connect, entry.redirectUrl);
    await mcpStep(() =>
      finishConnect(target, {
        code: query.code as string,
        verifier: entry.verifier,
        ...(query.iss === undefined ? {} : { iss: query.iss }),
        ...(entry.scope === undefined ? {} : { scope: entry.scope }),
      }),
    );
    const resumed = await resume(deps, entry.runId, entry.who, entry.pendingId);
    return c.html(page(entry.serverId, entry.runId, resumed), 200);
  });
}

/** `POST /v1/runs/{id}/authorization`: starts Connect for the run's pending authorization. */
export function registerConnectStart(app: OpenAPIHono<AppEnv>, deps: ServerDeps, connect: ConnectDeps): void {
  app.openapi(start, async (c) => {
    assertOpen(deps, c);
    const { id } = c.req.valid('param');
    const body = await optionalBody(c);
    const principal = c.get('principal');
    const record = await visibleRun(deps, principal, id);
    const pending =
      record.status === 'suspended' ? (record.suspension?.pending as FollowUpPending | undefined) : undefined;
    const server = pending?.authorization?.server;
    if (server === undefined)
      throw new ApiError(
        409,
        'CONFLICT',
        `run ${id} is ${record.status}; it is not waiting for an MCP server's authorization`,
      );
    if (body.expect !== undefined && body.expect !== pending?.id)
      throw new ApiError(
        409,
        'CONFLICT',
        `run ${id} waits for pending item ${pending?.id ?? '(none)'}, not for ${body.expect}`,
      );
    const redirectUrl = `${connect.baseUrl() ?? new URL(c.req.url).origin}${CALLBACK_PATH}`;
    const target = targetOf(await waitingRun(deps, record), server, connect, redirectUrl);
    const started = await mcpStep(() => startConnect(target));
    if (started.authorized) {
      const run = await resume(deps, id, principal.name, pending?.id ?? null);
      return c.json({ server, authorized: true, ...(run.summary ? { run: run.summary } : {}) }, 200);
    }
    const kept = connect.states.put(started.state, {
      tenant: record.tenant,
      runId: id,
      pendingId: pending?.id ?? null,
      serverId: server,
      verifier: started.verifier,
      ...(started.scope === undefined ? {} : { scope: started.scope }),
      redirectUrl,
      who: principal.name,
    });
    deps.logger.info('MCP authorization started', { runId: id, server });
    return c.json(
      {
        server,
        authorized: false,
        authorizationUrl: started.url.href,
        expiresAt: new Date(kept.expiresAt).toISOString(),
      },
      200,
    );
  });
}

async function optionalBody(c: Context<AppEnv>): Promise<{ expect?: string }> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest('invalid request body: not JSON');
  }
  const parsed = AuthorizationStartSchema.safeParse(value);
  if (!parsed.success)
    throw badRequest(`invalid request body: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
  return parsed.data;
}

function targetOf(
  record: RunRecord,
  serverId: string,
  connect: ConnectDeps,
  redirectUrl: string,
): ConnectTarget {
  const config = record.flow.mcpServers[serverId];
  if (config === undefined || isStdioServer(config))
    throw new ApiError(409, 'CONFLICT', `flow ${record.flowId} has no HTTP MCP server ${serverId}`);
  return {
    serverId,
    config,
    tenant: record.tenant,
    store: connect.credentials,
    redirectUrl,
  };
}

/**
 * The run whose flow declares the server: the run itself, or, when a delegated child run suspended it,
 * that child (down the chain); the person's answer to the parent goes to the child all the same.
 */
async function waitingRun(deps: ServerDeps, record: RunRecord): Promise<RunRecord> {
  let current = record;
  for (let depth = 0; depth < 16; depth += 1) {
    const childId = current.state.loop.suspended?.childRunId;
    if (childId === undefined) return current;
    const child = await (await deps.runtime.db()).getRun(childId);
    if (!child) return current;
    current = child;
  }
  return current;
}

/** Runs a step talking to the MCP server or its authorization server; their failures are 502 AUTHORIZATION_FAILED. */
async function mcpStep<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (error instanceof McpError || !(error instanceof AgentRuntimeError))
      throw new ApiError(
        502,
        'AUTHORIZATION_FAILED',
        `the authorization did not succeed: ${describe(error)}`,
      );
    throw error;
  }
}

/** The outcome of answering the run once the tokens are stored. */
interface Resumed {
  readonly summary?: RunSummary;
  /** Why the run did not continue (it moved on meanwhile): the tokens are stored all the same. */
  readonly conflict?: string;
}

/** Answers the run's pending authorization so that it continues (in the background). */
async function resume(
  deps: ServerDeps,
  runId: string,
  who: string | null,
  pendingId: string | null,
): Promise<Resumed> {
  try {
    const summary = await deps.locks.with(runId, () =>
      deps.background.accept((onAccepted) =>
        deps.runtime.answer(runId, 'authorized', {
          who,
          onAccepted,
          ...(pendingId ? { expect: pendingId } : {}),
        }),
      ),
    );
    return { summary };
  } catch (error) {
    if (error instanceof AgentRuntimeError && error.code === 'RUN_CONFLICT')
      return { conflict: error.message };
    throw error;
  }
}

function page(server: string, runId: string, resumed: Resumed): string {
  const what = resumed.conflict
    ? `The run ${runId} was no longer waiting for it (${resumed.conflict}).`
    : `Run ${runId} continues.`;
  return `<!doctype html><meta charset="utf-8"><title>Connected</title><p>MCP server ${escape(server)} is connected. ${escape(what)}</p><p>You may close this window.</p>\n`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

function badRequest(message: string): ApiError {
  return new ApiError(400, 'BAD_REQUEST', message);
}

function bounded(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

function describe(error: unknown): string {
  return bounded(error instanceof Error ? error.message : String(error));
}
