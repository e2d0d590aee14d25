import type { LoopState, Wave } from './loop-state.js';
import type {
  Approval,
  EvidenceRecord,
  FollowUpRecord,
  GatedCall,
  InFlightWrite,
  NodeState,
  OutputValue,
  PendingWrite,
  RunState,
  StartedTask,
} from './run-state.js';

/**
 * One change a step makes to its run, as a value (docs/design.md, "A step's effects"). The guards, the
 * builtins, the responses of people and the node loop never write the run themselves: they say what
 * changes, and `applyChange` — the one place that writes run state — applies it. A call's changes, in
 * the order made, are on its report (`CallReport.changes`). A change is a value: the reducer keeps a
 * copy of the record it carries and replaces (never edits) a record a later change decides, so a
 * change reads the same after the changes that follow it.
 */
export type RunChange = CallChange | LoopChange;

/** What a tool call (its guards and builtins) or a person's response changes. */
export type CallChange =
  /** An executed call of a real tool became evidence `ev_N`. */
  | { readonly kind: 'evidence'; readonly record: EvidenceRecord }
  /** A write is about to be sent: marked in flight, committed before it goes (the write-ahead mark). */
  | { readonly kind: 'inFlight'; readonly mark: InFlightWrite }
  /** The write's mark is cleared: it came back, failed to send, or its interruption was settled. */
  | {
      readonly kind: 'landed';
      readonly nodeId: string;
      readonly callId: string;
      readonly fingerprint: string;
    }
  /** An MCP server runs the call as a task: recorded, so the call polls it instead of sending again. */
  | { readonly kind: 'taskStarted'; readonly task: StartedTask }
  /** The call's task ended (it has its result). */
  | { readonly kind: 'taskEnded'; readonly server: string; readonly taskId: string }
  /** A write waits for approval: the node's gated call. */
  | { readonly kind: 'gate'; readonly call: GatedCall }
  /** The gated call with this fingerprint is cleared (its write executed). */
  | { readonly kind: 'ungate'; readonly fingerprint: string }
  /** The gated call with this fingerprint was decided: by a rule (`decidedBy`), declined or both. */
  | {
      readonly kind: 'gateDecided';
      readonly fingerprint: string;
      readonly declined: boolean;
      readonly decidedBy?: 'auto' | 'reject';
    }
  /** An approval bound to one call's fingerprint. */
  | { readonly kind: 'approval'; readonly approval: Approval }
  /** The open approval of this fingerprint is used up (its write executed, or may have). */
  | { readonly kind: 'approvalUsed'; readonly fingerprint: string }
  /** An approved write failed (true), or a person answered since (false). */
  | { readonly kind: 'approvedWriteFailed'; readonly value: boolean }
  /** A write waits for its verify call. */
  | { readonly kind: 'pendingWrite'; readonly pending: PendingWrite }
  /** The verify call showed the write with this fingerprint done. */
  | { readonly kind: 'verified'; readonly fingerprint: string }
  /** A person's answer (to the model's question, or to an MCP server's). */
  | { readonly kind: 'followUp'; readonly record: FollowUpRecord }
  /** The server's question answered by follow-up number `index` was given to the server. */
  | { readonly kind: 'answerUsed'; readonly index: number }
  /** The fingerprint's count in the node run is now `count`. */
  | { readonly kind: 'count'; readonly fingerprint: string; readonly count: number }
  /** An output of the node was written. */
  | { readonly kind: 'output'; readonly key: string; readonly value: OutputValue };

/** The `landed` change of a write's in-flight mark: the mark of this node, call and fingerprint is cleared. */
export function landed(mark: Pick<InFlightWrite, 'nodeId' | 'callId' | 'fingerprint'>): CallChange {
  return { kind: 'landed', nodeId: mark.nodeId, callId: mark.callId, fingerprint: mark.fingerprint };
}

/** What the node loop changes of its node run and its position. */
export type LoopChange =
  /** A model call starts round N+1. */
  | { readonly kind: 'round' }
  /** A stall: one more towards `maxStalls`. */
  | { readonly kind: 'stall' }
  /** Progress: the stall count starts again. */
  | { readonly kind: 'progress' }
  /** The wave of calls being handled (null: none). */
  | { readonly kind: 'wave'; readonly wave: Wave | null }
  /** The first call of the wave not handled yet. */
  | { readonly kind: 'waveNext'; readonly next: number }
  /** The call a person responded to was counted. */
  | { readonly kind: 'resolvedCounted' };

