import type { EvidenceRecord, RunState } from '../records/run-state.js';
import { addUsage, type ConversationMessage, type TokenUsage } from '../model/model.js';
import {
  isVersionConflict,
  type Commit,
  type RunPatch,
  type RunRecord,
  type Store,
  type StoredEvent,
  type StoredMessage,
} from '../store/store.js';
import type { EventPayload } from '../trace/events.js';
import { DEFAULT_RESULT_BYTES, withBoundedResult } from '../trace/result.js';
import type { EventHub } from '../trace/event-hub.js';
import { nodeRunKey, type HeldQuestion, type RunStateDoc } from '../records/state-doc.js';
import { isoAt, systemClock, type Clock } from './seams.js';
import { branchKey, BranchScope } from './branch-scope.js';
import { countFingerprints, persistedDoc } from './session-doc.js';
import { giveTurn } from './turns.js';
import { ancestorBudgets, childrenSpent, type AncestorBudget } from './run-budgets.js';

/** Receives every committed event (e.g. the `--trace FILE` writer and the terminal renderer). */
export type EventSink = (event: StoredEvent) => void;

/**
 * One driver's working copy of a run: the persisted row, the decoded state, the evidence and the
 * current node run's conversation. Changes are buffered and written by `checkpoint()` in one
 * atomic, version-checked commit, so the next command (in any process) continues exactly here.
 */
export class RunSession {
  readonly run: RunState;
  private pendingEvents: StoredEvent[] = [];
  private pendingMessages: StoredMessage[] = [];
  private persistedEvidence: number;
  private patch: RunPatch = {};
  /** What a commit in flight is writing (until it lands or fails): its staged changes and event count. */
  private committing: { patch: RunPatch; events: number } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** The lease this session holds while it drives the run (renewed by every commit). */
  lease: { owner: string; ms: number } | null = null;
  /** The bound of `tool.invoked.result` in bytes of JSON (0: results are not traced). */
  resultBytes = DEFAULT_RESULT_BYTES;
  /** Called once when a commit finds that a cancel was requested meanwhile (the driver stops then). */
  onCancelRequested: (() => void) | null = null;
  /** The run's parallel branches: code run inside one sees that branch's node run as `doc`. */
  readonly branches: BranchScope;

  private constructor(
    private record: RunRecord,
    private readonly root: RunStateDoc,
    evidence: EvidenceRecord[],
    private messages: ConversationMessage[],
    private readonly store: Store,
    private readonly hub: EventHub,
    private readonly sinks: readonly EventSink[],
    /** The session's clock (epoch ms). */
    readonly clock: Clock,
  ) {
    this.run = { ...root.run, evidence };
    this.persistedEvidence = evidence.length;
    this.branches = new BranchScope(root);
  }

  /**
   * The run's state document; inside a branch (`branches.run`), a view of it whose `nodeId`,
   * `nodeRuns`, `node` and `loop` are the branch's.
   */
  get doc(): RunStateDoc {
    return this.branches.current()?.view ?? this.root;
  }

  /**
   * Loads a run's working copy from the store. `journal: false` skips reading the evidence and the
   * conversation, for a session that only ends the run (a cancellation).
   */
  static async open(
    store: Store,
    hub: EventHub,
    record: RunRecord,
    sinks: readonly EventSink[] = [],
    options: { clock?: Clock; journal?: boolean } = {},
  ): Promise<RunSession> {
    const doc = record.state;
    // A run at version 1 was just created and never committed: it has no evidence and no messages
    // yet (createRun appends events only), so there is nothing to read.
    const fresh = record.version === 1 || options.journal === false;
    const { evidence, messages: stored } = fresh
      ? { evidence: [], messages: [] }
      : await readWorkingSet(store, record.runId, doc.nodeId ? nodeRunKey(doc) : null);
    const messages = stored.map((m) => m.message as ConversationMessage);
    if (doc.node) {
      // A suspending call's tool message comes only when the person responds: count it meanwhile.
      const pending = [doc.loop.suspended?.counted, doc.loop.resolved?.call.counted];
      doc.node.fingerprintCounts = countFingerprints(messages, pending);
    }
    const session = new RunSession(
      record,
      doc,
      evidence,
      messages,
      store,
      hub,
      sinks,
      options.clock ?? systemClock,
    );
    for (const branch of fresh ? [] : (doc.branches ?? [])) {
      const own = (await store.messages(record.runId, branchKey(branch))).map(
        (m) => m.message as ConversationMessage,
      );
      if (branch.node) {
        const pending = [branch.loop.suspended?.counted, branch.loop.resolved?.call.counted];
        branch.node.fingerprintCounts = countFingerprints(own, pending);
      }
      session.branches.preload(branch, own);
    }
    return session;
  }

