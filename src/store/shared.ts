import { LRUCache } from 'lru-cache';
import type { Flow } from '../domain/flow.js';
import { checkEvents, patches } from './checks.js';
import { decodeFlow } from './document.js';
import { toJson } from './json.js';
import { versionConflict } from './store-error.js';
import type { Commit, NewRun, RunFilter, RunPatch } from './store.js';

/** What the three stores share beyond the checks: definitions, patch columns, lease and list SQL. */

/**
 * Freezes a JSON value and everything in it (shared read-only values: a run's flow and input). A value
 * already frozen is taken as frozen throughout (this function's own result), so a shared part is walked once.
 */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** What a run was started with; it never changes after creation. */
export interface Definition {
  flow: Flow;
  input: unknown;
}

/**
 * The decoded, frozen definitions of the runs a store touched lately (at most `size` of them and about
 * `maxBytes` of their JSON text, oldest evicted first): a step's commit then neither parses nor
 * decodes the flow again, and the Store contract lets these be handed out read-only and shared. The
 * byte bound keeps a tenant's large inline flows from filling the process.
 */
export class DefinitionCache {
  readonly #entries: LRUCache<string, Definition>;

  constructor(size = 1000, maxBytes = 16 * 1024 * 1024) {
    // One larger than the whole budget counts as the whole budget: it is kept, alone (the newest
    // definition is always held).
    this.#entries = new LRUCache({ max: size, maxSize: maxBytes, maxEntrySize: maxBytes });
    this.maxBytes = maxBytes;
  }

  private readonly maxBytes: number;

  get(runId: string): Definition | undefined {
    return this.#entries.get(runId);
  }

