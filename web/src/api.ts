/**
 * The console's client of the public HTTP API (docs/api.md). Every request carries the
 * bearer token in the Authorization header; errors become ApiError with the server's `{error: {code, message}}`.
 */

import type { components, paths } from './api-types.js';

/** The API's shapes as the server's OpenAPI document declares them (generated: web/src/api-types.ts). */
type Schemas = components['schemas'];

/** The JSON body of `method path`'s answer `status` (default 200), as the OpenAPI document declares it. */
export type ApiResponse<
  P extends keyof paths,
  M extends 'get' | 'post',
  S extends number = 200,
> = paths[P][M] extends { responses: Record<S, { content: { 'application/json': infer T } }> } ? T : never;

/** The JSON body `method path` takes, as the OpenAPI document declares it. */
export type ApiBody<P extends keyof paths, M extends 'post'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

/** The run summary (docs/api.md) as `GET /v1/runs/{id}` answers it. */
export type RunSummary = Schemas['RunSummary'];
export type RunStatus = RunSummary['status'];

/** The order the console offers run statuses in: a status the server adds and this lacks fails to compile. */
const STATUS_ORDER: Record<RunStatus, number> = {
  running: 0,
  suspended: 1,
  completed: 2,
  failed: 3,
  cancelled: 4,
};
/** Run statuses (docs/durability.md), in the order the console offers them. */
export const RUN_STATUSES = Object.keys(STATUS_ORDER) as readonly RunStatus[];

/** Who the token belongs to (`GET /v1/me`). */
export type Me = Schemas['Me'];
/** Roles, weakest first. */
export type Role = Me['role'];

/** What a suspended run waits for: a gated write or a question. */
export type Pending = Schemas['PendingItem'];
/** A gated write waiting for approval (docs/observations.md): `provenance` maps an argument to the evidence id it came from. */
export type ApprovalPending = Extract<Pending, { tool: string }>;
/** A run's wait for an MCP task (docs/mcp.md, "Tools that run as tasks"). */
export type TaskPending = Extract<Pending, { task: unknown }>;
/** A question waiting for an answer. */
export type FollowUpPending = Extract<Pending, { question: string }>;
/** The answer of `POST /v1/runs/{id}/authorization` (Connect). */
export type AuthorizationStarted = ApiResponse<'/v1/runs/{id}/authorization', 'post'>;
/** An MCP server's question: a form (its requested schema) or a link. */
export type ElicitationPending = NonNullable<FollowUpPending['elicitation']>;
/** Where a checked value was found: an evidence leaf (with the span of a match inside a text), or the user's words. */
export type ValueMatch = NonNullable<ApprovalPending['matches']>[string][number];
export type SuspensionKind = NonNullable<RunSummary['suspension']>['kind'];

/** An evidence record (`GET /v1/runs/{id}/evidence/{evidenceId}`): a real tool call that executed, with its full payload. */
export type EvidenceRecord = Schemas['Evidence'];

/** An entry of `GET /v1/flows`. */
export type FlowInfo = Schemas['FlowInfo'];

/** A trace event (docs/trace.md); the fields beyond the common ones depend on `type`. */
export type TraceEvent = Schemas['TraceEvent'];

/**
 * A streaming model's turn while it is written (`model.delta`, transient: no `seq`, not persisted). The
 * events stream sends it between trace events; the OpenAPI document describes it in words only.
 */
export interface LiveDelta {
  type: 'model.delta';
  runId: string;
  nodeId: string;
  round: number | null;
  ts: string;
  text: string;
  toolCalls: { callId: string; tool: string; args: string }[];
}

/** A non-2xx answer of the API. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** True for an approval pending item. */
export function isApproval(pending: Pending): pending is ApprovalPending {
  return 'tool' in pending;
}

/** True for a run's wait for an MCP task. */
export function isTask(pending: Pending): pending is TaskPending {
  return 'task' in pending;
}

/** True when `role` includes the rights of `needed`. */
export function hasRole(role: Role, needed: Role): boolean {
  const order: Role[] = ['viewer', 'operator', 'admin'];
  return order.indexOf(role) >= order.indexOf(needed);
}

/** The Authorization header for a token (none for a server without tokens). */
export function authHeaders(token: string | null): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Reads an error body into an ApiError (whatever the body is). */
export async function toApiError(response: Response): Promise<ApiError> {
  let code = `HTTP_${response.status}`;
  let message = response.statusText || code;
  try {
    const body = (await response.json()) as {
      error?: { code?: unknown; message?: unknown; problems?: unknown };
    };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
    // An edited approval's refusal (ARGS_REFUSED) names the check that stopped it in `problems`.
    if (Array.isArray(body.error?.problems) && body.error.problems.length > 0)
      message = `${message}: ${body.error.problems.map(String).join('; ')}`;
  } catch (error) {
    // Not JSON (a proxy's page, say): keep the status line, but say why.
    message = `${message} (${error instanceof Error ? error.message : String(error)})`;
  }
  return new ApiError(response.status, code, message);
}

