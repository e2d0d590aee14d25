import pg from 'pg';
import { StoreError } from '../store.js';
import { PostgresStore } from './postgres-store.js';
import { pgliteQueryable, poolQueryable, type PGliteLike, type Queryable } from './queryable.js';
import { DEFAULT_PG_SCHEMA } from './schema.js';

/** A PostgreSQL URL split into what `pg` takes and the store's own `schema` parameter. */
export interface PgLocation {
  /** The URL without the `schema` query parameter (may carry a password: never print it). */
  connectionString: string;
  /** The `?schema=` parameter, else `agent_runtime`. */
  schema: string;
}

/** Reads `postgres://…[?schema=NAME]`. Throws StoreError `BAD_URL` for anything else. */
export function parsePgUrl(url: string): PgLocation {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch (error) {
    throw new StoreError(
      'BAD_URL',
      'the PostgreSQL URL cannot be parsed (expected postgres://user@host:port/db)',
      {
        cause: error,
      },
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new StoreError('BAD_URL', `not a PostgreSQL URL (scheme ${parsed.protocol})`);
  }
  const schema = parsed.searchParams.get('schema') ?? DEFAULT_PG_SCHEMA;
  parsed.searchParams.delete('schema');
  return { connectionString: parsed.toString(), schema };
}

/** Options of `createPostgresStore` besides where the database is. */
export interface CreatePostgresStoreOptions {
  /** The schema of the tables (overrides `?schema=`). Default `agent_runtime`. */
  schema?: string;
  /** Connections in the pool (`pg` only). Default 10. */
  poolSize?: number;
  /** The clock for record timestamps. */
  now?: () => Date;
}

/** Where a PostgresStore keeps its data: a URL, or an in-process PGlite instance (tests, embedding). */
export type PostgresTarget = string | { pglite: PGliteLike } | { db: Queryable };

/**
 * Opens a PostgresStore: `postgres://…` (a `pg` Pool the store owns and closes), `{ pglite }` (a
 * PGlite instance, left open on close so several stores can share it), or `{ db }` (a Queryable).
 * The schema is created or migrated before the promise resolves.
 */
export async function createPostgresStore(
  target: PostgresTarget,
  options: CreatePostgresStoreOptions = {},
): Promise<PostgresStore> {
  const now = options.now ? { now: options.now } : {};
  if (typeof target === 'string') {
    const location = parsePgUrl(target);
    const pool = new pg.Pool({ connectionString: location.connectionString, max: options.poolSize ?? 10 });
    pool.on('error', (error) => process.emitWarning(`PostgreSQL pool: ${error.message}`));
    try {
      return await PostgresStore.open({
        db: poolQueryable(pool),
        schema: options.schema ?? location.schema,
        ...now,
      });
    } catch (error) {
      throw unreachable(error, location.connectionString);
    }
  }
  const db = 'pglite' in target ? pgliteQueryable(target.pglite) : target.db;
  return PostgresStore.open({
    db,
    schema: options.schema ?? DEFAULT_PG_SCHEMA,
    ownsDb: !('pglite' in target),
    ...now,
  });
}

/** Error codes of a server that cannot be reached or refuses us (network, auth, missing database). */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '28P01',
  '28000',
  '3D000',
]);

/** A connection failure as StoreError `NOT_AVAILABLE`, naming host and database but never the password. */
function unreachable(error: unknown, connectionString: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !CONNECT_CODES.has(code)) return error;
  const url = new URL(connectionString);
  const where = `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  return new StoreError(
    'NOT_AVAILABLE',
    `cannot open the PostgreSQL store at ${where}: ${code} ${(error as Error).message}`,
    {
      cause: error,
    },
  );
}