  /** How many definitions are held, and about how many bytes of JSON they came from. */
  get held(): { count: number; bytes: number } {
    return { count: this.#entries.size, bytes: this.#entries.calculatedSize };
  }

  /**
   * Decodes and remembers a run's stored definition; `bytes` is the length of its stored JSON text
   * when the caller has it (else it is measured). Throws StoreError `BAD_DOCUMENT`.
   */
  remember(runId: string, stored: { flow: unknown; input: unknown }, bytes?: number): Definition {
    const definition = { flow: deepFreeze(decodeFlow(stored.flow, runId)), input: deepFreeze(stored.input) };
    const size = bytes ?? jsonLength(stored.flow) + jsonLength(stored.input);
    this.#entries.set(runId, definition, { size: Math.min(Math.max(1, size), this.maxBytes) });
    return definition;
  }
}

function jsonLength(value: unknown): number {
  return typeof value === 'string' ? value.length : (JSON.stringify(value)?.length ?? 0);
}

/**
 * Throws why a compare-and-set commit matched no row, given the run's stored version and last seq
 * (undefined: no such run): a version conflict, else an append below the stored seq.
 */
export function refusedCommit(
  commit: Commit,
  current: { version: number; lastSeq: number } | undefined,
): never {
  if (!current || current.version !== commit.expectedVersion) {
    throw versionConflict(commit.runId, commit.expectedVersion, current?.version ?? null);
  }
  checkEvents(commit.runId, current.lastSeq, commit.events ?? []);
  throw new Error(`commit of run ${commit.runId} refused for no known reason`);
}

/** A patchable field: its column, its SQL type (PostgreSQL casts to it) and its stored value. */
export interface PatchColumn {
  field: keyof RunPatch;
  column: string;
  cast: 'text' | 'json' | 'bigint';
  value: (patch: RunPatch) => string | number | null;
}

/** The patchable fields, in a fixed order (the SQLite commit statement is cached per set of them). */
export const PATCH_COLUMNS: readonly PatchColumn[] = [
  { field: 'status', column: 'status', cast: 'text', value: (p) => p.status ?? null },
  { field: 'suspension', column: 'suspension', cast: 'json', value: (p) => toJson(p.suspension) },
  { field: 'reason', column: 'reason', cast: 'text', value: (p) => p.reason ?? null },
  { field: 'failedNode', column: 'failed_node', cast: 'text', value: (p) => p.failedNode ?? null },
  { field: 'message', column: 'message', cast: 'text', value: (p) => p.message ?? null },
  { field: 'usage', column: 'usage', cast: 'json', value: (p) => toJson(p.usage) ?? 'null' },
  { field: 'outputs', column: 'outputs', cast: 'json', value: (p) => toJson(p.outputs) ?? 'null' },
  { field: 'state', column: 'state', cast: 'json', value: (p) => toJson(p.state) },
  { field: 'model', column: 'model', cast: 'text', value: (p) => p.model ?? null },
  { field: 'leaseOwner', column: 'lease_owner', cast: 'text', value: (p) => p.leaseOwner ?? null },
  {
    field: 'leaseExpiresAt',
    column: 'lease_expires_at',
    cast: 'bigint',
    value: (p) => p.leaseExpiresAt ?? null,
  },
];

/** A column of a new run: its name, its SQL type (PostgreSQL casts to it) and its stored value. */
export interface NewRunColumn {
  column: string;
  cast: 'text' | 'json' | 'integer' | 'bigint' | 'timestamptz';
  value: (run: NewRun, at: { lastSeq: number; ts: string }) => string | number | null;
}

/**
 * Every column of a new run, in PostgreSQL's insert order (SQLite keeps `flow` and `input` in
 * `run_definitions`): JSON columns as text, a fresh run at version 1.
 */
export const NEW_RUN_COLUMNS: readonly NewRunColumn[] = [
  { column: 'run_id', cast: 'text', value: (r) => r.runId },
  { column: 'parent_run_id', cast: 'text', value: (r) => r.parentRunId ?? null },
  { column: 'root_run_id', cast: 'text', value: (r) => r.rootRunId },
  { column: 'tenant', cast: 'text', value: (r) => r.tenant ?? null },
  { column: 'flow_id', cast: 'text', value: (r) => r.flowId },
  { column: 'flow_version', cast: 'text', value: (r) => r.flowVersion },
  { column: 'flow', cast: 'json', value: (r) => toJson(r.flow) ?? 'null' },
  { column: 'flow_dir', cast: 'text', value: (r) => r.flowDir ?? null },
  { column: 'model', cast: 'text', value: (r) => r.model ?? null },
  { column: 'input', cast: 'json', value: (r) => toJson(r.input) },
  { column: 'status', cast: 'text', value: (r) => r.status },
  { column: 'suspension', cast: 'json', value: (r) => toJson(r.suspension) },
  { column: 'reason', cast: 'text', value: (r) => r.reason ?? null },
  { column: 'failed_node', cast: 'text', value: (r) => r.failedNode ?? null },
  { column: 'message', cast: 'text', value: (r) => r.message ?? null },
  { column: 'usage', cast: 'json', value: (r) => toJson(r.usage) ?? 'null' },
  { column: 'outputs', cast: 'json', value: (r) => toJson(r.outputs) ?? 'null' },
  { column: 'state', cast: 'json', value: (r) => toJson(r.state) },
  { column: 'version', cast: 'integer', value: () => 1 },
  { column: 'last_seq', cast: 'bigint', value: (_, at) => at.lastSeq },
  { column: 'lease_owner', cast: 'text', value: (r) => r.leaseOwner ?? null },
  { column: 'lease_expires_at', cast: 'bigint', value: (r) => r.leaseExpiresAt ?? null },
  { column: 'created_at', cast: 'timestamptz', value: (_, at) => at.ts },
  { column: 'updated_at', cast: 'timestamptz', value: (_, at) => at.ts },
];

/** The columns a run's definition is (what it was started with, written once). */
export const DEFINITION_COLUMNS: ReadonlySet<string> = new Set(['flow', 'input']);

/** The patch columns a patch sets (only those are serialised). */
export function patchedColumns(patch: RunPatch): PatchColumn[] {
  return PATCH_COLUMNS.filter((c) => patches(patch, c.field));
}

/** Whether no live lease holds a run at `now` (the in-memory form of `leaseFreeSql`). */
export function leaseFree(
  run: { leaseOwner: string | null; leaseExpiresAt: number | null },
  now: number,
): boolean {
  return run.leaseOwner === null || run.leaseExpiresAt === null || run.leaseExpiresAt <= now;
}

/** The SQL condition "no live lease holds the run at `now`" (expired means `expires <= now`). */
export function leaseFreeSql(now: string): string {
  return `(lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at <= ${now})`;
}

/** The SQL of `acquireLease`'s conditional update (parameters given as SQL placeholders). */
export function leaseSql(
  table: string,
  p: { runId: string; owner: string; expires: string; now: string; updatedAt: string },
): string {
  return (
    `UPDATE ${table} SET lease_owner = ${p.owner}, lease_expires_at = ${p.expires}, ` +
    `version = version + 1, updated_at = ${p.updatedAt} ` +
    `WHERE run_id = ${p.runId} AND (${leaseFreeSql(p.now)} OR lease_owner = ${p.owner})`
  );
}

/**
 * The SQL of `abandonedRuns`: top-level `running` runs no live lease holds at `now`, least recently
 * updated first, at most `limit`.
 */
export function abandonedSql(table: string, now: string, limit: string): string {
  return (
    `SELECT run_id FROM ${table} WHERE status = 'running' AND parent_run_id IS NULL ` +
    `AND ${leaseFreeSql(now)} ORDER BY updated_at, run_id LIMIT ${limit}`
  );
}

/** The WHERE conditions of `listRuns`; `bind` adds a parameter and returns its placeholder. */
export function listConditions(filter: RunFilter, bind: (value: string) => string): string[] {
  const where: string[] = [];
  if (filter.status !== undefined) where.push(`status = ${bind(filter.status)}`);
  if (filter.tenant === null) where.push('tenant IS NULL');
  else if (filter.tenant !== undefined) where.push(`tenant = ${bind(filter.tenant)}`);
  if (filter.parentRunId !== undefined) where.push(`parent_run_id = ${bind(filter.parentRunId)}`);
  return where;
}

/** `WHERE a AND b`, or nothing. */
export function whereSql(conditions: readonly string[]): string {
  return conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
}

/** A list limit as a non-negative integer, or null for none (also for a limit that is no finite number). */
export function listLimit(filter: RunFilter): number | null {
  const limit = filter.limit;
  return limit === undefined || !Number.isFinite(limit) ? null : Math.max(0, Math.trunc(limit));
}