/** A new Idempotency-Key, so that a retried click returns the first answer instead of a conflict. */
function idempotencyKey(): string {
  return crypto.randomUUID();
}

/** The API client for one token. */
export class Api {
  constructor(
    readonly token: string | null,
    private readonly base = '',
  ) {}

  private async request<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const init: RequestInit = {
      method,
      headers: { ...authHeaders(this.token), accept: 'application/json', ...headers },
    };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await fetch(`${this.base}${path}`, init);
    if (!response.ok) throw await toApiError(response);
    return (await response.json()) as T;
  }

  /** `GET /v1/me`: the token's name, role and tenant. */
  me(): Promise<ApiResponse<'/v1/me', 'get'>> {
    return this.request('GET', '/v1/me');
  }

  /** `GET /v1/runs?status=`: newest first. */
  runs(status?: RunStatus, limit = 100): Promise<ApiResponse<'/v1/runs', 'get'>> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (status) query.set('status', status);
    return this.request('GET', `/v1/runs?${query.toString()}`);
  }

  /** `GET /v1/runs/{id}`. */
  run(runId: string): Promise<ApiResponse<'/v1/runs/{id}', 'get'>> {
    return this.request('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  }

  /** `GET /v1/runs/{id}/evidence`: the run's evidence records, in id order. */
  evidence(runId: string): Promise<ApiResponse<'/v1/runs/{id}/evidence', 'get'>> {
    return this.request('GET', `/v1/runs/${encodeURIComponent(runId)}/evidence`);
  }

  /** `GET /v1/runs/{id}/evidence/{evidenceId}`. */
  evidenceRecord(
    runId: string,
    evidenceId: string,
  ): Promise<ApiResponse<'/v1/runs/{id}/evidence/{evidenceId}', 'get'>> {
    return this.request(
      'GET',
      `/v1/runs/${encodeURIComponent(runId)}/evidence/${encodeURIComponent(evidenceId)}`,
    );
  }

  /** `GET /v1/flows`. */
  flows(): Promise<ApiResponse<'/v1/flows', 'get'>> {
    return this.request('GET', '/v1/flows');
  }

  /** `POST /v1/runs` for a registered flow. */
  start(flowId: string, text: string): Promise<ApiResponse<'/v1/runs', 'post', 201>> {
    const body: ApiBody<'/v1/runs', 'post'> = { flowId, input: text };
    return this.request('POST', '/v1/runs', body, { 'idempotency-key': idempotencyKey() });
  }

  /** `POST /v1/runs/{id}/approval`. */
  decide(
    runId: string,
    decision: 'approve' | 'reject',
    comment: string,
    expect?: string,
    args?: Record<string, unknown>,
  ): Promise<ApiResponse<'/v1/runs/{id}/approval', 'post'>> {
    const body: ApiBody<'/v1/runs/{id}/approval', 'post'> = {
      decision,
      ...(comment.trim() ? { comment: comment.trim() } : {}),
      ...(expect !== undefined ? { expect } : {}),
      ...(args !== undefined ? { args } : {}),
    };
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/approval`, body, {
      'idempotency-key': idempotencyKey(),
    });
  }

  /** `POST /v1/runs/{id}/answer`. */
  answer(
    runId: string,
    text: string,
    expect?: string,
    action?: 'accept' | 'decline' | 'cancel',
  ): Promise<ApiResponse<'/v1/runs/{id}/answer', 'post'>> {
    const refused = action === 'decline' || action === 'cancel';
    const body: ApiBody<'/v1/runs/{id}/answer', 'post'> = {
      ...(refused ? { action } : { text }),
      ...(expect !== undefined ? { expect } : {}),
    };
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/answer`, body, {
      'idempotency-key': idempotencyKey(),
    });
  }

  /**
   * `POST /v1/runs/{id}/authorization`: starts the authorization of the MCP server the run waits for
   * (Connect): the URL to open, or `authorized` with the run when the stored tokens already work.
   */
  authorize(runId: string, expect?: string): Promise<AuthorizationStarted> {
    const body: ApiBody<'/v1/runs/{id}/authorization', 'post'> = {
      ...(expect !== undefined ? { expect } : {}),
    };
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/authorization`, body);
  }

  /** `POST /v1/runs/{id}/retry`: takes a failed run up again in the node that failed. */
  retry(runId: string): Promise<ApiResponse<'/v1/runs/{id}/retry', 'post'>> {
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/retry`, undefined, {
      'idempotency-key': idempotencyKey(),
    });
  }

  /** `POST /v1/runs/{id}/fork`: a new run continuing after event `at` of this run (docs/evals.md). */
  fork(runId: string, at: number): Promise<ApiResponse<'/v1/runs/{id}/fork', 'post'>> {
    const body: ApiBody<'/v1/runs/{id}/fork', 'post'> = { at };
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/fork`, body, {
      'idempotency-key': idempotencyKey(),
    });
  }

  /** `POST /v1/runs/{id}/cancel`. */
  cancel(runId: string): Promise<ApiResponse<'/v1/runs/{id}/cancel', 'post'>> {
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`, undefined, {
      'idempotency-key': idempotencyKey(),
    });
  }
}