  get runId(): string {
    return this.record.runId;
  }

  /**
   * Runs `task` inside the branch that waits for the item `expect` names, else the item the run is
   * suspended with (the run's only node run when it has no branches).
   */
  inSuspendedBranch<T>(task: () => Promise<T>, expect?: string): Promise<T> {
    const id = expect ?? this.record.suspension?.pending.id;
    const waiting = (this.root.branches ?? []).filter((b) => b.loop.suspended !== null);
    const branch = waiting.find((b) => b.suspension?.pending.id === id) ?? waiting[0];
    return branch ? this.branches.run(branch, task) : task();
  }

  /** The run as stored now, committed by any process (`current` is what this session committed). */
  stored(): Promise<RunRecord | null> {
    return this.store.getRun(this.record.runId);
  }

  get current(): RunRecord {
    return this.record;
  }

  /** Buffers a trace event with the next seq. */
  emit(payload: EventPayload): StoredEvent {
    const seq = this.record.lastSeq + (this.committing?.events ?? 0) + this.pendingEvents.length + 1;
    const bounded = payload.type === 'tool.invoked' ? withBoundedResult(payload, this.resultBytes) : payload;
    const labelled = this.branches.withItem(bounded);
    const event = { ...labelled, seq, ts: isoAt(this.clock()), runId: this.record.runId } as StoredEvent;
    this.pendingEvents.push(event);
    return event;
  }

  /** Appends a message to the current node run's conversation. */
  addMessage(message: ConversationMessage): void {
    const branch = this.branches.current();
    if (branch) {
      const at = branch.messages.length;
      branch.messages.push(message);
      this.pendingMessages.push({ nodeRun: branchKey(branch.branch), index: at, message });
      return;
    }
    const index = this.messages.length;
    this.messages.push(message);
    this.pendingMessages.push({ nodeRun: nodeRunKey(this.doc), index, message });
  }

  conversation(): readonly ConversationMessage[] {
    return this.branches.current()?.messages ?? this.messages;
  }

  /** Starts a new node run: a fresh conversation under a new key. */
  resetConversation(): void {
    const branch = this.branches.current();
    if (branch) branch.messages = [];
    else this.messages = [];
  }

  addUsage(usage: TokenUsage): void {
    const u = this.patch.usage ?? this.committing?.patch.usage ?? this.record.usage;
    this.patch.usage = addUsage(u, usage);
  }

  /**
   * What the run has spent (input + output tokens, and cost from `prices`), its child runs included
   * (recursively, as their drivers committed it), with this session's staged usage.
   */
  async spent(): Promise<{ tokens: number; cost: number }> {
    const u = this.patch.usage ?? this.committing?.patch.usage ?? this.record.usage;
    const children = await childrenSpent(this.store, this.runId);
    return {
      tokens: u.inputTokens + u.outputTokens + children.tokens,
      cost: (this.doc.cost ?? 0) + children.cost,
    };
  }

  /**
   * The run budgets of this run's ancestors (a delegated child run spends from its parents' budgets
   * too): for each ancestor whose flow sets `limits.maxTokens` or `limits.maxCost`, those limits and
   * what that ancestor's whole tree has committed so far.
   */
  ancestorBudgets(): Promise<AncestorBudget[]> {
    return ancestorBudgets(this.store, this.record.parentRunId);
  }

  /**
   * Stages changes of the run row for the next checkpoint. Inside a branch, a suspension is the
   * branch's (kept with it): the run suspends only when no branch can go on (src/graph/parallel.ts).
   */
  update(patch: RunPatch): void {
    const branch = this.branches.current()?.branch;
    if (branch && patch.suspension) branch.suspension = patch.suspension;
    if (branch && patch.status === 'suspended') {
      const { status: _s, suspension: _p, leaseOwner: _o, leaseExpiresAt: _e, ...rest } = patch;
      Object.assign(this.patch, rest);
      return;
    }
    Object.assign(this.patch, patch);
  }

  /**
   * Writes everything buffered in one commit at the expected version; publishes the events. A commit
   * that finds only a cancel request added meanwhile adopts it and lands (the result of a write in
   * flight is recorded), except with `beforeEffect` (a write's in-flight mark): that one fails.
   */
  checkpoint(options: { beforeEffect?: boolean } = {}): Promise<void> {
    // Other requests get a turn between this run's commits, however fast its steps are.
    return this.serial(() => this.commitBuffered(options.beforeEffect !== true).then(giveTurn));
  }

  /** The question this session holds open for a person (engine/held-question.ts), its answer once adopted. */
  get held(): HeldQuestion | undefined {
    return this.root.held;
  }
  setHeld(held: HeldQuestion | undefined): void {
    if (held) this.root.held = held;
    else delete this.root.held;
  }

