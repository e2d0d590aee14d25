import type { SQLInputValue, StatementSync } from 'node:sqlite';
import type { ThreadFilter, ThreadRecord } from '../store.js';
import { tenantKey, tenantOf, threadLimit } from '../threads.js';

/** A `threads` row (schema v3). */
interface ThreadRow {
  tenant: string;
  thread_id: string;
  run_ids: string;
  created_at: string;
  updated_at: string;
}

const SQL = {
  insert:
    'INSERT INTO threads (tenant, thread_id, run_ids, last_run_id, created_at, updated_at) ' +
    'VALUES (?1, ?2, json_array(?3), ?3, ?4, ?4) ON CONFLICT DO NOTHING RETURNING *',
  append:
    "UPDATE threads SET run_ids = json_insert(run_ids, '$[#]', ?3), last_run_id = ?3, updated_at = ?4 " +
    'WHERE tenant = ?1 AND thread_id = ?2 AND last_run_id = ?5 RETURNING *',
  get: 'SELECT * FROM threads WHERE tenant = ?1 AND thread_id = ?2',
  list: 'SELECT * FROM threads WHERE tenant = ?1 ORDER BY updated_at DESC, thread_id ASC LIMIT ?2',
  listAfter:
    'SELECT * FROM threads WHERE tenant = ?1 AND (updated_at < ?3 OR (updated_at = ?3 AND thread_id > ?4)) ' +
    'ORDER BY updated_at DESC, thread_id ASC LIMIT ?2',
} as const;

/** The thread operations of SqliteStore over its prepared statements (each one statement: atomic). */
export class SqliteThreads {
  constructor(
    private readonly stmt: (sql: string) => StatementSync,
    private readonly now: () => Date,
  ) {}

  append(tenant: string | null, threadId: string, runId: string, after: string | null): ThreadRecord | null {
    const ts = this.now().toISOString();
    const key = tenantKey(tenant);
    const row =
      after === null
        ? this.stmt(SQL.insert).get(key, threadId, runId, ts)
        : this.stmt(SQL.append).get(key, threadId, runId, ts, after);
    return row ? threadFromRow(row as unknown as ThreadRow) : null;
  }

  get(tenant: string | null, threadId: string): ThreadRecord | null {
    const row = this.stmt(SQL.get).get(tenantKey(tenant), threadId);
    return row ? threadFromRow(row as unknown as ThreadRow) : null;
  }

  list(filter: ThreadFilter): ThreadRecord[] {
    const params: SQLInputValue[] = [tenantKey(filter.tenant), threadLimit(filter)];
    if (filter.after) params.push(filter.after.updatedAt, filter.after.threadId);
    const rows = this.stmt(filter.after ? SQL.listAfter : SQL.list).all(...params);
    return (rows as unknown as ThreadRow[]).map(threadFromRow);
  }
}

function threadFromRow(row: ThreadRow): ThreadRecord {
  return {
    threadId: row.thread_id,
    tenant: tenantOf(row.tenant),
    runIds: JSON.parse(row.run_ids) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
