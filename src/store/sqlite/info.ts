import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { SqliteStoreInfo } from './options.js';
import { schemaVersion } from './schema.js';

const SYNCHRONOUS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const;

/** The settings a SqliteStore's connection runs with, read back from SQLite. */
export function connectionInfo(
  path: string,
  db: DatabaseSync,
  stmt: (sql: string) => StatementSync,
): SqliteStoreInfo {
  const pragma = (name: string): unknown => Object.values(stmt(`PRAGMA ${name}`).get() ?? {})[0];
  return {
    path,
    schemaVersion: schemaVersion(db),
    journalMode: String(pragma('journal_mode')),
    synchronous: SYNCHRONOUS[Number(pragma('synchronous'))] ?? 'FULL',
    busyTimeoutMs: Number(pragma('busy_timeout')),
  };
}
