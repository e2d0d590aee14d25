import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isFlowError } from '../flow/problems.js';
import { RunInputError } from '../flow/input.js';
import { ParseBusyError } from '../fs/yaml-worker.js';
import type { Logger } from '../log/logger.js';
import { RunConflictError, RunNotFoundError, RuntimeInputError } from '../runtime/errors.js';
import { VersionConflictError } from '../store/store.js';

/** The `code` of an API error body; the status says the class, the code the case. */
export type ApiErrorCode =
  | 'BAD_REQUEST'
  | 'FLOW_INVALID'
  | 'INPUT_INVALID'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'RUN_NOT_FOUND'
  | 'FLOW_NOT_FOUND'
  | 'EVIDENCE_NOT_FOUND'
  | 'CONFLICT'
  | 'TOO_MANY_STREAMS'
  | 'SHUTTING_DOWN'
  | 'BUSY'
  | 'INTERNAL';

/** The error body of every non-2xx answer: `{error: {code, message}}` (plus `problems` for a bad flow or input). */
export interface ApiErrorBody {
  error: { code: ApiErrorCode; message: string; problems?: string[] };
}

/** An error answered as `{error: {code, message}}` with `status`; thrown by handlers and middleware. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** For 503 BUSY: seconds after which a retry may succeed (sent as `Retry-After`). */
  retryAfterSeconds?: number;
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ApiErrorCode,
    message: string,
    readonly problems?: readonly string[],
  ) {
    super(message);
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
 * Maps what a handler threw to an ApiError: runtime and flow errors to 400/404/409, Hono's own
 * HTTP errors (malformed JSON, unsupported media type) to 400, anything else to 500 (logged).
 */
export function toApiError(error: unknown, logger: Logger): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof RunNotFoundError)
    return new ApiError(404, 'RUN_NOT_FOUND', `unknown run id ${error.runId}`);
  if (error instanceof RunConflictError)
    return new ApiError(409, 'CONFLICT', `${error.message} (nothing changed)`);
  if (error instanceof VersionConflictError) {
    return new ApiError(
      409,
      'CONFLICT',
      `run ${error.runId} was changed by another request meanwhile (nothing changed)`,
    );
  }
  if (isFlowError(error)) {
    return new ApiError(400, 'FLOW_INVALID', 'the flow is not valid', error.message.split('\n'));
  }
  if (error instanceof RunInputError)
    return new ApiError(400, 'INPUT_INVALID', error.message.split('\n')[0] ?? error.message, error.problems);
  if (error instanceof RuntimeInputError) return new ApiError(400, 'BAD_REQUEST', error.message);
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

/** Answers an ApiError as JSON (with `WWW-Authenticate` on 401). */
export function errorResponse(c: Context, error: ApiError): Response {
  if (error.status === 401) c.header('WWW-Authenticate', 'Bearer realm="agent-runtime"');
  if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
  return c.json(error.body(), error.status);
}
