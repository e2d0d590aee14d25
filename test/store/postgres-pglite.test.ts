/**
 * PostgresStore on PGlite (in-process PostgreSQL, always available): the Store contract, the schema
 * (a new schema's layout, migrations, a newer schema refused) and the runnable-run query the workers sweep with.
 */
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PG_MIGRATIONS,
  PG_SCHEMA_VERSION,
  createPostgresStore,
  pgMigrate,
  pgSchemaVersion,
  pgliteQueryable,
  type PgMigration,
} from '../../src/store/postgres/index.js';
import { StoreError } from '../../src/store/store.js';
import { event, newRun, storeContract } from './store.contract.js';

let db: PGlite;
let schemas = 0;
const nextSchema = (label = 'c'): string => `${label}${++schemas}`;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db.close();
});

// One in-process PGlite per file; each case gets a fresh schema in it.
storeContract('PostgresStore (PGlite)', (now) =>
  createPostgresStore({ pglite: db }, { schema: nextSchema(), now }),
);

describe('PostgresStore schema', () => {
  /** A new schema at the current version holding one run (`run_1`) written by the store. */
  async function currentSchema(): Promise<string> {
    const schema = nextSchema('current_');
    const store = await createPostgresStore({ pglite: db }, { schema });
    await store.createRun(newRun('run_1'), [event('run_1', 1, 'run.started')]);
    await store.close();
    return schema;
  }

  /** The indexes, constraints and table options of a schema, with the schema name taken out. */
  async function layout(schema: string): Promise<string[]> {
    const indexes = await db.query<{ d: string }>(
      'SELECT indexdef AS d FROM pg_indexes WHERE schemaname = $1',
      [schema],
    );
    const constraints = await db.query<{ d: string }>(
      `SELECT conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) AS d FROM pg_constraint
       WHERE connamespace = $1::regnamespace`,
      [schema],
    );
    const options = await db.query<{ d: string }>(
      `SELECT relname || ' ' || coalesce(array_to_string(reloptions, ','), '') AS d FROM pg_class
       WHERE relnamespace = $1::regnamespace AND relkind = 'r'`,
      [schema],
    );
    return [...indexes.rows, ...constraints.rows, ...options.rows]
      .map((r) => r.d.replaceAll(`"${schema}".`, '').replaceAll(`${schema}.`, ''))
      .sort();
  }

  it('creates a new schema at the one current layout in one step', async () => {
    const schema = nextSchema('new_');
    expect(PG_SCHEMA_VERSION).toBe(3);
    expect(await pgMigrate(pgliteQueryable(db), schema)).toEqual({ from: 0, to: PG_SCHEMA_VERSION });
    const found = await layout(schema);
    expect(found).toContain('runs fillfactor=50');
    expect(found).toContain('threads PRIMARY KEY (tenant, thread_id)');
    expect(found).toContain(
      "CREATE INDEX runs_running ON runs USING btree (created_at) WHERE (status = 'running'::text)",
    );
    // Appends run no foreign-key trigger; no index holds the lease a step renews.
    expect(found.join('\n')).not.toMatch(/FOREIGN KEY|lease_expires_at/);
  });

  it('applies pending migrations in order, once', async () => {
    const schema = await currentSchema();
    const q = pgliteQueryable(db);
    const v2: PgMigration = {
      version: PG_SCHEMA_VERSION + 1,
      description: 'test: runs.note',
      sql: (s) => `ALTER TABLE ${s}.runs ADD COLUMN note text`,
    };
    const v3: PgMigration = {
      version: PG_SCHEMA_VERSION + 2,
      description: 'test: fill note',
      sql: (s) => `UPDATE ${s}.runs SET note = 'v3'`,
    };
    const last = PG_SCHEMA_VERSION + 2;
    expect(await pgMigrate(q, schema, [...PG_MIGRATIONS, v2, v3])).toEqual({
      from: PG_SCHEMA_VERSION,
      to: last,
    });
    expect(await pgSchemaVersion(q, schema)).toBe(last);
    expect((await db.query(`SELECT note FROM "${schema}".runs WHERE run_id = 'run_1'`)).rows).toEqual([
      { note: 'v3' },
    ]);
    expect(await pgMigrate(q, schema, [...PG_MIGRATIONS, v2, v3])).toEqual({ from: last, to: last });
  });

  it('rolls a failing migration back whole', async () => {
    const schema = await currentSchema();
    const q = pgliteQueryable(db);
    const v2: PgMigration = {
      version: PG_SCHEMA_VERSION + 1,
      description: 'test: half done',
      sql: (s) => `CREATE TABLE ${s}.extra (x int); SELECT nope FROM ${s}.missing`,
    };
    await expect(pgMigrate(q, schema, [...PG_MIGRATIONS, v2])).rejects.toThrow(/missing/);
    expect(await pgSchemaVersion(q, schema)).toBe(PG_SCHEMA_VERSION);
    expect((await db.query(`SELECT to_regclass('"${schema}".extra') AS t`)).rows).toEqual([{ t: null }]);
  });

  it('refuses a schema newer than the code, leaving it untouched', async () => {
    const schema = await currentSchema();
    await db.query(`INSERT INTO "${schema}".schema_migrations (version, description) VALUES ($1, 'future')`, [
      PG_SCHEMA_VERSION + 1,
    ]);
    const error: unknown = await createPostgresStore({ pglite: db }, { schema }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'SCHEMA_TOO_NEW' });
    expect((error as Error).message).toContain(
      `schema version ${PG_SCHEMA_VERSION + 1}, newer than this g2rain-agent-runtime supports (${PG_SCHEMA_VERSION})`,
    );
    expect(await pgSchemaVersion(pgliteQueryable(db), schema)).toBe(PG_SCHEMA_VERSION + 1);
  });

  it('rejects a migration list with a gap, and a schema name that is not a plain identifier', async () => {
    const gap = [PG_MIGRATIONS[0]!, { version: 3, description: 'gap', sql: () => 'SELECT 1' }];
    await expect(pgMigrate(pgliteQueryable(db), nextSchema(), gap)).rejects.toThrow(/expected 2/);
    const error: unknown = await createPostgresStore({ pglite: db }, { schema: 'x"; DROP' }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'BAD_URL' });
  });
});

describe('PostgresStore.unleasedRuns', () => {
  it('lists top-level running runs that no live lease holds, least recently updated first', async () => {
    const store = await createPostgresStore({ pglite: db }, { schema: nextSchema() });
    const now = 1_000_000;
    await store.createRun(newRun('queued'), []);
    await store.createRun(newRun('dead', { leaseOwner: 'w1', leaseExpiresAt: now - 1 }), []);
    await store.createRun(newRun('live', { leaseOwner: 'w2', leaseExpiresAt: now + 5_000 }), []);
    await store.createRun(newRun('waiting', { status: 'suspended' }), []);
    await store.createRun(newRun('child', { parentRunId: 'dead', rootRunId: 'dead' }), []);
    expect(await store.unleasedRuns(now)).toEqual(['queued', 'dead']);
    expect(await store.unleasedRuns(now + 5_000)).toEqual(['queued', 'dead', 'live']);
    expect(await store.unleasedRuns(now, 1)).toEqual(['queued']);
    await store.close();
  });
});
