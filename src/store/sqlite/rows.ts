import type { SQLInputValue } from 'node:sqlite';
import type { EvidenceRecord } from '../../domain/run-state.js';
import { fromJson, toJson } from '../json.js';
import { patches } from '../checks.js';
import type { NewRun, RunPatch, RunRecord, RunStatus, StoredEvent, StoredMessage, Usage } from '../store.js';

/** A row of `runs` as node:sqlite returns it. */
export interface RunRow {
  run_id: string;
  parent_run_id: string | null;
  root_run_id: string;
  tenant: string | null;
  flow_id: string;
  flow_version: string;
  flow: string;
  flow_dir: string | null;
  model: string | null;
  input: string | null;
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
    flow: definition ? definition.flow : fromJson(row.flow),
    flowDir: row.flow_dir,
    model: row.model,
    input: definition ? definition.input : fromJson(row.input),
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

/** The columns of `runs`, in table order. */
export const RUN_COLUMNS = [
  'run_id',
  'parent_run_id',
  'root_run_id',
  'tenant',
  'flow_id',
  'flow_version',
  'flow',
  'flow_dir',
  'model',
  'input',
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
    flow: toJson(run.flow) ?? 'null',
    flow_dir: run.flowDir ?? null,
    model: run.model ?? null,
    input: toJson(run.input),
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

/**
 * Parameters of the compare-and-set update: for each patchable column a `set_x` flag (1 when the patch
 * sets it) and its value. Only the fields the patch sets are serialised.
 */
export function patchParams(patch: RunPatch): Params {
  const params: Params = {};
  const put = (field: keyof RunPatch, column: string, value: () => SQLInputValue): void => {
    const set = patches(patch, field);
    params[`set_${column}`] = set ? 1 : 0;
    params[column] = set ? value() : null;
  };
  put('status', 'status', () => patch.status ?? null);
  put('suspension', 'suspension', () => toJson(patch.suspension));
  put('reason', 'reason', () => patch.reason ?? null);
  put('failedNode', 'failed_node', () => patch.failedNode ?? null);
  put('message', 'message', () => patch.message ?? null);
  put('usage', 'usage', () => toJson(patch.usage) ?? 'null');
  put('outputs', 'outputs', () => toJson(patch.outputs) ?? 'null');
  put('state', 'state', () => toJson(patch.state));
  put('model', 'model', () => patch.model ?? null);
  put('leaseOwner', 'lease_owner', () => patch.leaseOwner ?? null);
  put('leaseExpiresAt', 'lease_expires_at', () => patch.leaseExpiresAt ?? null);
  return params;
}

/** The SET clause matching `patchParams`: a column keeps its value unless its flag is 1. */
export const PATCH_SET_SQL = [
  'status',
  'suspension',
  'reason',
  'failed_node',
  'message',
  'usage',
  'outputs',
  'state',
  'model',
  'lease_owner',
  'lease_expires_at',
]
  .map((c) => `${c} = CASE WHEN :set_${c} THEN :${c} ELSE ${c} END`)
  .join(',\n  ');

/** Parameters of `INSERT INTO events`. */
export function eventParams(event: StoredEvent): Params {
  return {
    run_id: event.runId,
    seq: event.seq,
    ts: event.ts,
    type: event.type,
    node_id: event.nodeId ?? null,
    body: JSON.stringify(event),
  };
}

/** Parameters of `INSERT INTO messages`. */
export function messageParams(runId: string, message: StoredMessage): Params {
  return { run_id: runId, node_run: message.nodeRun, idx: message.index, body: JSON.stringify(message) };
}

/** Parameters of `INSERT INTO evidence`. */
export function evidenceParams(runId: string, evidence: EvidenceRecord): Params {
  return {
    run_id: runId,
    id: evidence.id,
    tool: evidence.tool,
    node_id: evidence.nodeId,
    fingerprint: evidence.fingerprint,
    outcome: evidence.outcome,
    body: JSON.stringify(evidence),
  };
}

/** The value of a `body` column. */
export function parseBody<T>(row: { body: string }): T {
  return JSON.parse(row.body) as T;
}
