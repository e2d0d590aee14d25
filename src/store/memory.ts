import type { EvidenceRecord } from '../records/run-state.js';
import {
  PATCH_FIELDS,
  checkBatch,
  checkEvents,
  checkNewRun,
  duplicateEvidence,
  duplicateMessage,
  duplicateRun,
  patches,
  runNotFound,
  storeClosed,
} from './checks.js';
import type { RunStateDoc } from '../records/state-doc.js';
import { decodeState, decodeSuspension } from './document.js';
import { fromJson, jsonClone, toJson } from './json.js';
import { deepFreeze, leaseFree } from './shared.js';
import {
  versionConflict,
  type Commit,
  type NewRun,
  RUN_HEAD_FIELDS,
  type RunFilter,
  type RunHead,
  type RunPatch,
  type RunRecord,
  type Store,
  type StoredEvent,
  type StoredMessage,
  type ThreadFilter,
  type ThreadRecord,
  type AddRunMessageResult,
  type NewRunMessage,
  type PendingLimit,
  type RunMessage,
} from './store.js';
import { MemoryThreads } from './threads.js';
import { MemoryRunMessages } from './run-messages.js';
import { MemoryOutbox } from './outbox.js';

/** Options of `MemoryStore`. */
export interface MemoryStoreOptions {
  /** The clock for `createdAt` / `updatedAt` (injected for deterministic tests). */
  now?: () => Date;
}

/** A run as kept: the state as JSON text, serialised once per commit and decoded only when read. */
type StoredRecord = Omit<RunRecord, 'state'> & { state: string | null };

/** Everything kept for one run. Stored values are private copies; nothing here is handed out. */
interface RunEntry {
  record: StoredRecord;
  /** Creation order, to break ties in `listRuns`. */
  order: number;
  /** In seq order (seqs only grow), so `afterSeq` is a binary search. Rows are kept as JSON text:
   *  serialised once on the way in, parsed only when read (appends are the hot path). */
  events: { seq: number; json: string }[];
  /** Node run → index → message (JSON). */
  messages: Map<string, Map<number, string>>;
  evidence: string[];
  evidenceIds: Set<string>;
}

/**
 * A Store in process memory, with the same semantics as SqliteStore: version compare-and-set, lease
 * rules, JSON values, and isolation (what goes in and what comes out are copies). A commit copies only
 * what it touches — the patched fields, the appended rows and the run row it returns — never a run's
 * history. Lost when the process ends: for tests and embedding.
 */
export class MemoryStore implements Store {
  readonly #runs = new Map<string, RunEntry>();
  readonly #now: () => Date;
  readonly #threads: MemoryThreads;
  readonly #messages = new MemoryRunMessages();
  readonly outbox = new MemoryOutbox(() => {
    if (this.#closed) throw storeClosed();
  });
  #created = 0;
  #closed = false;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#threads = new MemoryThreads(() => this.#now());
  }

  appendThreadRun(
    tenant: string | null,
    threadId: string,
    runId: string,
    after: string | null,
  ): Promise<ThreadRecord | null> {
    return this.#sync(() => this.#threads.append(tenant, threadId, runId, after));
  }

  getThread(tenant: string | null, threadId: string): Promise<ThreadRecord | null> {
    return this.#sync(() => this.#threads.get(tenant, threadId));
  }

  listThreads(filter: ThreadFilter): Promise<ThreadRecord[]> {
    return this.#sync(() => this.#threads.list(filter));
  }

  addRunMessage(message: NewRunMessage, limit: PendingLimit): Promise<AddRunMessageResult> {
    return this.#sync(() => this.#messages.add(message, limit, this.#runs.get(message.runId)?.record.status));
  }

  runMessages(runId: string, afterSeq = 0): Promise<RunMessage[]> {
    return this.#sync(() => this.#messages.list(runId, afterSeq));
  }