  /**
   * Ends the run `cancelled` (`run.cancelled`, suspension and lease cleared) in one commit at the
   * version this session holds; a StoreError VERSION_CONFLICT when the run moved meanwhile (never adopted:
   * the caller reads the run again). Returns the committed event.
   */
  async endCancelled(): Promise<StoredEvent> {
    const event = this.emit({ type: 'run.cancelled', reason: 'CANCELLED' });
    this.update({
      status: 'cancelled',
      suspension: null,
      reason: 'CANCELLED',
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    await this.checkpoint({ beforeEffect: true });
    return event;
  }

  /** Extends the lease without persisting any half-done step (only the lease fields change). */
  renewLease(): Promise<void> {
    return this.serial(async () => {
      if (!this.lease || this.record.status !== 'running') return;
      const lease = this.lease;
      this.record = await this.commitAdopting(
        (version) => ({
          runId: this.record.runId,
          expectedVersion: version,
          patch: { leaseOwner: lease.owner, leaseExpiresAt: this.clock() + lease.ms },
        }),
        true,
      );
    });
  }

  /**
   * Commits at the version this session holds. On a conflict, when `adopt` allows it and the only
   * change since is a cancel request (the run still running under this session's lease, no event
   * appended), takes the request over and commits again at the new version.
   */
  private async commitAdopting(request: (version: number) => Commit, adopt: boolean): Promise<RunRecord> {
    try {
      return await this.store.commit(request(this.record.version));
    } catch (error) {
      if (!isVersionConflict(error) || !adopt) throw error;
      const fresh = await this.store.getRun(this.record.runId);
      const requested = fresh?.state.cancelRequested === true;
      const held = fresh?.state.held;
      const answered = held?.answer !== undefined && held.id === this.root.held?.id;
      const same =
        fresh?.status === 'running' &&
        fresh.lastSeq === this.record.lastSeq &&
        fresh.leaseOwner === this.lease?.owner;
      if (!fresh || !(requested || answered) || !same) throw error;
      if (answered) this.root.held = held;
      if (requested) this.root.cancelRequested = true;
      if (requested) this.onCancelRequested?.();
      return this.store.commit(request(fresh.version));
    }
  }

  private serial(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Commits what is buffered. A commit may start while a call runs (a slow read, guards/invoke.ts):
   * what is buffered while it is in flight stays buffered for the next one, with the seqs and message
   * indexes it was given, and a failed commit leaves everything buffered as it was.
   */
  private async commitBuffered(adopt: boolean): Promise<void> {
    const { evidence: _evidence, ...runRest } = this.run;
    this.root.run = runRest;
    // What this commit writes is taken out of the buffers, which go on filling meanwhile.
    const events = this.pendingEvents;
    const messages = this.pendingMessages;
    const evidenceEnd = this.run.evidence.length;
    const staged = this.patch;
    this.pendingEvents = [];
    this.pendingMessages = [];
    this.patch = {};
    this.committing = { patch: staged, events: events.length };
    const patch = (): RunPatch => {
      const p: RunPatch = { ...staged, state: persistedDoc(this.root) };
      const stillRunning = (p.status ?? this.record.status) === 'running';
      if (this.lease && stillRunning && p.leaseOwner === undefined) {
        p.leaseOwner = this.lease.owner;
        p.leaseExpiresAt = this.clock() + this.lease.ms;
      }
      return p;
    };
    const evidence = this.run.evidence.slice(this.persistedEvidence, evidenceEnd);
    let next: RunRecord;
    try {
      next = await this.commitAdopting(
        (version) => ({
          runId: this.record.runId,
          expectedVersion: version,
          patch: patch(),
          events,
          messages,
          evidence,
        }),
        adopt,
      );
    } catch (error) {
      this.pendingEvents = [...events, ...this.pendingEvents];
      this.pendingMessages = [...messages, ...this.pendingMessages];
      this.patch = { ...staged, ...this.patch };
      throw error;
    } finally {
      this.committing = null;
    }
    this.record = next;
    this.persistedEvidence = evidenceEnd;
    for (const sink of this.sinks) for (const event of events) sink(event);
    this.hub.publish(events);
  }
}

/** A run's evidence and its current node run's messages, in one read when the store offers it. */
async function readWorkingSet(
  store: Store,
  runId: string,
  nodeRun: string | null,
): Promise<{ evidence: EvidenceRecord[]; messages: StoredMessage[] }> {
  if (store.workingSet) return store.workingSet(runId, nodeRun);
  const evidence = await store.evidence(runId);
  return { evidence, messages: nodeRun ? await store.messages(runId, nodeRun) : [] };
}
