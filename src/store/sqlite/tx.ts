import type { DatabaseSync } from 'node:sqlite';

/**
 * Rolls back after `error` and rethrows it. A rollback that fails too (SQLite already ended the
 * transaction after a failed COMMIT) is reported with it, not hidden.
 */
export function rollback(db: DatabaseSync, error: unknown): never {
  try {
    db.exec('ROLLBACK');
  } catch (rollbackError) {
    throw new AggregateError(
      [error, rollbackError],
      'a store transaction failed and could not be rolled back',
      {
        cause: rollbackError,
      },
    );
  }
  throw error;
}
