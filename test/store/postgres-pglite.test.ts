/**
 * PostgresStore on PGlite (in-process PostgreSQL, always available): the Store contract, the schema
 * (frozen v1, migrations, a newer schema refused) and the runnable-run query the workers sweep with.
 */
import { readFileSync } from 'node:fs';
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
import { event, evidence, newRun, storeContract } from './store.contract.js';
import { realDocumentSql } from './real-documents.js';

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
  const fixture = (version: number): string =>
    readFileSync(new URL(`./fixtures/postgres-v${version}.sql`, import.meta.url), 'utf8');

  /** A new schema holding the frozen data of schema `version`. */
  async function fixtureSchema(version: number): Promise<string> {
    const schema = nextSchema(`v${version}_`);
    await db.exec(fixture(version).replaceAll('__SCHEMA__', `"${schema}"`));
    await db.exec(realDocumentSql((name) => `"${schema}".${name}`, 'runs'));
    return schema;
  }
  const v1Schema = (): Promise<string> => fixtureSchema(1);

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

  it('migrates the frozen v1 schema to the layout the frozen v2 one gets (v3 adds threads to both)', async () => {
    const migrated = await v1Schema();
    await (await createPostgresStore({ pglite: db }, { schema: migrated })).close();
    const frozen = await fixtureSchema(2);
    await (await createPostgresStore({ pglite: db }, { schema: frozen })).close();
    expect(await layout(migrated)).toEqual(await layout(frozen));
    expect(await layout(frozen)).toContain('threads PRIMARY KEY (tenant, thread_id)');
    expect((await layout(frozen)).join('\n')).not.toMatch(/FOREIGN KEY|lease_expires_at/);
  });

  it.each([1, 2])('opens the frozen v%i schema with the current code', async (version) => {
    const schema = await fixtureSchema(version);
    const store = await createPostgresStore({ pglite: db }, { schema });
    expect(await store.schemaVersion()).toBe(PG_SCHEMA_VERSION);
    const run = (await store.getRun('run_v1'))!;
    expect(run).toMatchObject({
      status: 'suspended',
      tenant: 'acme',
      flowDir: '/srv/flows',
      suspension: { kind: 'APPROVAL', pending: { tool: 'site_create', args: { name: 'Alpha' } } },
      usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
      outputs: { query: { found: false } },
      version: 4,
      lastSeq: 5,
      createdAt: '2025-03-01T10:00:00.000Z',
    });
    expect((await store.events('run_v1', 2)).map((e) => e.type)).toEqual([
      'tool.invoked',
      'node.completed',
      'run.suspended',
    ]);
    expect((await store.messages('run_v1', 'query#1')).map((m) => m.index)).toEqual([0, 1]);
    expect((await store.evidence('run_v1'))[0]).toMatchObject({
      id: 'ev_1',
      tool: 'site_query',
      payload: { rows: [] },
    });
    expect((await store.listRuns({ parentRunId: 'run_v1' })).map((r) => r.runId)).toEqual(['run_v1_child']);
    expect(await store.acquireLease('run_v1_child', 'worker-b', 1740823300000, 1740823200001)).toMatchObject({
      leaseOwner: 'worker-b',
    });
    const next = await store.commit({
      runId: 'run_v1',
      expectedVersion: 4,
      patch: { status: 'completed' },
      events: [event('run_v1', 6, 'run.completed')],
      evidence: [evidence(2)],
    });
    expect(next).toMatchObject({ version: 5, lastSeq: 6 });
    expect((await store.evidence('run_v1')).map((e) => e.id)).toEqual(['ev_1', 'ev_2']);
    await store.close();
  });

  it('applies pending migrations in order, once', async () => {
    const schema = await v1Schema();
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
    expect(await pgMigrate(q, schema, [...PG_MIGRATIONS, v2, v3])).toEqual({ from: 1, to: last });
    expect(await pgSchemaVersion(q, schema)).toBe(last);
    expect((await db.query(`SELECT note FROM "${schema}".runs WHERE run_id = 'run_v1'`)).rows).toEqual([
      { note: 'v3' },
    ]);
    expect(await pgMigrate(q, schema, [...PG_MIGRATIONS, v2, v3])).toEqual({ from: last, to: last });
  });

  it('rolls a failing migration back whole', async () => {
    const schema = await v1Schema();
    const q = pgliteQueryable(db);
    const v2: PgMigration = {
      version: PG_SCHEMA_VERSION + 1,
      description: 'test: half done',
      sql: (s) => `CREATE TABLE ${s}.extra (x int); SELECT nope FROM ${s}.missing`,
    };
    await expect(pgMigrate(q, schema, [...PG_MIGRATIONS, v2])).rejects.toThrow(/missing/);
    expect(await pgSchemaVersion(q, schema)).toBe(1);
    expect((await db.query(`SELECT to_regclass('"${schema}".extra') AS t`)).rows).toEqual([{ t: null }]);
  });

  it('refuses a schema newer than the code, leaving it untouched', async () => {
    const schema = await v1Schema();
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
