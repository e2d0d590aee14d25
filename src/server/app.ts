import { resolve } from 'node:path';
import { OpenAPIHono, createRoute } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { createStderrLogger, type Logger } from '../log/logger.js';
import type { Runtime } from '../runtime/runtime.js';
import { Background, RunLocks } from './background.js';
import { authenticate, requireRole, type AppEnv, type ServerDeps } from './context.js';
import { ApiError, errorResponse, toApiError } from './errors.js';
import { registerEventRoutes } from './events.js';
import { jsonDepthLimit } from './json-depth.js';
import { hiddenFolders } from './model-problems.js';
import { registerEvidenceRoutes } from './evidence-routes.js';
import { FlowRegistry } from './flows.js';
import { registerFlowRoutes } from './flows-routes.js';
import { IdempotencyCache, type IdempotencyOptions } from './idempotency.js';
import { listen, type Listening, type ListenOptions } from './listen.js';
import { loopbackOnly } from './origin-guard.js';
import { registerRunRoutes } from './runs-routes.js';
import { SSE_QUEUE_LIMITS, type SseQueueLimits } from './sse-queue.js';
import { registerRetryRoute } from './retry-route.js';
import { registerCompleteRoute } from './complete-route.js';
import { registerStartersRoutes } from './starters-route.js';
import { registerMessageRoute } from './message-route.js';
import { registerForkRoute } from './fork-route.js';
import { registerThreadRoutes } from './threads-routes.js';
import { registerChatRoute } from './chat-route.js';
import { MeSchema, TraceEventSchema, errors, json } from './schemas.js';
import type { TokenEntry } from './tokens.js';
import { FileCredentialStore, type McpCredentialStore } from '../mcp/token-store.js';
import { ConnectStates } from './connect-states.js';
import { registerConnectCallback, registerConnectStart, type ConnectDeps } from './connect-routes.js';
import { registerMcpRoute, type McpEndpoint } from './mcp-route.js';
import type { Webhook } from './webhook-config.js';
import { registerWebhookRoutes } from './webhook-routes.js';
import { WebhookDispatcher } from './webhooks.js';

/** Options of `createServer`. */
export interface ServerOptions {
  /** The runtime that stores and drives runs. The server does not close it. */
  runtime: Runtime;
  /** The flows that may be started by id (default: an empty registry resolving against the current directory). */
  flows?: FlowRegistry;
  /** API tokens (hashed). Null, undefined or empty: no auth, and `listen` accepts loopback addresses only. */
  tokens?: readonly TokenEntry[] | null;
  logger?: Logger;
  /** Interval of SSE keep-alive comments (default 15000 ms). */
  heartbeatMs?: number;
  /** Limits of the in-memory Idempotency-Key map. */
  idempotency?: IdempotencyOptions;
  /** Largest accepted request body (default 1 MiB). */
  maxBodyBytes?: number;
  /** `--scripted-models DIR`: the folder scripted models named by requests must lie in (default: refused). */
  scriptedModels?: string | null;
  /** `--allow-stdio`: commands stdio MCP servers of flows sent over HTTP may run (exact match; default none). */
  allowStdio?: readonly string[];
  /** `--allow-mcp-host`: hosts HTTP MCP servers of flows sent over HTTP may be on (default none). */
  allowMcpHosts?: readonly string[];
  /** `--allow-env`: environment variables a flow sent over HTTP may reference as `${VAR}` in MCP `env`/`headers` (default none). */
  allowEnv?: readonly string[];
  /** `--allow-stdio-env`: variables a flow sent over HTTP may set in a stdio MCP server's `env` (default none). */
  allowStdioEnv?: readonly string[];
  /** The bounds of each event stream's write queue (defaults: SSE_QUEUE_LIMITS). */
  streamQueue?: Partial<SseQueueLimits>;
  /** Most event streams open at once per token (tenant and name; default 16; 429 beyond). */
  maxStreamsPerToken?: number;
  /** How long `close` waits for runs being driven to reach a stopping point (default 30000 ms). */
  shutdownGraceMs?: number;
  /**
   * Where MCP OAuth tokens are kept (docs/mcp.md, "Connect"): the store the runtime's MCP connections
   * read (default: `FileCredentialStore.fromEnv()`, as the runtime's default).
   */
  credentials?: McpCredentialStore;
  /**
   * The server's public base URL (`serve --public-url`), used for the OAuth redirect
   * `<publicUrl>/v1/oauth/callback`; default: the URL it listens on.
   */
  publicUrl?: string;
  /**
   * `serve --webhooks FILE` (docs/notifications.md): where notifications of run events are POSTed,
   * from `listen` on. Default none.
   */
  webhooks?: readonly Webhook[];
  /** How often the webhooks' store scan and due retries run, ms (default 1000). */
  webhookPollMs?: number;
  /** Waits before each retry of a failed delivery, ms (default RETRY_BACKOFF_MS). */
  webhookBackoffMs?: readonly number[];
}

