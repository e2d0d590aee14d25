import type { SQLInputValue } from 'node:sqlite';
import { fromJson, toJson } from '../json.js';
import { patches } from '../checks.js';
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
}

/** Named parameters for a statement. */
export type Params = Record<string, SQLInputValue>;

/**
 * What a commit's answer may take from elsewhere instead of parsing the row again: the run's
 * definition (flow and input never change: parsed once, frozen, shared) and the state the caller
 * just wrote (its own object).
 */
export interface RowShortcuts {
  definition?: { flow: unknown; input: unknown };
  ownState?: { value: unknown };
}

/** The run a row holds; every object in it is freshly parsed and owned by the caller, except shortcuts. */
export function runFromRow(row: RunRow, shortcuts: RowShortcuts = {}): RunRecord {
  const definition = shortcuts.definition;
  return {
    runId: row.run_id,
    parentRunId: row.parent_run_id,
    rootRunId: row.root_run_id,
    tenant: row.tenant,
    flowId: row.flow_id,
    flowVersion: row.flow_version,
    flow: definition ? definition.flow : fromJson(row.flow ?? null),
    flowDir: row.flow_dir,
    model: row.model,
    input: definition ? definition.input : fromJson(row.input ?? null),
    status: row.status as RunStatus,
    suspension: fromJson(row.suspension),
    reason: row.reason,
    failedNode: row.failed_node,
    message: row.message,
    usage: fromJson<Usage>(row.usage),
    outputs: fromJson<Record<string, Record<string, unknown>>>(row.outputs),
    state: shortcuts.ownState ? shortcuts.ownState.value : fromJson(row.state),
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
] as const satisfies readonly (keyof RunRow)[];

/** Parameters of `INSERT INTO runs` for a new run (one per column of RUN_COLUMNS). */
export function newRunParams(
  run: NewRun,
  lastSeq: number,
  ts: string,
): Record<(typeof RUN_COLUMNS)[number], SQLInputValue> {
  return {
    run_id: run.runId,
    parent_run_id: run.parentRunId ?? null,
    root_run_id: run.rootRunId,
    tenant: run.tenant ?? null,
    flow_id: run.flowId,
    flow_version: run.flowVersion,
    flow_dir: run.flowDir ?? null,
    model: run.model ?? null,
    status: run.status,
    suspension: toJson(run.suspension),
    reason: run.reason ?? null,
    failed_node: run.failedNode ?? null,
    message: run.message ?? null,
    usage: toJson(run.usage) ?? 'null',
    outputs: toJson(run.outputs) ?? 'null',
    state: toJson(run.state),
    version: 1,
    last_seq: lastSeq,
    lease_owner: run.leaseOwner ?? null,
    lease_expires_at: run.leaseExpiresAt ?? null,
    created_at: ts,
    updated_at: ts,
  };
}

/** Parameters of `INSERT INTO run_definitions`: what a run was started with, written once. */
export function definitionParams(run: NewRun): Params {
  return { run_id: run.runId, flow: toJson(run.flow) ?? 'null', input: toJson(run.input) };
}

/** The patchable fields and their columns, with how each value is stored. */
const PATCH_COLUMNS: readonly (readonly [keyof RunPatch, string, (patch: RunPatch) => SQLInputValue])[] = [
  ['status', 'status', (p) => p.status ?? null],
  ['suspension', 'suspension', (p) => toJson(p.suspension)],
  ['reason', 'reason', (p) => p.reason ?? null],
  ['failedNode', 'failed_node', (p) => p.failedNode ?? null],
  ['message', 'message', (p) => p.message ?? null],
  ['usage', 'usage', (p) => toJson(p.usage) ?? 'null'],
  ['outputs', 'outputs', (p) => toJson(p.outputs) ?? 'null'],
  ['state', 'state', (p) => toJson(p.state)],
  ['model', 'model', (p) => p.model ?? null],
  ['leaseOwner', 'lease_owner', (p) => p.leaseOwner ?? null],
  ['leaseExpiresAt', 'lease_expires_at', (p) => p.leaseExpiresAt ?? null],
];

/**
 * The compare-and-set update of a commit: it sets exactly the columns the patch sets (an index on a
 * column that is not set is not touched), bumps the version and moves `last_seq`, only at the expected
 * version and only when the first new seq is above the stored one. Only the fields the patch sets are
 * serialised. The SQL depends only on which fields are set, so its prepared statement is reused.
 */
export function commitUpdate(patch: RunPatch): { sql: string; params: Params } {
  const assignments: string[] = [];
  const params: Params = {};
  for (const [field, column, value] of PATCH_COLUMNS) {
    if (!patches(patch, field)) continue;
    assignments.push(`${column} = :${column}`);
    params[column] = value(patch);
  }
  assignments.push('version = version + 1', 'last_seq = coalesce(:new_last_seq, last_seq)', 'updated_at = :updated_at');
  const sql =
    `UPDATE runs SET ${assignments.join(', ')} WHERE run_id = :run_id AND version = :expected_version ` +
    'AND (:first_seq IS NULL OR :first_seq > last_seq) RETURNING *';
  return { sql, params };
}
