import { latestVersion, refuseNewer } from '../migrations.js';
import { StoreError } from '../store.js';
import { PG_OUTBOX_V3 } from './outbox.js';
import type { QueryRunner, Queryable } from './queryable.js';

/**
 * One step of the PostgreSQL schema, applied in the same transaction as its row in
 * `schema_migrations`. Never edit a released migration: add the next one. `sql` receives the quoted
 * schema name and returns the statements.
 */
export interface PgMigration {
  /** The schema version after this step: 1, 2, 3, … without gaps. */
  readonly version: number;
  readonly description: string;
  readonly sql: (schema: string) => string;
}

/**
 * Version 1, the first released schema, laid out for the cost of a step's commit. A step updates its
 * run row: with no index on a column a step changes (the lease) and free room on the page
 * (fillfactor 50), PostgreSQL updates the row in place (HOT) instead of adding an entry to each of the
 * run's indexes. The appended rows (events, messages, evidence) carry no foreign key, so inserting
 * them runs no trigger: a commit inserts them only in the statement that matched the run's row, and
 * createRun inserts a run's first events with it. Threads: one row per thread of a tenant (`''` for
 * none) with its run ids, oldest first; appending a run is a compare-and-set on the last one.
 */
const V1 = (s: string): string => `
CREATE TABLE ${s}.runs (
  pos              bigint GENERATED ALWAYS AS IDENTITY,
  run_id           text PRIMARY KEY,
  parent_run_id    text,
  root_run_id      text NOT NULL,
  tenant           text,
  flow_id          text NOT NULL,
  flow_version     text NOT NULL,
  flow             json NOT NULL,
  flow_dir         text,
  model            text,
  input            json,
  status           text NOT NULL,
  suspension       json,
  reason           text,
  failed_node      text,
  message          text,
  usage            json NOT NULL,
  outputs          json NOT NULL,
  state            json,
  version          integer NOT NULL,
  last_seq         bigint NOT NULL,
  lease_owner      text,
  lease_expires_at bigint,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
) WITH (fillfactor = 50);
CREATE INDEX runs_created ON ${s}.runs (created_at DESC, pos DESC);
CREATE INDEX runs_tenant ON ${s}.runs (tenant, created_at DESC);
CREATE INDEX runs_parent ON ${s}.runs (parent_run_id);
CREATE INDEX runs_root ON ${s}.runs (root_run_id);
CREATE INDEX runs_running ON ${s}.runs (created_at) WHERE status = 'running';

CREATE TABLE ${s}.events (
  run_id  text NOT NULL,
  seq     bigint NOT NULL,
  ts      timestamptz NOT NULL,
  type    text NOT NULL,
  node_id text,
  body    json NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE ${s}.messages (
  run_id   text NOT NULL,
  node_run text NOT NULL,
  idx      integer NOT NULL,
  body     json NOT NULL,
  PRIMARY KEY (run_id, node_run, idx)
);

CREATE TABLE ${s}.evidence (
  pos         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id      text NOT NULL,
  id          text NOT NULL,
  tool        text NOT NULL,
  node_id     text NOT NULL,
  fingerprint text NOT NULL,
  outcome     text NOT NULL,
  body        json NOT NULL,
  UNIQUE (run_id, id)
);
CREATE INDEX evidence_run ON ${s}.evidence (run_id, pos);

CREATE TABLE ${s}.threads (
  tenant      text NOT NULL,
  thread_id   text NOT NULL,
  run_ids     jsonb NOT NULL,
  last_run_id text NOT NULL,
  created_at  text NOT NULL,
  updated_at  text NOT NULL,
  PRIMARY KEY (tenant, thread_id)
);
CREATE INDEX threads_updated ON ${s}.threads (tenant, updated_at DESC, thread_id);
`;

/** Version 2: steering messages (docs/approvals.md), numbered per run, kept until the run reads them. */
const V2 = (s: string): string => `
CREATE TABLE ${s}.run_messages (
  run_id     text NOT NULL,
  seq        bigint NOT NULL,
  message_id text NOT NULL UNIQUE,
  text       text NOT NULL,
  who        text,
  at         text NOT NULL,
  PRIMARY KEY (run_id, seq)
);
`;

/** Every migration in order. The last one's version is the schema this code writes. */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 1, description: 'runs, events, messages, evidence, threads', sql: V1 },
  { version: 2, description: 'steering messages of runs', sql: V2 },
  { version: 3, description: 'the webhook outbox and delivery log', sql: PG_OUTBOX_V3 },
];

/** The PostgreSQL schema version this code reads and writes. */
export const PG_SCHEMA_VERSION: number = latestVersion(PG_MIGRATIONS);

/** The default PostgreSQL schema (namespace) of the store's tables. */
export const DEFAULT_PG_SCHEMA = 'agent_runtime';

/** A schema name quoted for SQL; only plain identifiers are accepted (throws StoreError `BAD_URL`). */
export function quoteSchema(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new StoreError(
      'BAD_URL',
      `PostgreSQL schema name ${JSON.stringify(name)} must be a plain identifier`,
    );
  }
  return `"${name}"`;
}

/** The schema's version (0 when the store's tables are not there yet). */
export async function pgSchemaVersion(db: QueryRunner, schema: string): Promise<number> {
  const table = await db.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
    `${quoteSchema(schema)}.schema_migrations`,
  ]);
  if (!table.rows[0]?.t) return 0;
  const found = await db.query<{ v: number | null }>(
    `SELECT max(version) AS v FROM ${quoteSchema(schema)}.schema_migrations`,
  );
  return Number(found.rows[0]?.v ?? 0);
}

/**
 * Brings the schema up to the last migration: the pending steps in order, in one transaction holding
 * an advisory lock on the schema's name (so processes opening a new database at once migrate it once).
 * Refuses a schema newer than the code with StoreError `SCHEMA_TOO_NEW`. Returns the versions before
 * and after.
 */
export async function pgMigrate(
  db: Queryable,
  schema: string,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<{ from: number; to: number }> {
  const target = latestVersion(migrations);
  const seen = await pgSchemaVersion(db, schema);
  refuseNewer(seen, target);
  if (seen === target) return { from: seen, to: seen };
  const s = quoteSchema(schema);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`g2rain-agent-runtime:${schema}`]);
    await tx.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
        version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const from = await pgSchemaVersion(tx, schema);
    refuseNewer(from, target);
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      for (const statement of splitStatements(migration.sql(s))) await tx.query(statement);
      await tx.query(`INSERT INTO ${s}.schema_migrations (version, description) VALUES ($1, $2)`, [
        migration.version,
        migration.description,
      ]);
    }
    return { from, to: target };
  });
}

/** Statements of a migration script (they hold no `;` inside literals). */
function splitStatements(script: string): string[] {
  return script
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
