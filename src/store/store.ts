import type { WebhookOutbox } from './outbox.js';
import type { Flow } from '../domain/flow.js';
import type { EvidenceRecord } from '../records/run-state.js';
import type { RunStateDoc } from '../records/state-doc.js';
import type { RunSuspension } from '../records/pending.js';
import type { RunStatus, Usage } from '../records/summary.js';
import type { NewRunMessage, PendingLimit, RunMessage } from '../records/run-message.js';

export type { RunStatus, Usage };
export type { NewRunMessage, PendingLimit, RunMessage };

/**
 * What `addRunMessage` did: the message as kept (with its seq), or why nothing was kept — the run has
 * ended (`RUN_ENDED`: neither running nor suspended) or `maxPending` messages already wait to be read.
 */
export type AddRunMessageResult = { added: RunMessage } | { refused: 'RUN_ENDED' | 'PENDING_LIMIT' };

/**
 * A persisted trace event (docs/trace.md): `seq` per run, increasing from 1. The writer numbers events; a
 * commit's events must be above the run's `lastSeq` and increasing. Stored as JSON: fields that are
 * `undefined` are dropped.
 */
export interface StoredEvent {
  seq: number;
  ts: string;
  runId: string;
  type: string;
  nodeId?: string;
  round?: number;
  [field: string]: unknown;
}

/** A conversation message of a node run, in provider-neutral form. */
export interface StoredMessage {
  /** Which node run the message belongs to (`<nodeId>#<n>`). */
  nodeRun: string;
  /** Position within the node run, from 0. */
  index: number;
  message: unknown;
}

/** The persisted row of a run. `state` is the small mutable run state (no evidence, no messages). */
export interface RunRecord {
  runId: string;
  parentRunId: string | null;
  /** The run of the root of a delegation tree (itself when not delegated). */
  rootRunId: string;
  tenant: string | null;
  flowId: string;
  flowVersion: string;
  /** The flow as validated at start (JSON), so continuing commands need no flow argument.
   *  `flow` and `input` never change after creation; a store may hand them out frozen (read-only). */
  flow: Flow;
  /** Absolute folder of the flow file (relative MCP paths resolve there), or null for an inline flow. */
  flowDir: string | null;
  /** The model as given at start (a `scripted:` path made absolute), or null for an object model. */
  model: string | null;
  input: unknown;
  status: RunStatus;
  /** The pending item while suspended. */
  suspension: RunSuspension | null;
  reason: string | null;
  failedNode: string | null;
  message: string | null;
  usage: Usage;
  /** Outputs of completed nodes keyed by node id. */
  outputs: Record<string, Record<string, unknown>>;
  /** The small mutable state of the run (approvals, in-flight writes, node state, counters, …),
   *  decoded and upgraded to the current version when loaded (document.ts). */
  state: RunStateDoc;
  /** Compare-and-set version, increased by every commit. */
  version: number;
  /** The highest event seq written. */
  lastSeq: number;
  leaseOwner: string | null;
  /** Epoch milliseconds when the lease expires. */
  leaseExpiresAt: number | null;
  createdAt: string;
  updatedAt: string;
}

/** What `createRun` takes: a run without the fields the store sets. */
export type NewRun = Omit<RunRecord, 'version' | 'lastSeq' | 'createdAt' | 'updatedAt'>;

/** The fields of a run a commit may change; a field absent or `undefined` is left as it is. */
export type RunPatch = Partial<
  Pick<
    RunRecord,
    | 'status'
    | 'suspension'
    | 'reason'
    | 'failedNode'
    | 'message'
    | 'usage'
    | 'outputs'
    | 'state'
    | 'model'
    | 'leaseOwner'
    | 'leaseExpiresAt'
  >
>;

/** One atomic step: the run's new fields and what it appends, applied only at `expectedVersion`. */
export interface Commit {
  runId: string;
  expectedVersion: number;
  patch: RunPatch;
  events?: StoredEvent[];
  messages?: StoredMessage[];
  evidence?: EvidenceRecord[];
}

/** Filters for `listRuns`; absent fields do not filter. `tenant: null` selects runs without a tenant. */
export interface RunFilter {
  status?: RunStatus;
  tenant?: string | null;
  parentRunId?: string;
  /** At most this many runs (newest first). */
  limit?: number;
}

/**
 * What a run listing shows of each run: no flow, input or state (a listing never reads them — they
 * may be megabytes per run).
 */
export type RunHead = Pick<
  RunRecord,
  | 'runId'
  | 'parentRunId'
  | 'rootRunId'
  | 'tenant'
  | 'flowId'
  | 'flowVersion'
  | 'status'
  | 'suspension'
  | 'reason'
  | 'failedNode'
  | 'message'
  | 'usage'
  | 'outputs'
  | 'version'
  | 'createdAt'
  | 'updatedAt'
> & {
  /** The state document's `reply` (docs/threads.md): the last completed node's answer, if any. */
  reply: string | null;
  /** The thread the run belongs to, if any. */
  threadId: string | null;
};

/** The fields of `RunHead`, in the order the SQL stores select them. */
export const RUN_HEAD_FIELDS = [
  'runId',
  'parentRunId',
  'rootRunId',
  'tenant',
  'flowId',
  'flowVersion',
  'status',
  'suspension',
  'reason',
  'failedNode',
  'message',
  'usage',
  'outputs',
  'version',
  'createdAt',
  'updatedAt',
] as const satisfies readonly (keyof RunHead)[];
/** A thread: a conversation of runs of one tenant (docs/threads.md), its runs oldest first. */
export interface ThreadRecord {
  threadId: string;
  tenant: string | null;
  runIds: string[];
  createdAt: string;
  updatedAt: string;
}

