/** Small SQL helpers of SqliteStore. */

const SQLITE_CONSTRAINT_PRIMARYKEY = 1555;
const SQLITE_CONSTRAINT_UNIQUE = 2067;

/** `INSERT INTO table (a, b) VALUES (:a, :b)` for named parameters. */
export function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `:${c}`).join(', ')})`;
}

/** Whether an error is SQLite's primary-key or unique constraint failure. */
export function isConstraint(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return errcode === SQLITE_CONSTRAINT_PRIMARYKEY || errcode === SQLITE_CONSTRAINT_UNIQUE;
}

/** A run missing inside its own transaction: a bug. */
export function unreachable(runId: string): never {
  throw new Error(`run ${runId} vanished inside its own transaction`);
}
