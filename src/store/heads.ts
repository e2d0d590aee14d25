import { decodeSuspension } from './document.js';
import { fromJson } from './json.js';
import { listConditions, listLimit, whereSql } from './shared.js';
import type { RunFilter, RunHead, RunStatus, Usage } from './store.js';

/**
 * Run listings in the SQL stores: only the columns a listing shows (`RunHead`), never the flow,
 * input or state of a run (a listing of 500 runs with 900 KB inputs parsed 450 MB on the thread that
 * serves every tenant).
 */

/** The columns of a run head, in `RUN_HEAD_FIELDS` order. */
export const HEAD_COLUMNS =
  'run_id, parent_run_id, root_run_id, tenant, flow_id, flow_version, status, suspension, reason, ' +
  'failed_node, message, usage, outputs, version, created_at, updated_at, ' +
  // Two short fields of the state document, extracted by the database (never decoded here whole).
  "state ->> 'reply' AS head_reply, state -> 'thread' ->> 'id' AS head_thread";

/** A run head's row: JSON columns as text (SQLite) or already parsed (PostgreSQL jsonb). */
export interface HeadRow {
  run_id: string;
  parent_run_id: string | null;
  root_run_id: string;
  tenant: string | null;
  flow_id: string;
  flow_version: string;
  status: string;
  suspension: unknown;
  reason: string | null;
  failed_node: string | null;
  message: string | null;
  usage: unknown;
  outputs: unknown;
  version: number | string;
  created_at: string | Date;
  updated_at: string | Date;
  head_reply: string | null;
  head_thread: string | null;
}

/**
 * The SQL of a head listing of table `runs` (schema-qualified for PostgreSQL), with its parameters
 * bound by `bind`; `tieBreak` orders runs created at the same time (newest first).
 */
export function headsSql(
  runs: string,
  filter: RunFilter,
  bind: (value: string | number) => string,
  tieBreak: string,
  columns: string = HEAD_COLUMNS,
): string {
  const where = listConditions(filter, bind);
  const max = listLimit(filter);
  const limit = max === null ? '' : ` LIMIT ${bind(max)}`;
  return `SELECT ${columns} FROM ${runs} ${whereSql(where)} ORDER BY created_at DESC, ${tieBreak} DESC${limit}`;
}

/** HEAD_COLUMNS without the two fields of the state document (read run by run, see `sqliteHeads`). */
const HEAD_COLUMNS_BUT_STATE = HEAD_COLUMNS.replace(
  /state ->> 'reply' AS head_reply, state -> 'thread' ->> 'id' AS head_thread$/,
  'NULL AS head_reply, NULL AS head_thread',
);

/** The two fields of one run's state document a head shows. */
const STATE_FIELDS_SQL = `SELECT state ->> 'reply' AS head_reply, state -> 'thread' ->> 'id' AS head_thread FROM runs WHERE run_id = ?1`;

/** How long a listing may hold the event loop before other requests get a turn (ms). */
const HEADS_SLICE_MS = 10;

/** The head a row holds (`parse` turns a JSON column into its value). */
export function headFromRow(row: HeadRow, parse: (value: unknown) => unknown = textJson): RunHead {
  return {
    runId: row.run_id,
    parentRunId: row.parent_run_id,
    rootRunId: row.root_run_id,
    tenant: row.tenant,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    status: row.status as RunStatus,
    suspension: decodeSuspension(parse(row.suspension), row.run_id),
    reason: row.reason,
    failedNode: row.failed_node,
    message: row.message,
    usage: parse(row.usage) as Usage,
    outputs: parse(row.outputs) as Record<string, Record<string, unknown>>,
    version: Number(row.version),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    reply: row.head_reply ?? null,
    threadId: row.head_thread ?? null,
  };
}

/** A JSON text column's value (null stays null). */
function textJson(value: unknown): unknown {
  return typeof value === 'string' ? fromJson(value) : value;
}

function isoTime(value: Date | string): string {
  if (typeof value === 'string' && /T.*Z$/.test(value)) return value;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * The heads of a SQLite store's runs (`all` runs a prepared statement). SQLite runs on the thread that
 * serves every tenant, and reading a field of a run's state parses the whole document (its input's
 * texts included: ~1 MB for a run with a 900 KB input). So the heads are read without those fields,
 * then each run's `reply` and thread one run at a time, letting other requests have a turn every
 * HEADS_SLICE_MS: a listing of 150 such runs no longer holds the others for a second.
 */
export async function sqliteHeads(
  filter: RunFilter,
  all: (sql: string, params: (string | number)[]) => unknown[],
): Promise<RunHead[]> {
  const params: (string | number)[] = [];
  const sql = headsSql('runs', filter, (value) => `?${params.push(value)}`, 'rowid', HEAD_COLUMNS_BUT_STATE);
  const rows = all(sql, params) as HeadRow[];
  let since = performance.now();
  for (const row of rows) {
    if (performance.now() - since >= HEADS_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    const fields = all(STATE_FIELDS_SQL, [row.run_id])[0] as
      Pick<HeadRow, 'head_reply' | 'head_thread'> | undefined;
    row.head_reply = fields?.head_reply ?? null;
    row.head_thread = fields?.head_thread ?? null;
  }
  return rows.map((row) => headFromRow(row));
}