/** The HTTP API of docs/api.md as a Hono app, with listening and graceful shutdown. */
export interface ApiServer {
  /** The Hono app (its `fetch` serves requests; `request()` is handy in tests). */
  readonly app: OpenAPIHono<AppEnv>;
  readonly flows: FlowRegistry;
  /** True when requests need a bearer token. */
  readonly auth: boolean;
  /** Listens on `host:port` (default 127.0.0.1, a free port); without tokens only a loopback host is accepted. */
  listen(options?: ListenOptions): Promise<Listening>;
  /**
   * Graceful shutdown: stops accepting connections and mutating requests, ends event streams, waits
   * up to `shutdownGraceMs` for runs being driven to suspend or end (each step is persisted, so one
   * still going can be resumed later), then closes the listener. Returns how many runs were still being driven.
   * The caller closes the runtime afterwards (MCP servers, store).
   */
  close(): Promise<number>;
}

/** Creates the API server (docs/api.md): routes, auth, OpenAPI document, background runs. */
export function createServer(options: ServerOptions): ApiServer {
  const logger = options.logger ?? createStderrLogger();
  const tokens = options.tokens && options.tokens.length > 0 ? options.tokens : null;
  let closing = false;
  const deps: ServerDeps = {
    runtime: options.runtime,
    flows:
      options.flows ?? new FlowRegistry({ logger, clock: options.runtime.clock, cwd: options.runtime.cwd }),
    cache: new IdempotencyCache({ now: options.runtime.clock, ...options.idempotency }),
    background: new Background(logger),
    locks: new RunLocks(),
    logger,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    streams: new Set(),
    policy: {
      scriptedModels: options.scriptedModels ? resolve(options.scriptedModels) : null,
      allowStdio: new Set(options.allowStdio ?? []),
      allowMcpHosts: new Set((options.allowMcpHosts ?? []).map((h) => h.toLowerCase())),
      allowEnv: new Set(options.allowEnv ?? []),
      allowStdioEnv: new Set(options.allowStdioEnv ?? []),
    },
    maxStreamsPerToken: options.maxStreamsPerToken ?? 16,
    streamsByToken: new Map(),
    streamLimits: { ...SSE_QUEUE_LIMITS, ...options.streamQueue },
    closing: () => closing,
  };
  let listening: Listening | null = null;
  const connect: ConnectDeps = {
    states: new ConnectStates(options.runtime.clock),
    credentials: options.credentials ?? FileCredentialStore.fromEnv(),
    baseUrl: () => options.publicUrl?.replace(/\/+$/, '') ?? listening?.url.replace(/\/+$/, '') ?? null,
  };
  const dispatcher =
    options.webhooks && options.webhooks.length > 0
      ? new WebhookDispatcher({
          webhooks: options.webhooks,
          store: () => options.runtime.db(),
          consoleBase: () => connect.baseUrl(),
          logger,
          clock: () => options.runtime.clock(),
          ...(options.webhookPollMs !== undefined ? { pollMs: options.webhookPollMs } : {}),
          ...(options.webhookBackoffMs !== undefined ? { backoffMs: options.webhookBackoffMs } : {}),
        })
      : null;
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const { app, mcp } = buildApp(deps, tokens, maxBodyBytes, connect);
  registerWebhookRoutes(app, dispatcher);
  return {
    app,
    flows: deps.flows,
    auth: tokens !== null,
    async listen(listenOptions = {}) {
      if (listening) throw new Error('the server is already listening');
      listening = await listen(app, listenOptions, { auth: tokens !== null, logger });
      await dispatcher?.start();
      return listening;
    },
    async close() {
      closing = true;
      dispatcher?.stop();
      const stopped = listening?.stopAccepting();
      for (const stream of deps.streams) stream.abort();
      await mcp.close();
      const left = await deps.background.drain(options.shutdownGraceMs ?? 30_000);
      if (left > 0) {
        logger.warn(
          'SERVER runs still being driven at shutdown; each stays running and can be resumed (agent-runtime resume) once its lease expires',
          { runs: left },
        );
      }
      await stopped;
      return left;
    },
  };
}

