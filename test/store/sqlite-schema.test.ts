import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  SCHEMA_VERSION,
  migrate,
  schemaVersion,
  type Migration,
} from '../../src/store/sqlite/schema.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { definitionParams, newRunParams, RUN_COLUMNS } from '../../src/store/sqlite/rows.js';
import { newRun } from '../../src/testing/store-contract/helpers.js';
import { StoreError } from '../../src/store/store.js';

import { realDocumentSql } from './real-documents.js';
import { event, evidence } from './store.contract.js';

const root = mkdtempSync(join(tmpdir(), 'store-sqlite-schema-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
let files = 0;
/** A path for a new database, in a folder that does not exist yet. */
const newFile = (): string => join(root, `db${++files}`, 'runtime.db');

describe('SqliteStore schema', () => {
  const fixture = readFileSync(new URL('./fixtures/v1.sql', import.meta.url), 'utf8');

  /** A new file holding the frozen v1 database. */
  function v1File(): string {
    const path = newFile();
    mkdirSync(dirname(path), { recursive: true });
    const db = openRaw(path);
    db.exec(fixture);
    db.exec(realDocumentSql((name) => name, 'runs'));
    db.close();
    return path;
  }

  it('opens the frozen v1 database with the current code', async () => {
    const store = new SqliteStore({ path: v1File() });
    expect(store.info().schemaVersion).toBe(SCHEMA_VERSION);
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
    });
    // Schema 2 moved the definition out of the run row: it arrives intact.
    expect(run.flow).toMatchObject({
      id: 'site-setup',
      version: 3,
      nodes: [{ id: 'query' }, { id: 'create' }],
    });
    expect(run.input).toEqual({ text: 'create site Alpha' });
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

  it('opens the frozen v2 database with the current code: runs, journal chains, views', async () => {
    const path = newFile();
    mkdirSync(dirname(path), { recursive: true });
    const raw = openRaw(path);
    raw.exec(readFileSync(new URL('./fixtures/v2.sql', import.meta.url), 'utf8'));
    raw.exec(realDocumentSql((name) => name, 'run_definitions'));
    raw.close();
    const store = new SqliteStore({ path });
    expect(store.info().schemaVersion).toBe(SCHEMA_VERSION);
    expect(await store.getRun('run_v1')).toMatchObject({
      status: 'running',
      version: 5,
      lastSeq: 7,
      input: { text: 'create site Alpha' },
    });
    expect((await store.events('run_v1', 4)).map((e) => e.type)).toEqual([
      'run.suspended',
      'run.resumed',
      'tool.invoked',
    ]);
    expect((await store.messages('run_v1', 'create#1')).map((m) => m.index)).toEqual([0, 1]);
    expect((await store.evidence('run_v1')).map((e) => e.id)).toEqual(['ev_1', 'ev_3']);
    await expect(
      store.commit({
        runId: 'run_v1',
        expectedVersion: 5,
        patch: {},
        evidence: [evidence(3, { tool: 'again' })],
      }),
    ).rejects.toMatchObject({ code: 'DUPLICATE' });
    const next = await store.commit({
      runId: 'run_v1',
      expectedVersion: 5,
      patch: { status: 'completed', leaseOwner: null, leaseExpiresAt: null },
      events: [event('run_v1', 8, 'run.completed')],
    });
    expect(next).toMatchObject({ status: 'completed', version: 6, lastSeq: 8 });
    expect((await store.events('run_v1', 7)).map((e) => e.type)).toEqual(['run.completed']);
    await store.close();
  });

  it('applies pending migrations in order, once', () => {
    const db = openRaw(v1File());
    const v2: Migration = {
      version: SCHEMA_VERSION + 1,
      description: 'test: runs.note',
      up: (d) => d.exec('ALTER TABLE runs ADD COLUMN note TEXT'),
    };
    const v3: Migration = {
      version: SCHEMA_VERSION + 2,
      description: 'test: fill note',
      up: (d) => d.exec("UPDATE runs SET note = 'v3'"),
    };
    expect(migrate(db, [...MIGRATIONS, v2, v3])).toEqual({ from: 1, to: SCHEMA_VERSION + 2 });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION + 2);
    expect(db.prepare("SELECT note FROM runs WHERE run_id = 'run_v1'").get()).toEqual({ note: 'v3' });
    expect(migrate(db, [...MIGRATIONS, v2, v3])).toEqual({
      from: SCHEMA_VERSION + 2,
      to: SCHEMA_VERSION + 2,
    });
    db.close();
  });

  it('rolls a failing migration back whole', () => {
    const db = openRaw(v1File());
    const v2: Migration = {
      version: SCHEMA_VERSION + 1,
      description: 'test: half done',
      up: (d) => d.exec('CREATE TABLE extra (x); SELECT nope FROM missing'),
    };
    expect(() => migrate(db, [...MIGRATIONS, v2])).toThrow(/missing/);
    expect(schemaVersion(db)).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").get()).toBeUndefined();
    db.close();
  });

  it('refuses a database newer than the code, leaving it untouched', async () => {
    const path = newFile();
    await new SqliteStore({ path }).close();
    const db = openRaw(path);
    db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const error: unknown = (() => {
      try {
        return new SqliteStore({ path });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({ code: 'SCHEMA_TOO_NEW' });
    expect((error as Error).message).toContain(
      `schema version ${SCHEMA_VERSION + 1}, newer than this g2rain-agent-runtime supports (${SCHEMA_VERSION})`,
    );
    const check = openRaw(path);
    expect(schemaVersion(check)).toBe(SCHEMA_VERSION + 1);
    check.close();
    expect(existsSync(path)).toBe(true);
  });

  it('rejects a migration list with a gap', () => {
    const db = new DatabaseSync(':memory:');
    expect(() =>
      migrate(db, [MIGRATIONS[0]!, { version: 3, description: 'gap', up: () => undefined }]),
    ).toThrow(/expected 2/);
    db.close();
  });
});

function openRaw(path: string): DatabaseSync {
  return new DatabaseSync(path);
}

describe('the columns of a new run', () => {
  it('give every column of runs and run_definitions a value, and nothing else', () => {
    const db = openRaw(newFile().replace(/\/runtime\.db$/, '.db'));
    migrate(db);
    const columns = (table: string) =>
      (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name).sort();
    const run = newRun('run_columns', { tenant: 't', parentRunId: 'p' });
    expect(Object.keys(newRunParams(run, 3, '2026-01-01T00:00:00.000Z', 7)).sort()).toEqual(columns('runs'));
    expect([...RUN_COLUMNS].sort()).toEqual(columns('runs'));
    expect(Object.keys(definitionParams(run)).sort()).toEqual(columns('run_definitions'));
    db.close();
  });
});
