import { StoreError } from './store.js';

/**
 * The schema-version rules both SQL stores share: migrations are numbered 1, 2, 3, … without gaps,
 * and a database written by a newer runtime is refused untouched.
 */

/** The version the last migration reaches; throws for a gap in the numbering (a bug). */
export function latestVersion(migrations: readonly { version: number }[]): number {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${i} has version ${m.version}, expected ${i + 1}`);
  });
  return migrations.length;
}

/** Throws StoreError SCHEMA_TOO_NEW when the database is newer than this code supports. */
export function refuseNewer(found: number, supported: number): void {
  if (found > supported) {
    throw new StoreError(
      'SCHEMA_TOO_NEW',
      `the database has schema version ${found}, newer than this g2rain-agent-runtime supports (${supported}); ` +
        'upgrade g2rain-agent-runtime to open it',
    );
  }
}
