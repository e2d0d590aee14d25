import { createHash } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';

/** The rows of one statement and how many rows it touched. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

/** Runs statements on one connection (inside a transaction, or on whichever connection is free). */
export interface QueryRunner {
  /** One statement with `$1…` parameters. Values arrive as the driver parses them (see `rows.ts`). */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

/**
 * The small query interface PostgresStore talks to, so that a `pg` Pool (many connections) and PGlite
 * (one in-process connection) both fit. Contract: `query` runs one statement atomically; `transaction`
 * runs `body` on one connection between BEGIN and COMMIT, rolls back when it throws (rethrowing the
 * error), and never interleaves another caller's statements with it (PGlite: callers wait their turn).
 */
export interface Queryable extends QueryRunner {
  transaction<T>(body: (tx: QueryRunner) => Promise<T>): Promise<T>;
  /** Releases the connections. Idempotent. */
  close(): Promise<void>;
}

/** The part of `pg.Pool` used here (so tests may pass a pool of their own). */
export type PgPoolLike = Pick<Pool, 'query' | 'connect' | 'end'>;

/**
 * A Queryable over a `pg` Pool: statements use any free connection, prepared once per connection
 * (named by a hash of their text); a transaction holds one connection.
 */
export function poolQueryable(pool: PgPoolLike): Queryable {
  let ended = false;
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const name = statementName(sql);
      const result = await pool.query(
        name === undefined
          ? { text: sql, values: params as unknown[] }
          : { name, text: sql, values: params as unknown[] },
      );
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
    async transaction<T>(body: (tx: QueryRunner) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        const result = await body(clientRunner(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        broken = await rollback(client, error);
        throw error;
      } finally {
        client.release(broken);
      }
    },
    async close(): Promise<void> {
      if (ended) return;
      ended = true;
      await pool.end();
    },
  };
}

/** Rolls back after `error`; returns the rollback's own error (the client is then discarded). */
async function rollback(client: PoolClient, error: unknown): Promise<Error | undefined> {
  try {
    await client.query('ROLLBACK');
    return undefined;
  } catch (rollbackError) {
    return new AggregateError([error, rollbackError], 'a transaction failed and could not be rolled back');
  }
}

function clientRunner(client: PoolClient): QueryRunner {
  return {
    async query<R>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
      const result = await client.query(sql, params as unknown[]);
      return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
    },
  };
}

/**
 * The part of a PGlite instance used here (`@electric-sql/pglite` is not a runtime dependency: pass
 * an instance you created). PGlite's own `transaction` takes its exclusive lock, so transactions
 * and statements of other callers queue behind it.
 */
export interface PGliteLike {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  transaction<T>(
    body: (tx: {
      query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
    }) => Promise<T>,
  ): Promise<T>;
  close(): Promise<void>;
  readonly closed?: boolean;
}

/**
 * A Queryable over one PGlite instance. `ownsConnection: false` (default) leaves the instance open on
 * `close()`, so several stores (one schema each) can share it.
 */
export function pgliteQueryable(db: PGliteLike, options: { ownsConnection?: boolean } = {}): Queryable {
  const run = async <R>(
    target: Pick<PGliteLike, 'query'>,
    sql: string,
    params: readonly unknown[],
  ): Promise<QueryResult<R>> => {
    const result = await target.query<R>(sql, [...params]);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };
  return {
    query: <R>(sql: string, params: readonly unknown[] = []) => run<R>(db, sql, params),
    transaction: <T>(body: (tx: QueryRunner) => Promise<T>) =>
      db.transaction((tx) =>
        body({ query: <R>(sql: string, params: readonly unknown[] = []) => run<R>(tx, sql, params) }),
      ),
    async close(): Promise<void> {
      if (options.ownsConnection && !db.closed) await db.close();
    },
  };
}

/** At most this many statement texts are prepared (per process; each connection prepares them once). */
const MAX_PREPARED = 500;
const names = new Map<string, string>();

/**
 * The name a statement is prepared under: statements are parsed and planned once per connection
 * instead of on every call (the store's statements come in a few shapes). Past `MAX_PREPARED`
 * distinct texts, new ones run unnamed (parsed each time) so that connections do not grow without end.
 */
function statementName(sql: string): string | undefined {
  let name = names.get(sql);
  if (name === undefined && names.size < MAX_PREPARED) {
    name = `ar_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    names.set(sql, name);
  }
  return name;
}
