/** Thrown when a commit's expected version is not the stored one (another driver moved the run). */
export class VersionConflictError extends Error {
  override readonly name = 'VersionConflictError';
  constructor(
    readonly runId: string,
    readonly expected: number,
    readonly actual: number | null,
  ) {
    super(`run ${runId} is at version ${actual ?? 'none'}, not ${expected}`);
  }
}

/** Why a store operation was refused (other than a version conflict). */
export type StoreErrorCode =
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

/** One error class for every refusal by a store, told apart by `code` (STYLE habit 2). Nothing was changed. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
