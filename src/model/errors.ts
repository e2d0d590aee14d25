/**
 * The errors of the model layer: one class, `ModelError`, told apart by `code`. A model call that
 * fails is not one of them: the adapter retries it and the node loop records the failure; these are
 * misconfiguration (CONFIG) and the causes the adapter's retry logic classifies (TIMEOUT, STREAM).
 */
import { AgentRuntimeError } from '../domain/agent-runtime-error.js';

/** What went wrong with a model. */
export type ModelErrorCode =
  /** A model name that cannot be served: unknown provider, missing key, bad setting. CLI exit 2; wrapped as RunError REQUEST_INVALID by the runtime. */
  | 'CONFIG'
  /** One attempt of a call ran past its time limit (`timeoutMs`); retried. */
  | 'TIMEOUT'
  /** A response stream carried an error part or ended before the model finished; retried like any failed attempt. */
  | 'STREAM';

/** The `name` by code: the class each code had before codes (failure messages and users match it). */
const NAMES: Record<ModelErrorCode, string> = {
  CONFIG: 'ModelConfigError',
  TIMEOUT: 'ModelTimeoutError',
  STREAM: 'ModelStreamError',
};

/** What a ModelError carries besides its code and message. */
export interface ModelErrorOptions extends ErrorOptions {
  /** TIMEOUT: the limit that was passed, in ms. */
  readonly timeoutMs?: number;
}

/** A model that cannot be used, or a failed attempt of a call, with the reason as `code`. */
export class ModelError extends AgentRuntimeError {
  declare readonly code: ModelErrorCode;
  readonly timeoutMs?: number;

  constructor(code: ModelErrorCode, message: string, options: ModelErrorOptions = {}) {
    super(code, message, options);
    this.name = NAMES[code];
    if (options.timeoutMs !== undefined) this.timeoutMs = options.timeoutMs;
  }
}

/** TIMEOUT: an attempt ran past `timeoutMs`. */
export function modelTimeout(timeoutMs: number): ModelError {
  return new ModelError('TIMEOUT', `timed out after ${timeoutMs} ms`, { timeoutMs });
}
