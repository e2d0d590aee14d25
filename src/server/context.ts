import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from '../log/logger.js';
import type { Runtime } from '../runtime/runtime.js';
import type { RunRecord } from '../store/store.js';
import type { Background, RunLocks } from './background.js';
import { ApiError } from './errors.js';
import type { FlowRegistry } from './flows.js';
import type { IdempotencyCache } from './idempotency.js';
import type { RequestPolicy } from './request-policy.js';
import type { SseQueueLimits } from './sse-queue.js';
import { findToken, hasRole, type Principal, type Role, type TokenEntry } from './tokens.js';

/** The Hono environment of the API: each request carries who made it. */
export interface AppEnv {
  Variables: { principal: Principal };
}

/** What the route handlers share. */
export interface ServerDeps {
  readonly runtime: Runtime;
  readonly flows: FlowRegistry;
  readonly cache: IdempotencyCache;
  readonly background: Background;
  readonly locks: RunLocks;
  readonly logger: Logger;
  /** Interval of SSE keep-alive comments, in ms. */
  readonly heartbeatMs: number;
  /** Open event streams, ended on shutdown. */
  readonly streams: Set<AbortController>;
  /** What requests may make the server do on its host (scripted models, MCP commands and hosts). */
  readonly policy: RequestPolicy;
  /** Most event streams one token may hold open at once (429 beyond). */
  readonly maxStreamsPerToken: number;
  /** Open event streams per token identity (tenant and name). */
  readonly streamsByToken: Map<string, number>;
  /** The bounds of each event stream's write queue (src/server/sse-queue.ts). */
  readonly streamLimits: SseQueueLimits;
  /** True once shutdown began: mutating requests are refused with 503. */
  closing(): boolean;
}

/** The principal of a server without tokens (loopback only): an admin named `anonymous`, without tenant. */
export const ANONYMOUS: Principal = { name: 'anonymous', role: 'admin', tenant: null };

/**
 * Bearer-token authentication (docs/api.md): sets the request's principal, or answers 401. With no
 * tokens configured every request is the anonymous admin.
 */
export function authenticate(tokens: readonly TokenEntry[] | null): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (tokens === null) {
      c.set('principal', ANONYMOUS);
      return next();
    }
    const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(c.req.header('authorization') ?? '');
    if (!match)
      throw new ApiError(401, 'UNAUTHORIZED', 'missing bearer token: send Authorization: Bearer <token>');
    const entry = findToken(tokens, match[1] as string);
    if (!entry) throw new ApiError(401, 'UNAUTHORIZED', 'unknown bearer token');
    c.set('principal', { name: entry.name, role: entry.role, tenant: entry.tenant });
    return next();
  };
}

/** Answers 403 unless the principal's role includes `role`. */
export function requireRole(role: Role): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    assertRole(c.get('principal'), role);
    return next();
  };
}

/** Throws 403 unless the principal's role includes `role`. */
export function assertRole(principal: Principal, role: Role): void {
  if (!hasRole(principal.role, role)) {
    throw new ApiError(
      403,
      'FORBIDDEN',
      `token ${principal.name} has role ${principal.role}; this needs ${role}`,
    );
  }
}

/**
 * The run if the principal may see it: unknown runs and runs of another tenant are the same 404,
 * so a tenant cannot even learn that another tenant's run exists.
 */
export async function visibleRun(deps: ServerDeps, principal: Principal, runId: string): Promise<RunRecord> {
  const record = await (await deps.runtime.db()).getRun(runId);
  if (!record || (principal.tenant !== null && record.tenant !== principal.tenant)) {
    throw new ApiError(404, 'RUN_NOT_FOUND', `unknown run id ${runId}`);
  }
  return record;
}

/** Throws 503 once shutdown began. */
export function assertOpen(deps: ServerDeps, c: Context): void {
  if (deps.closing()) {
    c.header('Connection', 'close');
    throw new ApiError(
      503,
      'SHUTTING_DOWN',
      'the server is shutting down; retry against another instance or later',
    );
  }
}

/**
 * The body is optional: a client that sends `Content-Type: application/json` with an empty body
 * (many HTTP libraries do for a bodiless POST) means "no body", not malformed JSON. The request is
 * then seen without its Content-Type, so the body's validator is skipped as for no body at all.
 */
export const blankBodyIsNoBody: MiddlewareHandler = async (c, next) => {
  if ((c.req.header('content-type') ?? '').includes('json') && (await c.req.text()).trim() === '') {
    const headers = new Headers(c.req.raw.headers);
    headers.delete('content-type');
    c.req.raw = new Request(c.req.url, { method: c.req.method, headers, signal: c.req.raw.signal });
  }
  return next();
};
