/**
 * The console's client of the public HTTP API (docs/api.md). Every request carries the
 * bearer token in the Authorization header; errors become ApiError with the server's `{error: {code, message}}`.
 */

/** Run statuses (docs/durability.md). */
export const RUN_STATUSES = ['running', 'suspended', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Roles, weakest first. */
export type Role = 'viewer' | 'operator' | 'admin';

/** A gated write waiting for approval (docs/observations.md): `provenance` maps an argument to the evidence id it came from. */
export interface ApprovalPending {
  tool: string;
  args: Record<string, unknown>;
  summary: string;
  provenance?: Record<string, string>;
  /** The pending item's id: the console sends it with the decision (409 when the run moved on). */
  id?: string;
  /** Argument name → the user's words (run input or an answer) a `source: user` value was found in. */
  userProvenance?: Record<string, string>;
  /** Argument name → where its value (or each element or field of it) was found (docs/flows.md, matching). */
  matches?: Record<string, ValueMatch[]>;
}

/** Where a checked value was found: an evidence leaf (with the span of a match inside a text), or the user's words. */
export interface ValueMatch {
  /** Inside the argument: [] the value itself, [1] its second element, ['city'] a field. */
  at: (string | number)[];
  source: 'evidence' | 'user';
  evidenceId?: string;
  /** The leaf in the evidence payload. */
  path?: (string | number)[];
  /** [start, end) of the value inside the string at `path`. */
  span?: [number, number];
}

/** An evidence record (`GET /v1/runs/{id}/evidence/{evidenceId}`): a real tool call that executed, with its full payload. */
export interface EvidenceRecord {
  id: string;
  tool: string;
  args: Record<string, unknown>;
  outcome: 'SUCCESS' | 'FAILED';
  errorCode: string | null;
  payload: unknown;
  ts: string;
  nodeId: string;
  callId: string;
  lookBack?: boolean;
}

/** A question waiting for an answer. */
export interface FollowUpPending {
  question: string;
  options: string[] | null;
  /** As ApprovalPending's. */
  id?: string;
}

export type Pending = ApprovalPending | FollowUpPending;
export type SuspensionKind = 'APPROVAL' | 'FOLLOW_UP';

/** The run summary (docs/api.md) as `GET /v1/runs/{id}` answers it. */
export interface RunSummary {
  runId: string;
  status: RunStatus;
  suspension?: { kind: SuspensionKind; pending: Pending };
  outputs: Record<string, Record<string, unknown>>;
  /** The run's answer to the person once completed (absent from servers before issue 29). */
  reply?: string | null;
  /** The thread the run belongs to, if any. */
  threadId?: string;
  reason?: string;
  failedNode?: string;
  message?: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  flowId: string;
  parentRunId?: string;
  /** For a forked run: the run and the event it continues from. */
  forkedFrom?: { runId: string; seq: number };
  createdAt: string;
  updatedAt: string;
}

/** A trace event (docs/trace.md); the fields beyond the common ones depend on `type`. */
export interface TraceEvent {
  seq: number;
  ts: string;
  runId: string;
  type: string;
  nodeId?: string;
  round?: number;
  [field: string]: unknown;
}

/** A streaming model's turn while it is written (`model.delta`, transient: no `seq`, not persisted). */
export interface LiveDelta {
  type: 'model.delta';
  runId: string;
  nodeId: string;
  round: number | null;
  ts: string;
  text: string;
  toolCalls: { callId: string; tool: string; args: string }[];
}

/** An entry of `GET /v1/flows`. */
export interface FlowInfo {
  flowId: string;
  version: string | number;
  description?: string;
}

/** Who the token belongs to (`GET /v1/me`). */
export interface Me {
  name: string;
  role: Role;
  tenant: string | null;
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
    const body = (await response.json()) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code === 'string') code = body.error.code;
    if (typeof body.error?.message === 'string') message = body.error.message;
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
  me(): Promise<Me> {
    return this.request('GET', '/v1/me');
  }

  /** `GET /v1/runs?status=`: newest first. */
  runs(status?: RunStatus, limit = 100): Promise<RunSummary[]> {
    const query = new URLSearchParams({ limit: String(limit) });
    if (status) query.set('status', status);
    return this.request('GET', `/v1/runs?${query.toString()}`);
  }

  /** `GET /v1/runs/{id}`. */
  run(runId: string): Promise<RunSummary> {
    return this.request('GET', `/v1/runs/${encodeURIComponent(runId)}`);
  }

  /** `GET /v1/runs/{id}/evidence`: the run's evidence records, in id order. */
  evidence(runId: string): Promise<EvidenceRecord[]> {
    return this.request('GET', `/v1/runs/${encodeURIComponent(runId)}/evidence`);
  }

  /** `GET /v1/runs/{id}/evidence/{evidenceId}`. */
  evidenceRecord(runId: string, evidenceId: string): Promise<EvidenceRecord> {
    return this.request(
      'GET',
      `/v1/runs/${encodeURIComponent(runId)}/evidence/${encodeURIComponent(evidenceId)}`,
    );
  }

  /** `GET /v1/flows`. */
  flows(): Promise<FlowInfo[]> {
    return this.request('GET', '/v1/flows');
  }

  /** `POST /v1/runs` for a registered flow. */
  start(flowId: string, text: string): Promise<RunSummary> {
    return this.request('POST', '/v1/runs', { flowId, input: text }, { 'idempotency-key': idempotencyKey() });
  }

  /** `POST /v1/runs/{id}/approval`. */
  decide(
    runId: string,
    decision: 'approve' | 'reject',
    comment: string,
    expect?: string,
  ): Promise<RunSummary> {
    const body = {
      decision,
      ...(comment.trim() ? { comment: comment.trim() } : {}),
      ...(expect !== undefined ? { expect } : {}),
    };
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/approval`, body, {
      'idempotency-key': idempotencyKey(),
    });
  }

  /** `POST /v1/runs/{id}/answer`. */
  answer(runId: string, text: string, expect?: string): Promise<RunSummary> {
    return this.request(
      'POST',
      `/v1/runs/${encodeURIComponent(runId)}/answer`,
      { text, ...(expect !== undefined ? { expect } : {}) },
      { 'idempotency-key': idempotencyKey() },
    );
  }

  /** `POST /v1/runs/{id}/retry`: takes a failed run up again in the node that failed. */
  retry(runId: string): Promise<RunSummary> {
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/retry`, undefined, {
      'idempotency-key': idempotencyKey(),
    });
  }

  /** `POST /v1/runs/{id}/fork`: a new run continuing after event `at` of this run (docs/evals.md). */
  fork(runId: string, at: number): Promise<RunSummary> {
    return this.request(
      'POST',
      `/v1/runs/${encodeURIComponent(runId)}/fork`,
      { at },
      {
        'idempotency-key': idempotencyKey(),
      },
    );
  }

  /** `POST /v1/runs/{id}/cancel`. */
  cancel(runId: string): Promise<RunSummary> {
    return this.request('POST', `/v1/runs/${encodeURIComponent(runId)}/cancel`, undefined, {
      'idempotency-key': idempotencyKey(),
    });
  }
}
