/** The options and diagnostics of SqliteStore. */

/**
 * How hard a commit is pushed to disk. `normal` (WAL + `synchronous=NORMAL`) survives the process
 * being killed at any point but may lose the last commits on power loss; `strict`
 * (`synchronous=FULL`) survives that too, at some cost per commit.
 */
export type Durability = 'normal' | 'strict';

/** Options of `SqliteStore`. */
export interface SqliteStoreOptions {
  /** The database file (its folder is created), or `:memory:` for a private in-memory database. */
  path: string;
  /** Default `normal`. */
  durability?: Durability;
  /** How long to wait for another process's write lock before failing, ms. Default 5000. */
  busyTimeoutMs?: number;
  /** The clock for `createdAt` / `updatedAt` (injected for deterministic tests). */
  now?: () => Date;
}

/** What a SqliteStore's connection actually runs with (read back from SQLite, for diagnostics). */
export interface SqliteStoreInfo {
  path: string;
  schemaVersion: number;
  journalMode: string;
  synchronous: 'OFF' | 'NORMAL' | 'FULL' | 'EXTRA';
  busyTimeoutMs: number;
}
