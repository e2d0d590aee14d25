import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { event, evidence } from './store.contract.js';

const root = mkdtempSync(join(tmpdir(), 'store-sqlite-schema-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
let files = 0;
/** A path for a new database, in a folder that does not exist yet. */
const newFile = (): string => join(root, `db${++files}`, 'runtime.db');

describe('SqliteStore schema', () => {
  /** A new file at the current schema holding one run (`run_1`) written by the store. */
  async function currentFile(): Promise<string> {
    const path = newFile();
    const store = new SqliteStore({ path });
    await store.createRun(newRun('run_1'), [event('run_1', 1, 'run.started')]);
    await store.close();
    return path;
  }

  it('migrates a version 1 file with its runs to the current version: the run is kept and takes steering messages', async () => {
    const path = newFile();
    // A database written before steering: version 1 with a run on it.
    const v1 = new SqliteStore({ path });
    await v1.createRun(newRun('run_1'), [event('run_1', 1, 'run.started')]);
    await v1.close();
    const raw = new DatabaseSync(path);
    raw.exec('DROP TABLE run_messages; DROP TABLE webhook_deliveries; PRAGMA user_version = 1');
    raw.close();
    const store = new SqliteStore({ path });
    try {
      expect(store.info().schemaVersion).toBe(SCHEMA_VERSION);
      expect((await store.getRun('run_1'))?.status).toBe('running');
      const added = await store.addRunMessage(
        { runId: 'run_1', messageId: 'msg_1', text: 'hi', who: null, at: '2026-01-01T00:00:00.000Z' },
        { afterSeq: 0, maxPending: 20 },
      );
      expect(added).toMatchObject({ added: { seq: 1 } });
      expect(await store.runMessages('run_1')).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('creates a new database at the one current schema in one step', () => {
    const db = new DatabaseSync(':memory:');
    expect(SCHEMA_VERSION).toBe(3);
    expect(migrate(db)).toEqual({ from: 0, to: SCHEMA_VERSION });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
    const names = (
      db.prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all() as {
        type: string;
        name: string;
      }[]
    )
      .map((o) => `${o.type} ${o.name}`)
      .sort();
    expect(names).toEqual([
      'index runs_created',
      'index runs_parent',
      'index runs_status',
      'index runs_tenant',
      'index threads_updated',
      'index webhook_deliveries_due',
      'table journal',
      'table run_definitions',
      'table run_messages',
      'table runs',
      'table threads',
      'table webhook_deliveries',
      'view events',
      'view evidence',
      'view messages',
    ]);
    db.close();
  });

  it('keeps a run written by the store readable through the views', async () => {
    const path = await currentFile();
    const store = new SqliteStore({ path });
    await store.commit({
      runId: 'run_1',
      expectedVersion: 1,
      patch: {},
      events: [event('run_1', 2, 'tool.invoked')],
      evidence: [evidence(1)],
    });
    await store.close();
    const db = openRaw(path);
    expect(db.prepare("SELECT seq, type FROM events WHERE run_id = 'run_1' ORDER BY seq").all()).toEqual([
      { seq: 1, type: 'run.started' },
      { seq: 2, type: 'tool.invoked' },
    ]);
    expect(db.prepare("SELECT id FROM evidence WHERE run_id = 'run_1'").all()).toEqual([{ id: 'ev_1' }]);
    db.close();
  });

  it('upgrades a database of schema 2: its runs stay, the webhook outbox is added', async () => {
    // A file of schema 2 is one of today's without what version 3 added.
    const path = await currentFile();
    const v1 = openRaw(path);
    v1.exec('DROP TABLE webhook_deliveries');
    v1.exec('PRAGMA user_version = 2');
    v1.close();
    const store = new SqliteStore({ path });
    expect((await store.getRun('run_1'))?.runId).toBe('run_1');
    const createdAt = '2026-12-07T09:00:00.000Z';
    const row = {
      webhook: 'ops',
      eventId: 'e1',
      event: 'run.failed',
      runId: 'run_1',
      tenant: null,
      createdAt,
      body: '{}',
    };
    expect(await store.outbox.add([row])).toBe(1);
    await store.close();
    const db = openRaw(path);
    expect(schemaVersion(db)).toBe(3);
    db.close();
  });

  it('applies pending migrations in order, once', async () => {
    const db = openRaw(await currentFile());
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
    expect(migrate(db, [...MIGRATIONS, v2, v3])).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION + 2 });
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION + 2);
    expect(db.prepare("SELECT note FROM runs WHERE run_id = 'run_1'").get()).toEqual({ note: 'v3' });
    expect(migrate(db, [...MIGRATIONS, v2, v3])).toEqual({
      from: SCHEMA_VERSION + 2,
      to: SCHEMA_VERSION + 2,
    });
    db.close();
  });

  it('rolls a failing migration back whole', async () => {
    const db = openRaw(await currentFile());
    const v2: Migration = {
      version: SCHEMA_VERSION + 1,
      description: 'test: half done',
      up: (d) => d.exec('CREATE TABLE extra (x); SELECT nope FROM missing'),
    };
    expect(() => migrate(db, [...MIGRATIONS, v2])).toThrow(/missing/);
    expect(schemaVersion(db)).toBe(SCHEMA_VERSION);
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
