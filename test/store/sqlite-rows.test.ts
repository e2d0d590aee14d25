import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSqlite } from '../../src/store/sqlite/load.js';
import {
  RUN_COLUMNS,
  commitUpdate,
  definitionParams,
  newRunParams,
  runFromRow,
  type RunRow,
} from '../../src/store/sqlite/rows.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { StoreError } from '../../src/store/store.js';
import { event, newRun, runState } from './store.contract.js';

/**
 * The rows of the SQLite store (src/store/sqlite/rows.ts): the parameters of a new run, the
 * compare-and-set commit statement (run against a real file), and a stored row as a RunRecord; and
 * how node:sqlite is loaded (load.ts).
 */

const root = mkdtempSync(join(tmpdir(), 'sqlite-rows-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
let files = 0;
const newFile = (): string => join(root, `db${++files}.db`);

const WHERE: Parameters<typeof commitUpdate>[1] = {
  runId: 'r1',
  expectedVersion: 3,
  firstSeq: null,
  newLastSeq: null,
  updatedAt: '2026-01-02T00:00:00.000Z',
  appends: false,
};

describe('commitUpdate', () => {
  it('for an empty patch only bumps the version, moves last_seq and the time, at the expected version', () => {
    expect(commitUpdate({}, WHERE)).toEqual({
      sql:
        'UPDATE runs SET version = version + 1, last_seq = coalesce(?1, last_seq), updated_at = ?2 ' +
        'WHERE run_id = ?3 AND version = ?4 AND (?5 IS NULL OR ?5 > last_seq) RETURNING *',
      values: [null, '2026-01-02T00:00:00.000Z', 'r1', 3, null],
    });
  });

  it('numbers the set columns in the fixed column order, whatever the patch’s key order', () => {
    const { sql, values } = commitUpdate(
      { leaseOwner: 'me', status: 'completed', usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
      { ...WHERE, firstSeq: 8, newLastSeq: 9 },
    );
    expect(sql).toBe(
      'UPDATE runs SET status = ?1, usage = ?2, lease_owner = ?3, version = version + 1, ' +
        'last_seq = coalesce(?4, last_seq), updated_at = ?5 WHERE run_id = ?6 AND version = ?7 ' +
        'AND (?8 IS NULL OR ?8 > last_seq) RETURNING *',
    );
    expect(values).toEqual([
      'completed',
      '{"inputTokens":1,"outputTokens":2,"totalTokens":3}',
      'me',
      9,
      '2026-01-02T00:00:00.000Z',
      'r1',
      3,
      8,
    ]);
  });

  it('sets a field given as null (clearing it) but not one given as undefined', () => {
    const { sql, values } = commitUpdate(
      { leaseOwner: null, leaseExpiresAt: undefined, reason: null },
      WHERE,
    );
    expect(sql).toMatch(/^UPDATE runs SET reason = \?1, lease_owner = \?2, version = version \+ 1,/);
    expect(sql).not.toContain('lease_expires_at');
    expect(values.slice(0, 2)).toEqual([null, null]);
  });

  it('moves the journal head when the commit appends, and returns every column but the state it wrote', () => {
    const appending = commitUpdate({}, { ...WHERE, appends: true }).sql;
    expect(appending).toContain(
      'journal_prev = journal_head, journal_head = (SELECT coalesce(max(pos), 0) + 1 FROM journal)',
    );
    expect(appending.endsWith('RETURNING *')).toBe(true);
    const withState = commitUpdate({ state: runState('r1') }, WHERE).sql;
    expect(withState.endsWith(`RETURNING ${RUN_COLUMNS.filter((c) => c !== 'state').join(', ')}`)).toBe(true);
    expect(withState).toMatch(/^UPDATE runs SET state = \?1, version/);
  });

  it('builds the SQL once per set of fields (the same string again), whatever the values', () => {
    const a = commitUpdate({ status: 'running', message: 'x' }, WHERE);
    const b = commitUpdate({ message: 'y', status: 'failed' }, { ...WHERE, runId: 'other', appends: false });
    expect(b.sql).toBe(a.sql);
    expect(commitUpdate({ status: 'running' }, { ...WHERE, appends: true }).sql).not.toBe(a.sql);
  });

  it('runs against a real file: lands only at the expected version and above the stored seq', async () => {
    const path = newFile();
    const store = new SqliteStore({ path });
    await store.createRun(newRun('r1'), [event('r1', 1), event('r1', 2)]);
    await store.close();
    const db = new DatabaseSync(path);
    try {
      const run = (patch: Parameters<typeof commitUpdate>[0], where: Partial<typeof WHERE>) => {
        const { sql, values } = commitUpdate(patch, { ...WHERE, expectedVersion: 1, ...where });
        return db.prepare(sql).get(...values) as RunRow | undefined;
      };
      expect(run({ status: 'failed' }, { expectedVersion: 2 })).toBeUndefined();
      expect(run({ status: 'failed' }, { firstSeq: 2, newLastSeq: 3 })).toBeUndefined();
      const row = run({ status: 'failed', message: 'boom' }, { firstSeq: 3, newLastSeq: 4, appends: true });
      expect(row).toMatchObject({
        status: 'failed',
        message: 'boom',
        version: 2,
        last_seq: 4,
        updated_at: WHERE.updatedAt,
        journal_prev: 1,
        journal_head: 2,
      });
      // Without events the stored last seq stays.
      expect(run({}, { expectedVersion: 2 })).toMatchObject({ version: 3, last_seq: 4, journal_head: 2 });
      const withState = run({ state: runState('r1', { modelCalls: 5 }) }, { expectedVersion: 3 });
      expect(withState).toBeDefined();
      expect(Object.keys(withState ?? {})).not.toContain('state');
    } finally {
      db.close();
    }
  });
});

describe('newRunParams and definitionParams', () => {
  it('start a run at version 1 with one timestamp, its journal head, and no definition column', () => {
    const run = newRun('r9', { tenant: 'acme', parentRunId: 'p1', rootRunId: 'p0' });
    const params = newRunParams(run, 4, '2026-03-04T05:06:07.000Z', 11);
    expect(params).toMatchObject({
      run_id: 'r9',
      parent_run_id: 'p1',
      root_run_id: 'p0',
      tenant: 'acme',
      version: 1,
      last_seq: 4,
      created_at: '2026-03-04T05:06:07.000Z',
      updated_at: '2026-03-04T05:06:07.000Z',
      journal_head: 11,
      journal_prev: null,
      suspension: null,
      usage: '{"inputTokens":0,"outputTokens":0,"totalTokens":0}',
      outputs: '{}',
    });
    expect(params).not.toHaveProperty('flow');
    expect(params).not.toHaveProperty('input');
    expect(JSON.parse(params.state as string)).toEqual(runState('r9'));
    expect(newRunParams(run, 0, 't', null).journal_head).toBeNull();
  });

  it('keep the flow and input as JSON text, and an absent input as NULL', () => {
    const run = newRun('r9');
    expect(definitionParams(run)).toEqual({
      run_id: 'r9',
      flow: JSON.stringify(run.flow),
      input: '{"text":"create a site"}',
    });
    expect(definitionParams(newRun('r9', { input: undefined })).input).toBeNull();
    expect(definitionParams(newRun('r9', { input: null })).input).toBeNull();
    expect(definitionParams(newRun('r9', { input: 'plain' })).input).toBe('"plain"');
  });
});

describe('runFromRow', () => {
  const definition = { flow: newRun('r1').flow, input: { text: 'hi' } };
  const row = (fields: Partial<RunRow> = {}): RunRow => ({
    run_id: 'r1',
    parent_run_id: null,
    root_run_id: 'r1',
    tenant: 't',
    flow_id: 'site-setup',
    flow_version: '1',
    flow_dir: '/flows',
    model: 'scripted:/x.json',
    status: 'running',
    suspension: null,
    reason: null,
    failed_node: null,
    message: null,
    usage: '{"inputTokens":1,"outputTokens":2,"totalTokens":3}',
    outputs: '{"query":{"n":1}}',
    state: JSON.stringify(runState('r1')),
    version: 4,
    last_seq: 9,
    lease_owner: 'me',
    lease_expires_at: 1234,
    created_at: 'c',
    updated_at: 'u',
    journal_head: 3,
    journal_prev: 2,
    ...fields,
  });

  it('maps every column, decoding the JSON ones, and takes flow and input from the definition', () => {
    expect(runFromRow(row(), definition)).toEqual({
      runId: 'r1',
      parentRunId: null,
      rootRunId: 'r1',
      tenant: 't',
      flowId: 'site-setup',
      flowVersion: '1',
      flow: definition.flow,
      flowDir: '/flows',
      model: 'scripted:/x.json',
      input: { text: 'hi' },
      status: 'running',
      suspension: null,
      reason: null,
      failedNode: null,
      message: null,
      usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
      outputs: { query: { n: 1 } },
      state: runState('r1'),
      version: 4,
      lastSeq: 9,
      leaseOwner: 'me',
      leaseExpiresAt: 1234,
      createdAt: 'c',
      updatedAt: 'u',
    });
  });

  it('hands back the caller’s own state document without decoding the column', () => {
    const own = runState('r1', { modelCalls: 7 });
    // The row returned after a state write has no state column at all.
    const record = runFromRow(row({ state: undefined as unknown as null }), definition, own);
    expect(record.state).toBe(own);
  });

  it('refuses a stored state that is not a document with StoreError BAD_DOCUMENT naming the run', () => {
    const error = (() => {
      try {
        runFromRow(row({ state: '[]' }), definition);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(StoreError);
    expect(error).toMatchObject({
      code: 'BAD_DOCUMENT',
      message: 'run r1 cannot be read: its state is not a JSON object',
    });
    expect(() => runFromRow(row({ state: '{"run":{}}' }), definition)).toThrow(
      'run r1 cannot be read: its state has no schema version',
    );
    expect(() =>
      runFromRow(row({ state: JSON.stringify({ ...runState('r1'), schema: 99 }) }), definition),
    ).toThrow(expect.objectContaining({ code: 'DOCUMENT_TOO_NEW' }));
  });

  it('refuses a suspension of no known shape with BAD_DOCUMENT', () => {
    expect(() => runFromRow(row({ suspension: '{"kind":"NOPE"}' }), definition)).toThrow(
      expect.objectContaining({ code: 'BAD_DOCUMENT' }),
    );
  });
});

describe('loadSqlite', () => {
  it('gives node:sqlite itself, whose databases work', () => {
    const sqlite = loadSqlite();
    expect(sqlite.DatabaseSync).toBe(DatabaseSync);
    expect(loadSqlite()).toBe(sqlite);
    const db = new sqlite.DatabaseSync(':memory:');
    try {
      expect(db.prepare('SELECT 6 * 7 AS n').get()).toEqual({ n: 42 });
    } finally {
      db.close();
    }
  });
});
