import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isFlowError } from '../flow/problems.js';
import { ParseBusyError } from '../fs/yaml-worker.js';
import type { Logger } from '../log/logger.js';
import { RunError } from '../domain/run-error.js';
import { StoreError } from '../store/store.js';
import { publicRefusal, withoutFolders } from './model-problems.js';

/** Every `code` an API error body may carry (listed in the OpenAPI document's `Error` schema). */
export const API_ERROR_CODES = [
  'BAD_REQUEST',
  'FLOW_INVALID',
  'INPUT_INVALID',
  'IDEMPOTENCY_KEY_REUSED',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RUN_NOT_FOUND',
  'FLOW_NOT_FOUND',
  'EVIDENCE_NOT_FOUND',
  'THREAD_NOT_FOUND',
  'CONFLICT',
  'THREAD_BUSY',
  'ARGS_REFUSED',
  'RUN_ENDED',
  'MESSAGE_TOO_LONG',
  'TOO_MANY_MESSAGES',
  'FLOW_LIMIT',
  'PAYLOAD_TOO_LARGE',
  'TOO_MANY_STREAMS',
  'SHUTTING_DOWN',
  'BUSY',
  'AUTHORIZATION_FAILED',
  'MCP_UNAVAILABLE',
  'INTERNAL',
] as const;

/** The `code` of an API error body; the status says the class, the code the case. */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The error body of every non-2xx answer: `{error: {code, message}}` (plus `problems` for a bad flow or input). */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; problems?: string[] };
}

/** An error answered as `{error: {code, message}}` with `status`; thrown by handlers and middleware. */
export class ApiError extends AgentRuntimeError {
  override readonly name = 'ApiError';
  declare readonly code: ApiErrorCode;
  /** For 503 BUSY: seconds after which a retry may succeed (sent as `Retry-After`). */
  retryAfterSeconds?: number;
  constructor(
    readonly status: ContentfulStatusCode,
    code: ApiErrorCode,
    message: string,
    readonly problems?: readonly string[],
  ) {
    super(code, message);
  }

  /** The JSON body of this error. */
  body(): ApiErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.problems ? { problems: [...this.problems] } : {}),
      },
    };
  }
}

/**
 * Maps what a handler threw to an ApiError: one origin at a time, each code mapped in an exhaustive
 * switch (runtime and flow errors to 400/404/409, a store's version conflict to 409), Hono's own HTTP
 * errors (malformed JSON, unsupported media type) to 400, anything else to 500 (logged). A refusal
 * because of the model names no server configuration and none of `folders` (model-problems.ts); the
 * log gets it as thrown.
 */
export function toApiError(error: unknown, logger: Logger, folders: readonly string[] = []): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RunError) {
    const answer = runApiError(error);
    if (error.code !== 'REQUEST_INVALID') return answer;
    const shown = publicRefusal(error.message, error.cause, folders);
    if (shown === error.message) return answer;
    logger.warn('HTTP request refused (the answer leaves out server details)', { error: error.message });
    return new ApiError(answer.status, answer.code, shown);
  }
  const fromStore = error instanceof StoreError ? storeApiError(error) : null;
  if (fromStore) return fromStore;
  if (isFlowError(error)) {
    const problems = error.message.split('\n').map((line) => withoutFolders(line, folders));
    return new ApiError(400, 'FLOW_INVALID', 'the flow is not valid', problems);
  }
  if (error instanceof ParseBusyError) {
    const busy = new ApiError(503, 'BUSY', error.message);
    busy.retryAfterSeconds = error.retryAfterSeconds;
    return busy;
  }
  if (error instanceof HTTPException) {
    if (error.status === 415)
      return new ApiError(400, 'BAD_REQUEST', 'unsupported Content-Type; send application/json');
    if (error.status < 500) return new ApiError(400, 'BAD_REQUEST', error.message || 'bad request');
  }
  logger.error('HTTP internal error', { error });
  return new ApiError(500, 'INTERNAL', 'internal error');
}

/** The answer to a RunError: nothing changed in any case. */
export function runApiError(error: RunError): ApiError {
  switch (error.code) {
    case 'RUN_NOT_FOUND':
      return new ApiError(404, 'RUN_NOT_FOUND', error.message);
    case 'RUN_CONFLICT':
      return new ApiError(409, 'CONFLICT', `${error.message} (nothing changed)`);
    case 'THREAD_BUSY':
      return new ApiError(409, 'THREAD_BUSY', `${error.message} (nothing changed)`);
    case 'APPROVER_REFUSED':
      return new ApiError(403, 'FORBIDDEN', `${error.message} (nothing changed)`);
    case 'ARGS_REFUSED':
      return new ApiError(400, 'ARGS_REFUSED', `${error.message} (nothing changed)`, error.problems);
    case 'REQUEST_INVALID':
      return new ApiError(400, 'BAD_REQUEST', error.message);
    case 'RUN_ENDED':
      return new ApiError(409, 'RUN_ENDED', `${error.message} (nothing changed)`);
    case 'MESSAGE_TOO_LONG':
      return new ApiError(413, 'MESSAGE_TOO_LONG', error.message);
    case 'TOO_MANY_MESSAGES':
      return new ApiError(429, 'TOO_MANY_MESSAGES', `${error.message} (nothing changed)`);
    case 'INPUT_INVALID':
      return new ApiError(
        400,
        'INPUT_INVALID',
        error.message.split('\n')[0] ?? error.message,
        error.problems,
      );
  }
}

/**
 * The answer to a StoreError, or null for a refusal that is the server's own failure (answered 500
 * and logged): only a version conflict — another request moved the run meanwhile — is the client's.
 */
export function storeApiError(error: StoreError): ApiError | null {
  switch (error.code) {
    case 'VERSION_CONFLICT':
      return new ApiError(
        409,
        'CONFLICT',
        `run ${error.runId ?? ''} was changed by another request meanwhile (nothing changed)`,
      );
    case 'RUN_NOT_FOUND':
    case 'DUPLICATE':
    case 'INVALID_APPEND':
    case 'BAD_URL':
    case 'NOT_AVAILABLE':
    case 'SCHEMA_TOO_NEW':
    case 'CLOSED':
    case 'DOCUMENT_TOO_NEW':
    case 'BAD_DOCUMENT':
      return null;
  }
}

/**
 * Answers an ApiError as JSON (with `WWW-Authenticate` on 401). A 413 closes the connection: the
 * rest of the body was not read, so the connection cannot carry another request.
 */
export function errorResponse(c: Context, error: ApiError): Response {
  if (error.status === 401) c.header('WWW-Authenticate', 'Bearer realm="agent-runtime"');
  if (error.status === 413) c.header('Connection', 'close');
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  return c.json(error.body(), error.status);
}