/** What changes apply to: the run, its current node run and (for the loop's changes) its position. */
export interface ChangeTarget {
  readonly run: RunState;
  readonly node: NodeState;
  readonly loop?: LoopState;
}

/** Applies one change. The one place that writes run state in place (a step is not copied: it is hot). */
export function applyChange(target: ChangeTarget, change: RunChange): void {
  const { run, node } = target;
  switch (change.kind) {
    case 'evidence':
      run.evidence.push(change.record);
      return;
    case 'inFlight':
      run.inFlight.push({ ...change.mark });
      return;
    case 'landed':
      run.inFlight = run.inFlight.filter(
        (w) =>
          w.callId !== change.callId || w.nodeId !== change.nodeId || w.fingerprint !== change.fingerprint,
      );
      return;
    case 'taskStarted':
      (run.tasks ??= []).push({ ...change.task });
      return;
    case 'taskEnded': {
      const tasks = (run.tasks ?? []).filter((t) => t.taskId !== change.taskId || t.server !== change.server);
      if (tasks.length > 0) run.tasks = tasks;
      else delete run.tasks;
      return;
    }
    case 'gate':
      node.gatedCall = { ...change.call };
      return;
    case 'ungate':
      if (node.gatedCall?.fingerprint === change.fingerprint) node.gatedCall = null;
      return;
    case 'gateDecided': {
      const gated = node.gatedCall;
      if (gated?.fingerprint !== change.fingerprint) return;
      node.gatedCall = {
        ...gated,
        ...(change.decidedBy ? { decidedBy: change.decidedBy } : {}),
        ...(change.declined ? { declined: true } : {}),
      };
      return;
    }
    case 'approval':
      run.approvals.push({ ...change.approval });
      return;
    case 'approvalUsed': {
      const at = run.approvals.findIndex((a) => a.fingerprint === change.fingerprint && !a.consumed);
      const open = run.approvals[at];
      if (open) run.approvals[at] = { ...open, consumed: true };
      return;
    }
    case 'approvedWriteFailed':
      node.approvedWriteFailed = change.value;
      return;
    case 'pendingWrite':
      node.pendingWrites.push({ ...change.pending });
      return;
    case 'verified':
      node.pendingWrites = node.pendingWrites.filter((p) => p.fingerprint !== change.fingerprint);
      return;
    case 'followUp':
      run.followUps.push({ ...change.record });
      return;
    case 'answerUsed': {
      const followUp = run.followUps[change.index];
      const answer = followUp?.elicitation;
      if (followUp && answer)
        run.followUps[change.index] = { ...followUp, elicitation: { ...answer, used: true } };
      return;
    }
    case 'count':
      node.fingerprintCounts[change.fingerprint] = change.count;
      return;
    case 'output':
      node.outputs[change.key] = change.value;
      return;
    default:
      applyLoopChange(target, change);
  }
}

function applyLoopChange(target: ChangeTarget, change: LoopChange): void {
  const { node } = target;
  switch (change.kind) {
    case 'round':
      node.rounds += 1;
      return;
    case 'stall':
      node.stalls += 1;
      return;
    case 'progress':
      node.stalls = 0;
      return;
    case 'wave':
      loopOf(target).wave = change.wave;
      return;
    case 'waveNext': {
      const wave = loopOf(target).wave;
      if (wave) wave.next = change.next;
      return;
    }
    case 'resolvedCounted':
      loopOf(target).resolved = null;
  }
}

function loopOf(target: ChangeTarget): LoopState {
  if (!target.loop) throw new Error('a loop change needs the loop state');
  return target.loop;
}

/** Applies changes in order. */
export function applyChanges(target: ChangeTarget, changes: readonly RunChange[]): void {
  for (const change of changes) applyChange(target, change);
}

/**
 * The changes of one call, recorded in the order made, each applied as it is recorded: a later stage
 * reads the state the earlier ones left, and the write-ahead commit is "record `inFlight`, commit".
 */
export class ChangeLog {
  readonly #target: ChangeTarget;
  readonly #made: CallChange[] = [];

  constructor(target: Omit<ChangeTarget, 'loop'>) {
    this.#target = { run: target.run, node: target.node };
  }

  /** Applies the change and keeps it (frozen). A call changes no loop position: only call changes. */
  record(change: CallChange): void {
    applyChange(this.#target, change);
    this.#made.push(Object.freeze(change));
  }

  /** The changes so far, in order (a frozen copy). */
  list(): readonly CallChange[] {
    return this.#made.length === 0 ? NO_CHANGES : Object.freeze(this.#made.slice());
  }
}

const NO_CHANGES: readonly CallChange[] = Object.freeze([]);