const meRoute = createRoute({
  method: 'get',
  path: '/v1/me',
  tags: ['auth'],
  summary: 'Who the token belongs to (a console shows what the role allows)',
  responses: { 200: json(MeSchema, 'The caller.'), ...errors(401) },
});

/** How validation targets are named in error messages. */
const PART: Record<string, string> = { json: 'body', query: 'query', param: 'path', header: 'header' };

function buildApp(
  deps: ServerDeps,
  tokens: readonly TokenEntry[] | null,
  maxBodyBytes: number,
  connect: ConnectDeps,
): { app: OpenAPIHono<AppEnv>; mcp: McpEndpoint } {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const where = PART[result.target] ?? result.target;
        const problems = result.error.issues.map(
          (i) => `${[where, ...i.path.map(String)].join('.')}: ${i.message}`,
        );
        throw new ApiError(400, 'BAD_REQUEST', `invalid request ${where}: ${problems.join('; ')}`, problems);
      }
      return undefined;
    },
  });
  // Refusals never show where the server keeps its files (model-problems.ts).
  const folders = hiddenFolders([deps.policy.scriptedModels, deps.flows.baseDir]);
  app.onError((error, c) => errorResponse(c, toApiError(error, deps.logger, folders)));
  app.notFound((c) =>
    errorResponse(c, new ApiError(404, 'NOT_FOUND', `no route ${c.req.method} ${c.req.path}`)),
  );
  // Without tokens every caller is admin: only this machine's loopback names, and no other site's pages.
  if (tokens === null) app.use('*', loopbackOnly());
  app.get('/healthz', (c) => c.json({ ok: true, closing: deps.closing() }, deps.closing() ? 503 : 200));
  // The OAuth redirect comes from a browser without a bearer token: its single-use state is the key.
  registerConnectCallback(app, deps, connect);
  app.use('/v1/*', authenticate(tokens));
  app.use(
    '/v1/*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBodyBytes} bytes`);
      },
    }),
  );
  app.use('/v1/*', jsonDepthLimit());
  app.use('/v1/*', requireRole('viewer'));
  app.use(
    '/mcp',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBodyBytes} bytes`);
      },
    }),
  );
  // Flows as MCP tools (docs/mcp.md, "Serving flows as MCP tools"), behind the same tokens.
  const mcp = registerMcpRoute(app, deps, tokens, () => connect.baseUrl());
  registerRunRoutes(app, deps);
  registerRetryRoute(app, deps);
  registerCompleteRoute(app, deps);
  registerStartersRoutes(app, deps);
  registerMessageRoute(app, deps);
  registerForkRoute(app, deps);
  registerEventRoutes(app, deps);
  registerFlowRoutes(app, deps);
  registerEvidenceRoutes(app, deps);
  registerThreadRoutes(app, deps);
  registerChatRoute(app, deps);
  registerConnectStart(app, deps, connect);
  app.openapi(meRoute, (c) => {
    const { name, role, tenant } = c.get('principal');
    return c.json({ name, role, tenant }, 200);
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  // The events stream's `data:` lines (text/event-stream has no JSON schema of its own to name it).
  app.openAPIRegistry.register('TraceEvent', TraceEventSchema);
  app.doc31('/v1/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'g2rain-agent-runtime API',
      version: '1',
      description:
        'Runs of agent flows: start, watch (Server-Sent Events), approve, answer, cancel. See docs/api.md.',
    },
    security: tokens ? [{ bearer: [] }] : [],
  });
  return { app, mcp };
}
