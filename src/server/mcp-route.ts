import { randomUUID } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { Server } from '@modelcontextprotocol/server';
import type { LoadedFlow } from '../flow/load.js';
import type { RunSummary } from '../records/summary.js';
import type { AcceptingCall } from './background.js';
import { authenticate, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import type { FlowCallHost } from './mcp-flow-call.js';
import { createFlowMcpServer } from './mcp-flow-server.js';
import { RequestStates } from './mcp-input-required.js';
import { serveModern } from './mcp-modern.js';
import { runModel } from './runs-routes.js';
import { hasRole, type Principal, type TokenEntry } from './tokens.js';

/** Most MCP sessions the server holds open at once (a new one beyond is refused with 503). */
export const MAX_MCP_SESSIONS = 1000;

/** A session unused this long is closed when a new one opens (a client that vanished without DELETE). */
export const MCP_SESSION_IDLE_MS = 60 * 60 * 1000;

interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  /** The token identity that opened the session: only it may use the session. */
  readonly owner: string;
  /** When a request last used it (ms since the epoch). */
  lastUsed: number;
}

/** The `/mcp` endpoint's sessions, closed with the server. */
export interface McpEndpoint {
  /** Closes every open session (graceful shutdown). */
  close(): Promise<void>;
}

/**
 * `/mcp` (docs/api.md; docs/mcp.md, "Serving flows as MCP tools"): the flows the caller's tenant sees
 * as MCP tools over Streamable HTTP, behind the same bearer tokens as `/v1`. A session belongs to the
 * token that opened it. Starting a flow needs role operator (as `POST /v1/runs`); a write the flow's
 * gate holds is asked only of a client that declared elicitation and whose token may approve
 * (operator) — by elicitation on the 2025 revisions, as `input_required` on 2026-07-28; otherwise the
 * call answers with the suspended run and its console URL.
 */
export function registerMcpRoute(
  app: OpenAPIHono<AppEnv>,
  deps: ServerDeps,
  tokens: readonly TokenEntry[] | null,
  consoleBase: () => string | null,
): McpEndpoint {
  const sessions = new Map<string, Session>();
  // Signs the request states of input_required rounds; a retried call may reach any request's server.
  const requestStates = new RequestStates();
  app.use('/mcp', authenticate(tokens));
  app.all('/mcp', async (c) => {
    const principal = c.get('principal');
    const owner = identity(principal);
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      // Another token's session is as unknown as a closed one.
      if (!session || session.owner !== owner) return jsonRpcError(404, -32001, 'Session not found');
      session.lastUsed = Date.now();
      return session.transport.handleRequest(c.req.raw);
    }
    if (c.req.method !== 'POST')
      return jsonRpcError(400, -32000, 'Bad Request: no Mcp-Session-Id; open a session with initialize');
    if (deps.closing()) throw new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down');
    await closeIdle(sessions);
    if (sessions.size >= MAX_MCP_SESSIONS)
      throw new ApiError(503, 'BUSY', `the server holds ${MAX_MCP_SESSIONS} MCP sessions; retry later`);
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      // Not JSON: answered as JSON-RPC says, nothing else to report.
      return jsonRpcError(400, -32700, 'Parse error: the body is not JSON');
    }
    // A 2026-07-28 request has no session and no server-to-client requests: a run waiting for a person
    // is asked in-band (input_required) of a client that declared elicitation, else answered with the
    // suspended result and its console URL.
    const modern = await serveModern(c.req.raw, body, () =>
      createFlowMcpServer({
        flows: () => visibleFlows(deps, principal),
        logger: deps.logger,
        pushRequests: false,
        requestStates,
        host: (elicit) => httpHost(deps, principal, consoleBase, elicit),
      }),
    );
    if (modern) return modern;
    const server = createFlowMcpServer({
      flows: () => visibleFlows(deps, principal),
      logger: deps.logger,
      host: (elicit) => httpHost(deps, principal, consoleBase, elicit),
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, owner, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody: body });
  });
  return {
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((s) => s.server.close()));
    },
  };
}

/** Closes the sessions no request used for MCP_SESSION_IDLE_MS. */
async function closeIdle(sessions: Map<string, Session>): Promise<void> {
  const before = Date.now() - MCP_SESSION_IDLE_MS;
  const idle = [...sessions].filter(([, s]) => s.lastUsed < before);
  for (const [id] of idle) sessions.delete(id);
  await Promise.all(idle.map(([, s]) => s.server.close()));
}

function identity(principal: Principal): string {
  return `${principal.name}\u0000${principal.tenant ?? ''}`;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** The flows the principal's tenant may start by id (its own, else the shared ones). */
function visibleFlows(deps: ServerDeps, principal: Principal): LoadedFlow[] {
  return deps.flows
    .list(principal.tenant)
    .flatMap((info) => deps.flows.get(info.flowId, principal.tenant) ?? []);
}

function httpHost(
  deps: ServerDeps,
  principal: Principal,
  consoleBase: () => string | null,
  elicit: FlowCallHost['elicit'],
): FlowCallHost {
  const mayApprove = hasRole(principal.role, 'operator');
  return {
    runtime: deps.runtime,
    logger: deps.logger,
    caller: { name: principal.name, tenant: principal.tenant, mayApprove, role: principal.role },
    elicit,
    consoleUrl: (runId) => {
      const base = consoleBase();
      return base === null ? null : `${base}/runs/${runId}`;
    },
    model: (loaded) => {
      const entry = deps.flows.entry(loaded.flow.id, principal.tenant);
      return runModel(deps, undefined, loaded, entry?.info.origin === 'dir');
    },
    drive: (runId, call) => {
      if (runId === null && !mayApprove)
        throw new ApiError(
          403,
          'FORBIDDEN',
          `token ${principal.name} has role ${principal.role}; starting a flow needs operator`,
        );
      return driveTracked(deps, runId, call);
    },
  };
}

/**
 * Runs a start or response as the API does (tracked for shutdown, one response per run at a time)
 * and resolves with the run's summary once it stopped (completed, failed or suspended).
 */
async function driveTracked(
  deps: ServerDeps,
  runId: string | null,
  call: AcceptingCall,
): Promise<RunSummary> {
  if (deps.closing()) throw new ApiError(503, 'SHUTTING_DOWN', 'the server is shutting down');
  let final: Promise<RunSummary> | null = null;
  const accept = () =>
    deps.background.accept((onAccepted) => {
      final = call(onAccepted);
      return final;
    });
  await (runId === null ? accept() : deps.locks.with(runId, accept));
  return final ?? Promise.reject(new Error('the runtime accepted nothing'));
}
