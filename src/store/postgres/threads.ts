import type { ThreadFilter, ThreadRecord } from '../store.js';
import { tenantKey, tenantOf, threadLimit } from '../threads.js';
import type { QueryRunner } from './queryable.js';

/** A `threads` row (schema v3); `run_ids` arrives parsed (jsonb). */
interface PgThreadRow {
  tenant: string;
  thread_id: string;
  run_ids: string[];
  created_at: string;
  updated_at: string;
}

/** The thread operations of PostgresStore (each one statement: atomic). `s` is the quoted schema. */
export class PgThreads {
  constructor(
    private readonly db: () => QueryRunner,
    private readonly s: string,
    private readonly now: () => Date,
  ) {}

  async append(
    tenant: string | null,
    threadId: string,
    runId: string,
    after: string | null,
  ): Promise<ThreadRecord | null> {
    const ts = this.now().toISOString();
    const sql =
      after === null
        ? `INSERT INTO ${this.s}.threads (tenant, thread_id, run_ids, last_run_id, created_at, updated_at) ` +
          `VALUES ($1, $2, jsonb_build_array($3::text), $3, $4, $4) ON CONFLICT DO NOTHING RETURNING *`
        : `UPDATE ${this.s}.threads SET run_ids = run_ids || jsonb_build_array($3::text), last_run_id = $3, ` +
          `updated_at = $4 WHERE tenant = $1 AND thread_id = $2 AND last_run_id = $5 RETURNING *`;
    const params = [tenantKey(tenant), threadId, runId, ts, ...(after === null ? [] : [after])];
    const row = (await this.db().query<PgThreadRow>(sql, params)).rows[0];
    return row ? threadFromRow(row) : null;
  }

  async get(tenant: string | null, threadId: string): Promise<ThreadRecord | null> {
    const sql = `SELECT * FROM ${this.s}.threads WHERE tenant = $1 AND thread_id = $2`;
    const row = (await this.db().query<PgThreadRow>(sql, [tenantKey(tenant), threadId])).rows[0];
    return row ? threadFromRow(row) : null;
  }

  async list(filter: ThreadFilter): Promise<ThreadRecord[]> {
    const params: unknown[] = [tenantKey(filter.tenant), threadLimit(filter)];
    let cursor = '';
    if (filter.after) {
      params.push(filter.after.updatedAt, filter.after.threadId);
      cursor = ' AND (updated_at < $3 OR (updated_at = $3 AND thread_id > $4))';
    }
    const sql =
      `SELECT * FROM ${this.s}.threads WHERE tenant = $1${cursor} ` +
      'ORDER BY updated_at DESC, thread_id ASC LIMIT $2';
    return (await this.db().query<PgThreadRow>(sql, params)).rows.map(threadFromRow);
  }
}

function threadFromRow(row: PgThreadRow): ThreadRecord {
  return {
    threadId: row.thread_id,
    tenant: tenantOf(row.tenant),
    runIds: typeof row.run_ids === 'string' ? (JSON.parse(row.run_ids) as string[]) : row.run_ids,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
