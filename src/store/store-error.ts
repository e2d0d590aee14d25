/** Why a store refused an operation. Nothing was changed in any case. */
import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
export type StoreErrorCode =
  /** A commit's expected version is not the stored one: another driver moved the run (`runId`, `expected`, `actual`). */
  | 'VERSION_CONFLICT'
  /** No run with that id. */
  | 'RUN_NOT_FOUND'
  /** A run id, event seq, message (nodeRun, index) or evidence id that already exists. */
  | 'DUPLICATE'
  /** An appended row that does not fit: wrong runId, seq not above `lastSeq` or not increasing, … */
  | 'INVALID_APPEND'
  /** A store URL that is not `memory`, `sqlite:PATH` or `postgres://…`. */
  | 'BAD_URL'
  /** A store kind this build cannot open (PostgreSQL, for now). */
  | 'NOT_AVAILABLE'
  /** A database written by a newer version of the runtime. */
  | 'SCHEMA_TOO_NEW'
  /** The store was closed. */
  | 'CLOSED'
  /** A run saved by a newer version of the runtime (its run document version is above this one's). */
  | 'DOCUMENT_TOO_NEW'
  /** A run whose stored document does not fit its version (damaged or written by something else). */
  | 'BAD_DOCUMENT';

/** What a StoreError carries besides its code and message. */
export interface StoreErrorOptions extends ErrorOptions {
  /** The run concerned, when there is one (always for VERSION_CONFLICT). */
  readonly runId?: string;
  /** VERSION_CONFLICT: the version the commit expected. */
  readonly expected?: number;
  /** VERSION_CONFLICT: the stored version (null: no such run). */
  readonly actual?: number | null;
}

/**
 * One error class for every refusal by a store, told apart by `code`. Its `name` is
 * `VersionConflictError` for VERSION_CONFLICT (the class that code had before codes), else `StoreError`.
 */
export class StoreError extends AgentRuntimeError {
  declare readonly code: StoreErrorCode;
  readonly runId?: string;
  readonly expected?: number;
  readonly actual?: number | null;

  constructor(code: StoreErrorCode, message: string, options: StoreErrorOptions = {}) {
    super(code, message, options);
    this.name = code === 'VERSION_CONFLICT' ? 'VersionConflictError' : 'StoreError';
    if (options.runId !== undefined) this.runId = options.runId;
    if (options.expected !== undefined) this.expected = options.expected;
    if (options.actual !== undefined) this.actual = options.actual;
  }
}

/** VERSION_CONFLICT: a commit of `runId` expected `expected`, the store holds `actual` (null: no such run). */
export function versionConflict(runId: string, expected: number, actual: number | null): StoreError {
  return new StoreError(
    'VERSION_CONFLICT',
    `run ${runId} is at version ${actual ?? 'none'}, not ${expected}`,
    {
      runId,
      expected,
      actual,
    },
  );
}

/** True for a StoreError VERSION_CONFLICT: the run moved meanwhile and the caller's commit changed nothing. */
export function isVersionConflict(error: unknown): error is StoreError & { code: 'VERSION_CONFLICT' } {
  return error instanceof StoreError && error.code === 'VERSION_CONFLICT';
}
