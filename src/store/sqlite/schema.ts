import type { DatabaseSync } from 'node:sqlite';
import { latestVersion, refuseNewer } from '../migrations.js';
import { rollback } from './tx.js';

/**
 * One step of the schema, applied inside the same transaction as the `PRAGMA user_version` bump.
 * Never edit a released migration: add the next one (STYLE habit 8; the frozen v1 database in
 * test/store/fixtures/ must keep opening).
 */
export interface Migration {
  /** The `user_version` after this step: 1, 2, 3, … without gaps. */
  readonly version: number;
  readonly description: string;
  readonly up: (db: DatabaseSync) => void;
}

const V1 = `
CREATE TABLE runs (
  run_id           TEXT PRIMARY KEY,
  parent_run_id    TEXT,
  root_run_id      TEXT NOT NULL,
  tenant           TEXT,
  flow_id          TEXT NOT NULL,
  flow_version     TEXT NOT NULL,
  flow             TEXT NOT NULL,
  flow_dir         TEXT,
  model            TEXT,
  input            TEXT,
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
  updated_at       TEXT NOT NULL
);
CREATE INDEX runs_status ON runs (status, lease_expires_at);
CREATE INDEX runs_tenant ON runs (tenant, created_at);
CREATE INDEX runs_parent ON runs (parent_run_id);
CREATE INDEX runs_root ON runs (root_run_id);
CREATE INDEX runs_created ON runs (created_at);

CREATE TABLE events (
  run_id  TEXT NOT NULL REFERENCES runs (run_id),
  seq     INTEGER NOT NULL,
  ts      TEXT NOT NULL,
  type    TEXT NOT NULL,
  node_id TEXT,
  body    TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE messages (
  run_id   TEXT NOT NULL REFERENCES runs (run_id),
  node_run TEXT NOT NULL,
  idx      INTEGER NOT NULL,
  body     TEXT NOT NULL,
  PRIMARY KEY (run_id, node_run, idx)
) WITHOUT ROWID;

CREATE TABLE evidence (
  pos         INTEGER PRIMARY KEY,
  run_id      TEXT NOT NULL REFERENCES runs (run_id),
  id          TEXT NOT NULL,
  tool        TEXT NOT NULL,
  node_id     TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  body        TEXT NOT NULL,
  UNIQUE (run_id, id)
);
CREATE INDEX evidence_run ON evidence (run_id, pos);
CREATE INDEX evidence_fingerprint ON evidence (run_id, fingerprint);
`;

/**
 * One commit, fewer pages. Each b-tree page a commit touches is one more page written to the WAL, and
 * that is most of a step's cost: a step used to touch ten (three tables of appended rows, each with
 * its own key, plus indexes). Now everything a commit appends (its events, messages and evidence) is
 * one `journal` row appended at the end of the table, and the run row, which the commit updates
 * anyway, points at it (`journal_head`); each journal row points at the run's one before it (`prev`),
 * so a run's rows are found without an index: about three pages a step. The flow and input, written once,
 * leave the run row; the status index no longer holds the lease expiry every commit renews. Each index
 * is a page more per new run: the one on the root run, which no query used, is gone, and those on the
 * parent and the tenant hold only runs that have one (a top-level run of the CLI is in neither).
 * `events`, `messages` and `evidence` stay readable as views. The v1 rows move to the journal one
 * row each, in their order.
 */
const V2 = `
CREATE TABLE run_definitions (
  run_id TEXT PRIMARY KEY REFERENCES runs (run_id),
  flow   TEXT NOT NULL,
  input  TEXT
) WITHOUT ROWID;
INSERT INTO run_definitions (run_id, flow, input) SELECT run_id, flow, input FROM runs;
ALTER TABLE runs DROP COLUMN flow;
ALTER TABLE runs DROP COLUMN input;
DROP INDEX runs_status;
CREATE INDEX runs_status ON runs (status);
DROP INDEX runs_root;
DROP INDEX runs_parent;
CREATE INDEX runs_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
DROP INDEX runs_tenant;
CREATE INDEX runs_tenant ON runs (tenant, created_at) WHERE tenant IS NOT NULL;

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
INSERT INTO journal (run_id, first_seq, last_seq, events)
  SELECT run_id, seq, seq, json_array(json(body)) FROM events ORDER BY run_id, seq;
INSERT INTO journal (run_id, node_run, messages)
  SELECT run_id, node_run, json_array(json(body)) FROM messages ORDER BY run_id, node_run, idx;
INSERT INTO journal (run_id, evidence) SELECT run_id, json_array(json(body)) FROM evidence ORDER BY pos;
DROP TABLE events;
DROP TABLE messages;
DROP TABLE evidence;

CREATE INDEX journal_migration ON journal (run_id, pos);
UPDATE journal SET prev = (SELECT max(j.pos) FROM journal j WHERE j.run_id = journal.run_id AND j.pos < journal.pos);
ALTER TABLE runs ADD COLUMN journal_head INTEGER;
ALTER TABLE runs ADD COLUMN journal_prev INTEGER;
UPDATE runs SET journal_head = (SELECT max(j.pos) FROM journal j WHERE j.run_id = runs.run_id);
UPDATE runs SET journal_prev = (SELECT j.prev FROM journal j WHERE j.pos = runs.journal_head);
DROP INDEX journal_migration;

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
`;

/**
 * Threads (docs/threads.md): one row per thread of a tenant (`''` for none) with its run ids, oldest
 * first, as a JSON array; appending a run is a compare-and-set on the last one. Runs are untouched.
 */
const V3 = `
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

/** Every migration in order. The last one's version is the schema this code writes. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'runs, events, messages, evidence', up: (db) => db.exec(V1) },
  {
    version: 2,
    description: 'one journal row per commit; run definitions apart from the run row',
    up: (db) => db.exec(V2),
  },
  { version: 3, description: 'threads', up: (db) => db.exec(V3) },
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
