import type { EvidenceRecord } from '../../records/run-state.js';
import type { RunStateDoc } from '../../records/state-doc.js';
import { decodeState, decodeSuspension } from '../document.js';
import { NEW_RUN_COLUMNS, patchedColumns, type Definition, type NewRunColumn } from '../shared.js';
import type { NewRun, RunPatch, RunRecord, RunStatus, StoredEvent, StoredMessage, Usage } from '../store.js';

/**
 * A row of `runs` as a driver hands it back. `json` columns arrive parsed (fresh objects each time);
 * `bigint` columns as strings (`pg`) or numbers (PGlite); `timestamptz` as Date.
 */
export interface PgRunRow {
  run_id: string;
  parent_run_id: string | null;
  root_run_id: string;
  tenant: string | null;
  flow_id: string;
  flow_version: string;
  flow: unknown;
  flow_dir: string | null;
  model: string | null;
  input: unknown;
  status: string;
  suspension: unknown;
  reason: string | null;
  failed_node: string | null;
  message: string | null;
  usage: Usage;
  outputs: Record<string, Record<string, unknown>>;
  state: unknown;
  version: number | string;
  last_seq: number | string;
  lease_owner: string | null;
  lease_expires_at: number | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/** The columns that change over a run's life (everything but `flow` and `input`, and never `pos`). */
export const RUN_SELECT_MUTABLE =
  'run_id, parent_run_id, root_run_id, tenant, flow_id, flow_version, flow_dir, model, status, ' +
  'suspension, reason, failed_node, message, usage, outputs, state, version, last_seq, lease_owner, ' +
  'lease_expires_at, created_at, updated_at';

/** Every column of a run. */
export const RUN_SELECT = `${RUN_SELECT_MUTABLE}, flow, input`;

/**
 * The run a row holds, with its decoded definition (from the store's cache); the state is decoded here
 * unless the caller hands back the document it just wrote (`ownState`).
 */
export function runFromPgRow(
  row: PgRunRow | Omit<PgRunRow, 'flow' | 'input'>,
  parts: Definition,
  ownState?: RunStateDoc,
): RunRecord {
  return {
    runId: row.run_id,
    parentRunId: row.parent_run_id,
    rootRunId: row.root_run_id,
    tenant: row.tenant,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    flow: parts.flow,
    flowDir: row.flow_dir,
    model: row.model,
    input: parts.input,
    status: row.status as RunStatus,
    suspension: decodeSuspension(row.suspension, row.run_id),
    reason: row.reason,
    failedNode: row.failed_node,
    message: row.message,
    usage: row.usage,
    outputs: row.outputs,
    state: ownState ?? decodeState(row.state, row.run_id),
    version: Number(row.version),
    lastSeq: Number(row.last_seq),
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at === null ? null : Number(row.lease_expires_at),
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
  };
}

function isoTime(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/**
 * A text PostgreSQL accepts in `text` and `json`/`jsonb`: NUL (raw, or `\u0000` in JSON text) and lone
 * surrogates (raw, or `\udXXX` escapes: JSON.stringify writes only lone ones so) become U+FFFD. A
 * model-written fail reason with a NUL made every commit of its run fail, and the run stayed
 * `running` for good. JSON escapes are replaced only where the backslash is not itself escaped.
 */
export function pgText(text: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is what it replaces
  if (!/[\u0000\\\ud800-\udfff]/.test(text)) return text;
  return (
    text
      // eslint-disable-next-line no-control-regex -- NUL is what it replaces
      .replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
      .replace(/(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/gi, '$1\\ufffd')
  );
}

/** A column and the SQL cast of its parameter. */
interface Column {
  name: string;
  cast: string;
}

const col = (name: string, cast = 'text'): Column => ({ name, cast });

/** The columns of a new run with their values, in insert order (cast: the column's SQL type). */
export function newRunValues(run: NewRun, lastSeq: number, ts: string): [NewRunColumn, unknown][] {
  return NEW_RUN_COLUMNS.map((c) => [c, c.value(run, { lastSeq, ts })]);
}

/** Collects positional parameters: `add(v, 'json')` returns `$n::json`. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown, cast?: string): string {
    this.values.push(typeof value === 'string' ? pgText(value) : value);
    return cast ? `$${this.values.length}::${cast}` : `$${this.values.length}`;
  }
}

/** `col = $n::cast` for each field the patch sets (only those are serialised). */
export function patchAssignments(patch: RunPatch, params: Params): string[] {
  return patchedColumns(patch).map((c) => `${c.column} = ${params.add(c.value(patch), c.cast)}`);
}

/** One appended table: its columns (after `run_id`) and each row's values. */
export interface AppendRows {
  table: 'events' | 'messages' | 'evidence';
  columns: Column[];
  rows: unknown[][];
}

/** The rows of a commit's events. */
export function eventRows(events: readonly StoredEvent[]): AppendRows {
  return {
    table: 'events',
    columns: [
      col('seq', 'bigint'),
      col('ts', 'timestamptz'),
      col('type'),
      col('node_id'),
      col('body', 'json'),
    ],
    rows: events.map((e) => [e.seq, e.ts, e.type, e.nodeId ?? null, JSON.stringify(e)]),
  };
}

/** The rows of a commit's messages. */
export function messageRows(messages: readonly StoredMessage[]): AppendRows {
  return {
    table: 'messages',
    columns: [col('node_run'), col('idx', 'integer'), col('body', 'json')],
    rows: messages.map((m) => [m.nodeRun, m.index, JSON.stringify(m)]),
  };
}

/** The rows of a commit's evidence, in the order appended. */
export function evidenceRows(evidence: readonly EvidenceRecord[]): AppendRows {
  return {
    table: 'evidence',
    columns: [
      col('id'),
      col('tool'),
      col('node_id'),
      col('fingerprint'),
      col('outcome'),
      col('body', 'json'),
    ],
    rows: evidence.map((e) => [e.id, e.tool, e.nodeId, e.fingerprint, e.outcome, JSON.stringify(e)]),
  };
}

/**
 * `INSERT INTO s.table (run_id, …) SELECT … FROM (VALUES …) v WHERE <guard>`: one statement for a
 * whole batch; `guard` lets a commit insert only when its compare-and-set matched. Evidence keeps the
 * order of the batch (its `pos` follows the VALUES order through `ORDER BY`).
 */
export function insertBatch(
  schema: string,
  batch: AppendRows,
  runIdParam: string,
  params: Params,
  guard: string,
): string {
  const names = batch.columns.map((c) => c.name);
  const values = batch.rows.map(
    (row, i) => `(${i}, ${row.map((value, j) => params.add(value, batch.columns[j]?.cast)).join(', ')})`,
  );
  return (
    `INSERT INTO ${schema}.${batch.table} (run_id, ${names.join(', ')}) ` +
    `SELECT ${runIdParam}, ${names.map((n) => `v.${n}`).join(', ')} ` +
    `FROM (VALUES ${values.join(', ')}) AS v (ord, ${names.join(', ')}) WHERE ${guard} ORDER BY v.ord`
  );
}
