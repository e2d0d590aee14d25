import type { DatabaseSync } from 'node:sqlite';
import { latestVersion, refuseNewer } from '../migrations.js';
import { OUTBOX_V3 } from './outbox.js';
import { rollback } from './tx.js';

/**
 * One step of the schema, applied inside the same transaction as the `PRAGMA user_version` bump.
 * Never edit a released migration: add the next one.
 */
export interface Migration {
  /** The `user_version` after this step: 1, 2, 3, … without gaps. */
  readonly version: number;
  readonly description: string;
  readonly up: (db: DatabaseSync) => void;
}

/**
 * Version 1, the first released schema. A step's cost is mostly the b-tree pages its commit writes to
 * the WAL, so a commit touches few: the run row, which it updates anyway, and one `journal` row
 * appended at the end of its table holding everything the commit appends (its events, messages and
 * evidence). The run row points at its last journal row (`journal_head`) and each journal row at the
 * run's one before it (`prev`), so a run's rows are found without an index: about three pages a step.
 * The flow and input, written once, live apart from the run row (`run_definitions`); no index holds a
 * column a step changes (the lease); `runs_parent` and `runs_tenant` hold only runs that have one (a
 * top-level run of the CLI is in neither). `events`, `messages` and `evidence` are views over the
 * journal for people reading the file. Threads: one row per thread of a tenant (`''` for none) with
 * its run ids, oldest first, as a JSON array; appending a run is a compare-and-set on the last one.
 */
const V1 = `
CREATE TABLE runs (
  run_id           TEXT PRIMARY KEY,
  parent_run_id    TEXT,
  root_run_id      TEXT NOT NULL,
  tenant           TEXT,
  flow_id          TEXT NOT NULL,
  flow_version     TEXT NOT NULL,
  flow_dir         TEXT,
  model            TEXT,
  status           TEXT NOT NULL,
  suspension       TEXT,
  reason           TEXT,
  failed_node      TEXT,
  message          TEXT,
  usage            TEXT NOT NULL,
  outputs          TEXT NOT NULL,
  state            TEXT,
  version          INTEGER NOT NULL,
  last_seq         INTEGER NOT NULL,
  lease_owner      TEXT,
  lease_expires_at INTEGER,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  journal_head     INTEGER,
  journal_prev     INTEGER
);
CREATE INDEX runs_created ON runs (created_at);
CREATE INDEX runs_status ON runs (status);
CREATE INDEX runs_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
CREATE INDEX runs_tenant ON runs (tenant, created_at) WHERE tenant IS NOT NULL;

CREATE TABLE run_definitions (
  run_id TEXT PRIMARY KEY REFERENCES runs (run_id),
  flow   TEXT NOT NULL,
  input  TEXT
) WITHOUT ROWID;

CREATE TABLE journal (
  pos       INTEGER PRIMARY KEY,
  run_id    TEXT NOT NULL REFERENCES runs (run_id),
  prev      INTEGER,
  first_seq INTEGER,
  last_seq  INTEGER,
  node_run  TEXT,
  events    TEXT,
  messages  TEXT,
  evidence  TEXT
);

CREATE VIEW events AS
  SELECT j.run_id AS run_id, json_extract(e.value, '$.seq') AS seq, json_extract(e.value, '$.ts') AS ts,
         json_extract(e.value, '$.type') AS type, json_extract(e.value, '$.nodeId') AS node_id, e.value AS body
  FROM journal j, json_each(j.events) e;
CREATE VIEW messages AS
  SELECT j.run_id AS run_id, json_extract(m.value, '$.nodeRun') AS node_run,
         json_extract(m.value, '$.index') AS idx, m.value AS body
  FROM journal j, json_each(j.messages) m;
CREATE VIEW evidence AS
  SELECT j.run_id AS run_id, j.pos AS pos, v.key AS item, json_extract(v.value, '$.id') AS id,
         json_extract(v.value, '$.tool') AS tool, json_extract(v.value, '$.nodeId') AS node_id,
         json_extract(v.value, '$.fingerprint') AS fingerprint, json_extract(v.value, '$.outcome') AS outcome,
         v.value AS body
  FROM journal j, json_each(j.evidence) v;

CREATE TABLE threads (
  tenant      TEXT NOT NULL,
  thread_id   TEXT NOT NULL,
  run_ids     TEXT NOT NULL,
  last_run_id TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  PRIMARY KEY (tenant, thread_id)
) WITHOUT ROWID;
CREATE INDEX threads_updated ON threads (tenant, updated_at DESC, thread_id);
`;

/**
 * Version 2: steering messages (docs/approvals.md), kept from the moment they are accepted until the
 * run reads them (the run's state records the last seq it read), numbered per run.
 */
const V2 = `
CREATE TABLE run_messages (
  run_id     TEXT NOT NULL REFERENCES runs (run_id),
  seq        INTEGER NOT NULL,
  message_id TEXT NOT NULL UNIQUE,
  text       TEXT NOT NULL,
  who        TEXT,
  at         TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
`;

/** Every migration in order. The last one's version is the schema this code writes. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'runs, run definitions, one journal row per commit, threads',
    up: (db) => db.exec(V1),
  },
  { version: 2, description: 'steering messages of runs', up: (db) => db.exec(V2) },
  { version: 3, description: 'the webhook outbox and delivery log', up: (db) => db.exec(OUTBOX_V3) },
];

/** The schema version this code reads and writes (`PRAGMA user_version`). */
export const SCHEMA_VERSION: number = latestVersion(MIGRATIONS);

/** The database's `PRAGMA user_version` (0 for a new file). */
export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number } | undefined;
  return row?.user_version ?? 0;
}

/**
 * Brings the database up to the last migration, each pending step in order inside one
 * `BEGIN IMMEDIATE` transaction (so two processes opening a new file migrate it once). Refuses a
 * database newer than the code with StoreError `SCHEMA_TOO_NEW`. Returns the versions before and after.
 */
export function migrate(
  db: DatabaseSync,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  const target = latestVersion(migrations);
  const seen = schemaVersion(db);
  refuseNewer(seen, target);
  if (seen === target) return { from: seen, to: seen };
  db.exec('BEGIN IMMEDIATE');
  try {
    const from = schemaVersion(db);
    refuseNewer(from, target);
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      migration.up(db);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    }
    db.exec('COMMIT');
    return { from, to: target };
  } catch (error) {
    return rollback(db, error);
  }
}
