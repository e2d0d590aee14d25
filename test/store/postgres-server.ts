/**
 * The real PostgreSQL server the tests may use: env AGENT_RUNTIME_TEST_PG_URL, else
 * postgres://postgres@127.0.0.1:5432/test (CI runs one there). Tests that need it are skipped when it
 * does not answer; each test file works in schemas of its own and drops them afterwards.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server's URL (without a `schema` parameter). */
export const PG_URL = process.env.AGENT_RUNTIME_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * True when the server answers within a second. With env AGENT_RUNTIME_TEST_PG_REQUIRED=1 (CI) a
 * server that does not answer is an error instead of a reason to skip.
 */
export async function pgAvailable(url: string = PG_URL): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (error) {
    if (process.env.AGENT_RUNTIME_TEST_PG_REQUIRED === '1') {
      throw new Error(`PostgreSQL at ${new URL(url).host} is required (AGENT_RUNTIME_TEST_PG_REQUIRED=1)`, {
        cause: error,
      });
    }
    process.stderr.write(
      `PostgreSQL at ${new URL(url).host} not available, skipping: ${(error as Error).message}\n`,
    );
    return false;
  } finally {
    await client.end();
  }
}

/** Hands out fresh schema names with one prefix per test file, and drops them all at the end. */
export class SchemaPool {
  readonly prefix = `art_${randomBytes(4).toString('hex')}`;
  #count = 0;

  constructor(readonly url: string = PG_URL) {}

  /** A new schema name (not created: the store creates it). */
  next(label = 's'): string {
    return `${this.prefix}_${label}${++this.#count}`;
  }

  /** The server URL selecting a schema (`?schema=`). */
  urlFor(schema: string): string {
    const url = new URL(this.url);
    url.searchParams.set('schema', schema);
    return url.toString();
  }

  /** Drops every schema with this file's prefix. */
  async dropAll(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    try {
      const found = await client.query<{ nspname: string }>(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 || '\\_%'",
        [this.prefix],
      );
      for (const { nspname } of found.rows) await client.query(`DROP SCHEMA "${nspname}" CASCADE`);
    } finally {
      await client.end();
    }
  }
}
