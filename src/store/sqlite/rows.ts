import type { SQLInputValue } from 'node:sqlite';
import { fromJson } from '../json.js';
import { patches } from '../checks.js';
import { decodeState, decodeSuspension } from '../document.js';
import { DEFINITION_COLUMNS, NEW_RUN_COLUMNS, PATCH_COLUMNS, type Definition } from '../shared.js';
import type { RunStateDoc } from '../../records/state-doc.js';
import type { NewRun, RunPatch, RunRecord, RunStatus, Usage } from '../store.js';

/** A row of `runs` as node:sqlite returns it. */
export interface RunRow {
  run_id: string;
  parent_run_id: string | null;
  root_run_id: string;
  tenant: string | null;
  flow_id: string;
  flow_version: string;
  /** From run_definitions (present when the query joined it). */
  flow?: string;
  flow_dir: string | null;
  model: string | null;
  /** From run_definitions (present when the query joined it). */
  input?: string | null;
  status: string;
  suspension: string | null;
  reason: string | null;
  failed_node: string | null;
  message: string | null;
  usage: string;
  outputs: string;
  state: string | null;
  version: number;
  last_seq: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  created_at: string;
  updated_at: string;
  /** The run's last journal row, and the one before it (journal.ts). */
  journal_head: number | null;
  journal_prev: number | null;
}

/** Named parameters for a statement. */
export type Params = Record<string, SQLInputValue>;

/**
 * The run a row holds. The definition comes decoded from the store's cache (it never changes); the
 * state is decoded here unless the caller hands back the document it just wrote (`ownState`).
 */
export function runFromRow(row: RunRow, definition: Definition, ownState?: RunStateDoc): RunRecord {
  return {
    runId: row.run_id,
    parentRunId: row.parent_run_id,
    rootRunId: row.root_run_id,
    tenant: row.tenant,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    flow: definition.flow,
    flowDir: row.flow_dir,
    model: row.model,
    input: definition.input,
    status: row.status as RunStatus,
    suspension: decodeSuspension(fromJson(row.suspension), row.run_id),
    reason: row.reason,
    failedNode: row.failed_node,
    message: row.message,
    usage: fromJson<Usage>(row.usage),
    outputs: fromJson<Record<string, Record<string, unknown>>>(row.outputs),
    state: ownState ?? decodeState(fromJson(row.state), row.run_id),
    version: row.version,
    lastSeq: row.last_seq,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns of `runs`, in table order (the flow and input are in `run_definitions`). */
export const RUN_COLUMNS = [
  'run_id',
  'parent_run_id',
  'root_run_id',
  'tenant',
  'flow_id',
  'flow_version',
  'flow_dir',
  'model',
  'status',
  'suspension',
  'reason',
  'failed_node',
  'message',
  'usage',
  'outputs',
  'state',
  'version',
  'last_seq',
  'lease_owner',
  'lease_expires_at',
  'created_at',
  'updated_at',
  'journal_head',
  'journal_prev',
] as const satisfies readonly (keyof RunRow)[];

/**
 * Parameters of `INSERT INTO runs` for a new run (one per column of RUN_COLUMNS); `journalHead` is
 * the position of its first journal row, if it starts with events.
 */
export function newRunParams(run: NewRun, lastSeq: number, ts: string, journalHead: number | null): Params {
  const params: Params = { journal_head: journalHead, journal_prev: null };
  for (const { column, value } of NEW_RUN_COLUMNS)
    if (!DEFINITION_COLUMNS.has(column)) params[column] = value(run, { lastSeq, ts });
  return params;
}

/** Parameters of `INSERT INTO run_definitions`: what a run was started with, written once. */
export function definitionParams(run: NewRun): Params {
  const params: Params = { run_id: run.runId };
  for (const { column, value } of NEW_RUN_COLUMNS)
    if (DEFINITION_COLUMNS.has(column)) params[column] = value(run, { lastSeq: 0, ts: '' });
  return params;
}

/**
 * The compare-and-set update of a commit: it sets exactly the columns the patch sets (an index on a
 * column that is not set is not touched), bumps the version and moves `last_seq`, only at the expected
 * version and only when the first new seq is above the stored one. A commit that appends moves the
 * run's journal head to the next journal position (its row is inserted there next; journal.ts). Only
 * the fields the patch sets are serialised. Parameters are positional (binding by name costs more per
 * statement than the rest of the work); the SQL depends only on which fields are set, so it is built,
 * and prepared, once each.
 */
export function commitUpdate(
  patch: RunPatch,
  where: {
    runId: string;
    expectedVersion: number;
    firstSeq: number | null;
    newLastSeq: number | null;
    updatedAt: string;
    appends: boolean;
  },
): { sql: string; values: SQLInputValue[] } {
  const values: SQLInputValue[] = [];
  let mask = where.appends ? 1 << PATCH_COLUMNS.length : 0;
  PATCH_COLUMNS.forEach((column, bit) => {
    if (!patches(patch, column.field)) return;
    mask |= 1 << bit;
    values.push(column.value(patch));
  });
  values.push(where.newLastSeq, where.updatedAt, where.runId, where.expectedVersion, where.firstSeq);
  return { sql: (COMMIT_SQL[mask] ??= commitSql(mask)), values };
}

/** The update's SQL per set of patched fields (a bit per PATCH_COLUMNS entry, then one for appends). */
const COMMIT_SQL: (string | undefined)[] = [];

function commitSql(mask: number): string {
  const assignments = PATCH_COLUMNS.filter((_, bit) => mask & (1 << bit)).map(
    ({ column }, i) => `${column} = ?${i + 1}`,
  );
  const n = assignments.length;
  assignments.push(
    'version = version + 1',
    `last_seq = coalesce(?${n + 1}, last_seq)`,
    `updated_at = ?${n + 2}`,
  );
  if (mask & (1 << PATCH_COLUMNS.length)) {
    assignments.push(
      'journal_prev = journal_head',
      'journal_head = (SELECT coalesce(max(pos), 0) + 1 FROM journal)',
    );
  }
  // A commit that writes the state hands the caller's own document back: the stored text, the biggest
  // column, is neither read back nor decoded.
  const stateBit = PATCH_COLUMNS.findIndex(({ field }) => field === 'state');
  const returning = mask & (1 << stateBit) ? RUN_COLUMNS.filter((c) => c !== 'state').join(', ') : '*';
  return (
    `UPDATE runs SET ${assignments.join(', ')} WHERE run_id = ?${n + 3} AND version = ?${n + 4} ` +
    `AND (?${n + 5} IS NULL OR ?${n + 5} > last_seq) RETURNING ${returning}`
  );
}