/** Filters of `listThreads`: one tenant's threads, most recently updated first, paged by `after`. */
export interface ThreadFilter {
  tenant: string | null;
  /** At most this many threads (default 100). */
  limit?: number;
  /** The page after this thread (the last one of the previous page). */
  after?: { updatedAt: string; threadId: string };
}

export {
  StoreError,
  isVersionConflict,
  versionConflict,
  type StoreErrorCode,
  type StoreErrorOptions,
} from './store-error.js';

/**
 * Durable storage of runs (docs/durability.md). Every implementation passes the same contract suite
 * (test/store/store.contract.ts). A commit is atomic: the patch and every appended row land together
 * or not at all, and only if the run is still at the expected version. Values are stored as JSON, and
 * returned objects are the caller's own: mutating them (or what was passed in) never changes the store.
 */
export interface Store {
  /**
   * Creates a run at version 1 with its first events (`lastSeq` = the highest of their seqs, else 0);
   * throws StoreError `DUPLICATE` if the id exists.
   */
  createRun(run: NewRun, events: StoredEvent[]): Promise<RunRecord>;
  getRun(runId: string): Promise<RunRecord | null>;
  /** Runs matching the filter, newest first. */
  listRuns(filter?: RunFilter): Promise<RunRecord[]>;
  /**
   * The heads of the runs `listRuns` would give (same filter, same order): what a listing shows,
   * reading no flow, input or state. Optional for stores written before it (callers fall back to
   * `listRuns`); the stores of this package have it.
   */
  listRunHeads?(filter?: RunFilter): Promise<RunHead[]>;
  /**
   * Applies a step atomically; returns the run at its new version (+1). Throws StoreError VERSION_CONFLICT
   * (also for an unknown run, with `actual: null`), or StoreError `DUPLICATE` / `INVALID_APPEND` for an
   * append that does not fit — in every case nothing changed.
   */
  commit(commit: Commit): Promise<RunRecord>;
  /** Events with seq > afterSeq, in seq order. */
  events(runId: string, afterSeq?: number): Promise<StoredEvent[]>;
  /** Messages of a node run in index order. */
  messages(runId: string, nodeRun: string): Promise<StoredMessage[]>;
  /** Evidence of a run in the order appended (which is id order: `ev_1`, `ev_2`, …). */
  evidence(runId: string): Promise<EvidenceRecord[]>;
  /**
   * Optional: `evidence(runId)` and, when `nodeRun` is given, `messages(runId, nodeRun)` read together
   * (one round trip for a store over the network). Same results as the two calls.
   */
  workingSet?(
    runId: string,
    nodeRun: string | null,
  ): Promise<{ evidence: EvidenceRecord[]; messages: StoredMessage[] }>;
  /**
   * Takes the run's lease for `owner` until `expiresAt` (epoch ms) when it is free, expired at `now`,
   * or already held by `owner`; returns the run at its new version (+1, so a driver that lost the lease
   * fails its next commit), or null when another live lease holds it (expired means `expiresAt <= now`).
   * Never waits. Throws StoreError `RUN_NOT_FOUND` for an unknown run.
   */
  acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<RunRecord | null>;
  /**
   * The takeover query (docs/durability.md): ids of top-level runs that are `running` while no live
   * lease holds them at `now` (epoch ms) — handed to a queue (lease released) or left by a dead driver
   * (lease expired) — least recently updated first, at most `limit` (default 100). Child runs are left
   * out: their parent's driver drives them. `serve` and the workers both take over from this list.
   */
  unleasedRuns(now: number, limit?: number): Promise<string[]>;
  /**
   * Optional (threads, docs/threads.md): appends `runId` to the tenant's thread `threadId` only if the
   * thread's last run is `after` (null: the thread does not exist yet, and is created). Returns the
   * thread, or null when another run was appended meanwhile (nothing changed). Run ids are not checked.
   */
  appendThreadRun?(
    tenant: string | null,
    threadId: string,
    runId: string,
    after: string | null,
  ): Promise<ThreadRecord | null>;
  /** Optional (threads): the tenant's thread, or null. */
  getThread?(tenant: string | null, threadId: string): Promise<ThreadRecord | null>;
  /** Optional (threads): one tenant's threads, most recently updated first (ties by id). */
  listThreads?(filter: ThreadFilter): Promise<ThreadRecord[]>;
  /**
   * Optional (steering, docs/approvals.md): keeps a person's message to a running or suspended run,
   * numbered `seq` = the run's last + 1, in one atomic step that also checks the run's status and that
   * fewer than `limit.maxPending` messages above `limit.afterSeq` wait. Throws StoreError
   * `RUN_NOT_FOUND` for an unknown run; a refusal changes nothing.
   */
  addRunMessage?(message: NewRunMessage, limit: PendingLimit): Promise<AddRunMessageResult>;
  /** Optional (steering): the run's messages with seq > `afterSeq` (default 0), in seq order. */
  runMessages?(runId: string, afterSeq?: number): Promise<RunMessage[]>;
  /**
   * Optional: the durable webhook outbox and delivery log (docs/notifications.md); `serve --webhooks`
   * keeps its deliveries in this process's memory with a store without it.
   */
  readonly outbox?: WebhookOutbox;
  /** Releases the connection; later calls throw StoreError `CLOSED`. Idempotent. */
  close(): Promise<void>;
}
