import { isAbsolute, join, resolve } from 'node:path';
import { MemoryStore } from './memory.js';
import type { Durability } from './sqlite/sqlite-store.js';
import { StoreError, type Store } from './store.js';

/** The store used when neither `--db` nor `AGENT_RUNTIME_DB` says otherwise (relative to the cwd). */
export const DEFAULT_DB_URL = 'sqlite:.agent-runtime/runtime.db';

/** Options of `openStore`. Options that do not apply to the store kind are ignored. */
export interface OpenStoreOptions {
  /** The folder relative `sqlite:` paths resolve against. Default `process.cwd()`. */
  cwd?: string;
  /** SQLite durability (docs/durability.md, `--durability strict`). Default `normal`. */
  durability?: Durability;
  /** SQLite busy timeout, ms. */
  busyTimeoutMs?: number;
  /** The clock for record timestamps. */
  now?: () => Date;
}

/** What a store URL names. */
export type StoreLocation =
  { kind: 'memory' } | { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/**
 * Reads a store URL: `memory`; `sqlite:PATH` (relative to `cwd`, also `sqlite://PATH`, and
 * `sqlite::memory:`); `postgres://…` / `postgresql://…`. Throws StoreError `BAD_URL` otherwise.
 */
export function parseStoreUrl(url: string, cwd: string = process.cwd()): StoreLocation {
  const text = url.trim();
  if (text === 'memory') return { kind: 'memory' };
  if (/^postgres(ql)?:\/\//i.test(text)) return { kind: 'postgres', url: text };
  if (text.toLowerCase().startsWith('sqlite:')) {
    let path = text.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2);
    if (path === '')
      throw new StoreError('BAD_URL', 'the store URL "sqlite:" names no file: use sqlite:PATH');
    if (path === ':memory:') return { kind: 'sqlite', path };
    return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(cwd, path) };
  }
  // Never echo the URL itself: it may carry a password.
  throw new StoreError(
    'BAD_URL',
    `unknown store URL scheme "${text.split(':')[0] ?? ''}": use memory, sqlite:PATH or postgres://…`,
  );
}

/**
 * The store URL a command uses (docs/cli.md): the `--db` value, else env `AGENT_RUNTIME_DB`, else
 * `sqlite:.agent-runtime/runtime.db` under `cwd`. Empty values count as absent. The default comes back
 * with an absolute path, so it does not move if the process changes directory.
 */
export function resolveDbUrl(
  options: { db?: string | undefined; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): string {
  const chosen = [options.db, (options.env ?? process.env).AGENT_RUNTIME_DB].find(
    (v): v is string => typeof v === 'string' && v.trim() !== '',
  );
  if (chosen !== undefined) return chosen.trim();
  return `sqlite:${join(options.cwd ?? process.cwd(), '.agent-runtime', 'runtime.db')}`;
}

/**
 * Opens the store a spec names: `'memory'` → MemoryStore; `'sqlite:PATH'` → SqliteStore (creating the
 * folder; migrating the schema); a Store object → itself. `postgres://…` will load the `./postgres`
 * subpath lazily (PostgresStore over a `pg` Pool, schema from `?schema=`, default `agent_runtime`).
 * SQLite and PostgreSQL are loaded only when asked for.
 */
export async function openStore(spec: string | Store, options: OpenStoreOptions = {}): Promise<Store> {
  if (typeof spec !== 'string') {
    if (!isStore(spec))
      throw new StoreError('BAD_URL', 'the store is neither a URL string nor a Store object');
    return spec;
  }
  const location = parseStoreUrl(spec, options.cwd);
  switch (location.kind) {
    case 'memory':
      return new MemoryStore({ ...(options.now ? { now: options.now } : {}) });
    case 'sqlite': {
      const { SqliteStore } = await import('./sqlite/sqlite-store.js');
      return new SqliteStore({ ...options, path: location.path });
    }
    case 'postgres': {
      const { createPostgresStore } = await import('./postgres/connect.js');
      return createPostgresStore(location.url, { ...(options.now ? { now: options.now } : {}) });
    }
  }
}

/** Whether a value has the methods of a Store. */
export function isStore(value: unknown): value is Store {
  if (typeof value !== 'object' || value === null) return false;
  const methods = [
    'createRun',
    'getRun',
    'listRuns',
    'commit',
    'events',
    'messages',
    'evidence',
    'acquireLease',
    'close',
  ];
  return methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function');
}
