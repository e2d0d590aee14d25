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
  const fixture = readFileSync(new URL('./fixtures/postgres-v1.sql', import.meta.url), 'utf8');

  /** A new schema holding the frozen v1 data. */
  async function v1Schema(): Promise<string> {
    const schema = nextSchema('v1_');
    await db.exec(fixture.replaceAll('__SCHEMA__', `"${schema}"`));
    return schema;
  }

  it('opens the frozen v1 schema with the current code', async () => {
    const schema = await v1Schema();
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
      version: 2,
      description: 'test: runs.note',
      sql: (s) => `ALTER TABLE ${s}.runs ADD COLUMN note text`,
    };
    const v3: PgMigration = {
      version: 3,
      description: 'test: fill note',
      sql: (s) => `UPDATE ${s}.runs SET note = 'v3'`,
    };
    expect(await pgMigrate(q, schema, [...PG_MIGRATIONS, v2, v3])).toEqual({ from: 1, to: 3 });
    expect(await pgSchemaVersion(q, schema)).toBe(3);
    expect((await db.query(`SELECT note FROM "${schema}".runs WHERE run_id = 'run_v1'`)).rows).toEqual([
      { note: 'v3' },
    ]);
    expect(await pgMigrate(q, schema, [...PG_MIGRATIONS, v2, v3])).toEqual({ from: 3, to: 3 });
  });

  it('rolls a failing migration back whole', async () => {
    const schema = await v1Schema();
    const q = pgliteQueryable(db);
    const v2: PgMigration = {
      version: 2,
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
    expect((error as Error).message).toMatch(
      /schema version 2, newer than this g2rain-agent-runtime supports \(1\)/,
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