  createRun(run: NewRun, events: StoredEvent[]): Promise<RunRecord> {
    return this.#sync(() => {
      const lastSeq = checkNewRun(run, events);
      if (this.#runs.has(run.runId)) throw duplicateRun(run.runId);
      const ts = this.#now().toISOString();
      const record: StoredRecord = {
        ...normalizeNewRun(run),
        version: 1,
        lastSeq,
        createdAt: ts,
        updatedAt: ts,
      };
      this.#runs.set(run.runId, {
        record,
        order: this.#created++,
        events: events.map((e) => ({ seq: e.seq, json: JSON.stringify(e) })),
        messages: new Map(),
        evidence: [],
        evidenceIds: new Set(),
      });
      return copyRecord(record);
    });
  }

  getRun(runId: string): Promise<RunRecord | null> {
    return this.#sync(() => {
      const entry = this.#runs.get(runId);
      return entry ? copyRecord(entry.record) : null;
    });
  }

  listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    return this.#sync(() => this.#matching(filter).map((e) => copyRecord(e.record)));
  }

  listRunHeads(filter: RunFilter = {}): Promise<RunHead[]> {
    return this.#sync(() =>
      this.#matching(filter).map(({ record }) => {
        const head: Record<string, unknown> = {};
        for (const field of RUN_HEAD_FIELDS) head[field] = record[field];
        return {
          ...(head as RunHead),
          suspension: decodeSuspension(jsonClone(record.suspension), record.runId),
          usage: { ...record.usage },
          outputs: jsonClone(record.outputs),
          ...stateHead(record.state),
        };
      }),
    );
  }

  #matching(filter: RunFilter): RunEntry[] {
    const matching = [...this.#runs.values()].filter(({ record: r }) => {
      if (filter.status !== undefined && r.status !== filter.status) return false;
      if (filter.tenant !== undefined && r.tenant !== filter.tenant) return false;
      return filter.parentRunId === undefined || r.parentRunId === filter.parentRunId;
    });
    matching.sort((a, b) => {
      if (a.record.createdAt !== b.record.createdAt) return a.record.createdAt < b.record.createdAt ? 1 : -1;
      return b.order - a.order;
    });
    return filter.limit === undefined ? matching : matching.slice(0, Math.max(0, filter.limit));
  }

  commit(commit: Commit): Promise<RunRecord> {
    return this.#sync(() => {
      // The same checks in the same order as SqliteStore, so both refuse a bad commit alike.
      const events = commit.events ?? [];
      checkEvents(commit.runId, 0, events);
      checkBatch(commit);
      const entry = this.#runs.get(commit.runId);
      if (!entry || entry.record.version !== commit.expectedVersion) {
        throw versionConflict(commit.runId, commit.expectedVersion, entry?.record.version ?? null);
      }
      const lastSeq = checkEvents(commit.runId, entry.record.lastSeq, events);
      this.#checkStoredKeys(entry, commit);
      // Every check passed: from here on nothing throws, so the step lands whole.
      entry.record = {
        ...entry.record,
        ...copyPatch(commit.patch),
        version: entry.record.version + 1,
        lastSeq,
        updatedAt: this.#now().toISOString(),
      };
      for (const e of events) entry.events.push({ seq: e.seq, json: JSON.stringify(e) });
      for (const m of commit.messages ?? []) messagesOf(entry, m.nodeRun).set(m.index, JSON.stringify(m));
      for (const e of commit.evidence ?? []) {
        entry.evidence.push(JSON.stringify(e));
        entry.evidenceIds.add(e.id);
      }
      // The caller owns the state it passed in, so it can have it back without another copy.
      return copyRecord(entry.record, patches(commit.patch, 'state') ? commit.patch.state : undefined);
    });
  }

  events(runId: string, afterSeq = 0): Promise<StoredEvent[]> {
    return this.#sync(() => {
      const all = this.#runs.get(runId)?.events ?? [];
      return all.slice(firstAbove(all, afterSeq)).map((e) => JSON.parse(e.json) as StoredEvent);
    });
  }

  messages(runId: string, nodeRun: string): Promise<StoredMessage[]> {
    return this.#sync(() => {
      const byIndex = this.#runs.get(runId)?.messages.get(nodeRun);
      if (!byIndex) return [];
      return [...byIndex.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([, m]) => JSON.parse(m) as StoredMessage);
    });
  }

  evidence(runId: string): Promise<EvidenceRecord[]> {
    return this.#sync(() =>
      (this.#runs.get(runId)?.evidence ?? []).map((e) => JSON.parse(e) as EvidenceRecord),
    );
  }

  acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<RunRecord | null> {
    return this.#sync(() => {
      const entry = this.#runs.get(runId);
      if (!entry) throw runNotFound(runId);
      const r = entry.record;
      if (!leaseFree(r, now) && r.leaseOwner !== owner) return null;
      entry.record = {
        ...r,
        leaseOwner: owner,
        leaseExpiresAt: expiresAt,
        version: r.version + 1,
        updatedAt: this.#now().toISOString(),
      };
      return copyRecord(entry.record);
    });
  }

  unleasedRuns(now: number, limit = 100): Promise<string[]> {
    return this.#sync(() =>
      [...this.#runs.values()]
        .map((e) => e.record)
        .filter((r) => r.status === 'running' && r.parentRunId === null && leaseFree(r, now))
        .sort((a, b) => a.updatedAt.localeCompare(b.updatedAt) || a.runId.localeCompare(b.runId))
        .slice(0, Math.max(0, Math.trunc(limit)))
        .map((r) => r.runId),
    );
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  /** Runs a synchronous operation as a promise, refusing it once closed; errors become rejections. */
  #sync<T>(operation: () => T): Promise<T> {
    try {
      if (this.#closed) throw storeClosed();
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Refuses a commit whose messages or evidence collide with stored ones. */
  #checkStoredKeys(entry: RunEntry, commit: Commit): void {
    for (const m of commit.messages ?? []) {
      if (entry.messages.get(m.nodeRun)?.has(m.index))
        throw duplicateMessage(commit.runId, m.nodeRun, m.index);
    }
    for (const e of commit.evidence ?? []) {
      if (entry.evidenceIds.has(e.id)) throw duplicateEvidence(commit.runId, e.id);
    }
  }
}

/** A copy of a new run with exactly the fields SQLite stores, absent nullable fields as `null`. */
function normalizeNewRun(run: NewRun): Omit<StoredRecord, 'version' | 'lastSeq' | 'createdAt' | 'updatedAt'> {
  return {
    runId: run.runId,
    parentRunId: run.parentRunId ?? null,
    rootRunId: run.rootRunId,
    tenant: run.tenant ?? null,
    flowId: run.flowId,
    flowVersion: run.flowVersion,
    flow: deepFreeze(jsonClone(run.flow)),
    flowDir: run.flowDir ?? null,
    model: run.model ?? null,
    input: deepFreeze(jsonClone(run.input)),
    status: run.status,
    suspension: jsonClone(run.suspension),
    reason: run.reason ?? null,
    failedNode: run.failedNode ?? null,
    message: run.message ?? null,
    usage: jsonClone(run.usage),
    outputs: jsonClone(run.outputs),
    state: toJson(run.state),
    leaseOwner: run.leaseOwner ?? null,
    leaseExpiresAt: run.leaseExpiresAt ?? null,
  };
}

/** Copies of the fields a patch sets, and only those (the state as JSON text, decoded only when read). */
function copyPatch(patch: RunPatch): Partial<StoredRecord> {
  const copy: Record<string, unknown> = {};
  for (const field of PATCH_FIELDS) {
    if (!patches(patch, field)) continue;
    copy[field] = field === 'state' ? toJson(patch.state) : jsonClone(patch[field]);
  }
  return copy;
}

function messagesOf(entry: RunEntry, nodeRun: string): Map<number, string> {
  let byIndex = entry.messages.get(nodeRun);
  if (!byIndex) {
    byIndex = new Map();
    entry.messages.set(nodeRun, byIndex);
  }
  return byIndex;
}

/** The position of the first event with seq > afterSeq (events are in seq order). */
function firstAbove(events: readonly { seq: number }[], afterSeq: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((events[mid]?.seq ?? Infinity) <= afterSeq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A copy of a stored run for a caller. `flow` and `input` never change after creation: they are
 * frozen once and shared, so a step never copies the whole flow again.
 */
/** The two fields of a stored state document a run head shows (as the SQL stores extract them). */
function stateHead(state: string | null): Pick<RunHead, 'reply' | 'threadId'> {
  const doc = fromJson<{ reply?: string; thread?: { id?: string } } | null>(state);
  return { reply: doc?.reply ?? null, threadId: doc?.thread?.id ?? null };
}

function copyRecord(record: StoredRecord, ownState?: RunStateDoc): RunRecord {
  return {
    ...record,
    suspension: decodeSuspension(jsonClone(record.suspension), record.runId),
    usage: { ...record.usage },
    outputs: jsonClone(record.outputs),
    state: ownState ?? decodeState(fromJson(record.state), record.runId),
  };
}
