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

/** One run's head by rowid. */
const HEAD_BY_ROWID_SQL = `SELECT ${HEAD_COLUMNS} FROM runs WHERE rowid = ?1`;

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
 * serves every tenant, and a run's row is as large as its state document (its input's texts included:
 * ~1 MB for a run with a 900 KB input): reading the head columns stored after it, and the two fields
 * read from it, walks and parses the whole row. So the listing takes the runs' rowids first (from the
 * index), then each run's head one at a time, letting other requests have a turn every
 * HEADS_SLICE_MS: a listing of 150 such runs no longer holds the others for a second.
 */
export async function sqliteHeads(
  filter: RunFilter,
  all: (sql: string, params: (string | number)[]) => unknown[],
): Promise<RunHead[]> {
  const params: (string | number)[] = [];
  const sql = headsSql('runs', filter, (value) => `?${params.push(value)}`, 'rowid', 'rowid AS head_rowid');
  const ids = all(sql, params) as { head_rowid: number }[];
  const heads: RunHead[] = [];
  let since = performance.now();
  for (const { head_rowid: rowid } of ids) {
    if (performance.now() - since >= HEADS_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    // A run deleted meanwhile is left out, as if listed a moment later.
    const row = all(HEAD_BY_ROWID_SQL, [rowid])[0] as HeadRow | undefined;
    if (row) heads.push(headFromRow(row));
  }
  return heads;
}
