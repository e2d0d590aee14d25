import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/store/memory.js';
import { DEFAULT_DB_URL, isStore, openStore, parseStoreUrl, resolveDbUrl } from '../../src/store/open.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { StoreError } from '../../src/store/store.js';
import { newRun } from './store.contract.js';

const root = mkdtempSync(join(tmpdir(), 'store-open-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));

async function storeError(promise: Promise<unknown>): Promise<StoreError> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  return error as StoreError;
}

describe('openStore', () => {
  it('opens memory', async () => {
    const store = await openStore('memory');
    expect(store).toBeInstanceOf(MemoryStore);
    await store.close();
  });

  it('opens sqlite:relative/path against cwd, creating the folder', async () => {
    const store = await openStore('sqlite:nested/deeper/runs.db', { cwd: root, durability: 'strict' });
    expect(store).toBeInstanceOf(SqliteStore);
    expect((store as SqliteStore).path).toBe(join(root, 'nested/deeper/runs.db'));
    expect((store as SqliteStore).info().synchronous).toBe('FULL');
    await store.createRun(newRun('r1'), []);
    await store.close();
    expect(existsSync(join(root, 'nested/deeper/runs.db'))).toBe(true);
  });

  it('opens sqlite:/absolute/path, and sees what an earlier store wrote there', async () => {
    const path = join(root, 'abs', 'runtime.db');
    const first = await openStore(`sqlite:${path}`);
    await first.createRun(newRun('r1'), []);
    await first.close();
    const second = await openStore(`sqlite://${path}`, { cwd: '/somewhere/else' });
    expect((await second.getRun('r1'))?.runId).toBe('r1');
    await second.close();
  });

  it('passes a Store object through', async () => {
    const mine = new MemoryStore();
    expect(await openStore(mine)).toBe(mine);
  });

  it('reports an unreachable PostgreSQL clearly and without echoing the password', async () => {
    const error = await storeError(openStore('postgres://admin:s3cret@127.0.0.1:1/runs'));
    expect(error.code).toBe('NOT_AVAILABLE');
    expect(error.message).toMatch(/^cannot open the PostgreSQL store at 127\.0\.0\.1:1\/runs: ECONNREFUSED/);
    expect(error.message).not.toMatch(/s3cret/);
    expect((await storeError(openStore('postgresql://admin:s3cret@127.0.0.1:1/x'))).code).toBe(
      'NOT_AVAILABLE',
    );
  });

  it('refuses unknown schemes, an empty sqlite path and non-stores', async () => {
    const bad = await storeError(openStore('mysql://root:pw@host/db'));
    expect(bad.code).toBe('BAD_URL');
    expect(bad.message).toMatch(/"mysql".*memory, sqlite:PATH or postgres/);
    expect(bad.message).not.toMatch(/pw@/);
    expect((await storeError(openStore('sqlite:'))).code).toBe('BAD_URL');
    expect((await storeError(openStore({} as never))).code).toBe('BAD_URL');
  });
});

describe('parseStoreUrl', () => {
  it('reads every form', () => {
    expect(parseStoreUrl('memory')).toEqual({ kind: 'memory' });
    expect(parseStoreUrl('sqlite::memory:')).toEqual({ kind: 'sqlite', path: ':memory:' });
    expect(parseStoreUrl('sqlite:a/b.db', '/base')).toEqual({ kind: 'sqlite', path: '/base/a/b.db' });
    expect(parseStoreUrl('sqlite:///x/y.db', '/base')).toEqual({ kind: 'sqlite', path: '/x/y.db' });
    expect(parseStoreUrl(' postgres://h/db ')).toEqual({ kind: 'postgres', url: 'postgres://h/db' });
  });
});

describe('resolveDbUrl', () => {
  it('prefers --db, then AGENT_RUNTIME_DB, then the default under cwd', () => {
    const env = { AGENT_RUNTIME_DB: 'sqlite:/env.db' };
    expect(resolveDbUrl({ db: 'memory', env, cwd: '/w' })).toBe('memory');
    expect(resolveDbUrl({ env, cwd: '/w' })).toBe('sqlite:/env.db');
    expect(resolveDbUrl({ db: '', env: { AGENT_RUNTIME_DB: ' ' }, cwd: '/w' })).toBe(
      'sqlite:/w/.agent-runtime/runtime.db',
    );
    expect(resolveDbUrl({ env: {}, cwd: '/w' })).toBe(
      `sqlite:${join('/w', DEFAULT_DB_URL.slice('sqlite:'.length))}`,
    );
  });
});

describe('isStore', () => {
  it('recognises stores by their methods', () => {
    expect(isStore(new MemoryStore())).toBe(true);
    expect(isStore({ getRun: () => null })).toBe(false);
    expect(isStore(null)).toBe(false);
  });
});
