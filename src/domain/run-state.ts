/**
 * The mutable, persistable state of a run that the guards and builtin tools read and change
 * (docs/design.md; docs/observations.md; docs/flows.md). Plain JSON data: the store persists it after every step.
 * Evidence and approvals are per run; gated calls, fingerprint counts, stalls and pending writes
 * are per node run.
 */

/** A tool call that really executed (SUCCESS or FAILED), kept for provenance, reuse and outputs. */
export interface EvidenceRecord {
  /** `ev_1`, `ev_2`, … numbered per run in the order calls executed. */
  id: string;
  tool: string;
  args: Record<string, unknown>;
  fingerprint: string;
  outcome: 'SUCCESS' | 'FAILED';
  errorCode: string | null;
  payload: unknown;
  ts: string;
  nodeId: string;
  callId: string;
  /** True for a runtime look-back query (docs/durability.md). */
  lookBack?: boolean;
  /** For a look-back that confirmed an interrupted write: the write's fingerprint, counted as its evidence. */
  confirmsFingerprint?: string;
}

/** A person's approval of exactly one gated call, consumed once the write has executed (or may have). */
export interface Approval {
  fingerprint: string;
  tool: string;
  args: Record<string, unknown>;
  nodeId: string;
  grantedAt: string;
  who: string | null;
  comment: string | null;
  consumed: boolean;
}

/** A write call stopped by the write gate and waiting for `builtin_node_approval`. */
export interface GatedCall {
  tool: string;
  args: Record<string, unknown>;
  fingerprint: string;
  /** Argument name → evidence id it was found in (from `source: evidence` contracts). */
  provenance: Record<string, string>;
  /** Argument name → the user's words it was found in (from `source: user` contracts); absent when none. */
  userProvenance?: Record<string, string>;
  /** Argument name → where its value (or each element or field) was found; absent when none. */
  matches?: Record<string, ValueMatch[]>;
  /** Set once the person declined it. */
  declined?: boolean;
}

/** A write whose result matched `pending`: accepted, not done yet (pipeline step 4c, docs/design.md). */
export interface PendingWrite {
  tool: string;
  fingerprint: string;
  verifyTool: string;
  verifyArgs: Record<string, unknown>;
  /** The JSONata `done` expression and the names it is evaluated over (without `verify`). */
  done: string;
  scope: { args: Record<string, unknown>; result: unknown; key: string };
}

/** A write marked as sent and not yet known to be done (docs/durability.md). */
export interface InFlightWrite {
  fingerprint: string;
  tool: string;
  args: Record<string, unknown>;
  /** The idempotency key, derived from the run id and the fingerprint. */
  key: string;
  nodeId: string;
  callId: string;
  startedAt: string;
}

/** A question asked with builtin_node_follow_up and the person's answer. */
export interface FollowUpRecord {
  question: string;
  options: string[] | null;
  answer: string;
  nodeId: string;
}

/** A value written with builtin_output_set. */
export interface OutputValue {
  value: unknown;
  sourceType: 'evidence' | 'user' | 'node' | 'model';
  sourceRef: string | null;
  /** sourceType evidence: where in the cited evidence the value (or each element) was found; absent when not checked. */
  match?: ValueMatch[];
}

/**
 * Where a checked value — an argument, one element or field of it, or an output — was found
 * (docs/flows.md, "How values are matched"), so that a person sees the very span it was cited from.
 */
export interface ValueMatch {
  /** Inside the argument or output value: [] the value itself, [1] its second element, ['city'] a field. */
  at: (string | number)[];
  source: 'evidence' | 'user';
  /** source evidence: the evidence id. */
  evidenceId?: string;
  /**
   * source evidence: the path of the matching leaf (or sub-tree) in the evidence payload, [] for the
   * payload itself; absent when a `path` selection cannot be traced back to the payload.
   */
  path?: (string | number)[];
  /** A match inside a text: [start, end) of the value in the string at `path`, in UTF-16 code units. */
  span?: [number, number];
}

/** Per node run. */
export interface NodeState {
  nodeId: string;
  rounds: number;
  stalls: number;
  /** Fingerprint → how many times it reached the fingerprint step. */
  fingerprintCounts: Record<string, number>;
  /** The latest gated call waiting for approval, if any. */
  gatedCall: GatedCall | null;
  pendingWrites: PendingWrite[];
  outputs: Record<string, OutputValue>;
  /** True after an approved write failed, until the next follow-up (which is then never UNGROUNDED). */
  approvedWriteFailed: boolean;
  /** How the node run's conversation is compacted (absent until the first model call with a context budget). */
  context?: ContextState;
}

/**
 * The persisted position of a node run's context compaction (src/loop/compaction.ts): rounds are
 * counted from the node run's first model answer; the first `dropped` rounds are folded into one
 * digest message and the first `stubbed` rounds have their tool results replaced by stubs. Both only
 * grow, so the compacted conversation is a pure function of the conversation and this state.
 */
export interface ContextState {
  stubbed: number;
  dropped: number;
  /** How often the node run compacted (builtin_evidence_read is offered once this is above 0). */
  compactions: number;
  /** The previous model call: its reported input tokens and how many messages it was sent, under this state. */
  last: { inputTokens: number; messages: number } | null;
}

/** Per run. */
export interface RunState {
  runId: string;
  evidence: EvidenceRecord[];
  approvals: Approval[];
  inFlight: InFlightWrite[];
  followUps: FollowUpRecord[];
  /** Every string leaf of the run input, for `source: user` matching (answers are in followUps). */
  inputTexts: string[];
  /** Outputs of completed nodes, keyed by node id. */
  nodeOutputs: Record<string, Record<string, unknown>>;
}

/**
 * One earlier turn of a thread (docs/threads.md) that a run in the thread starts with: what the user
 * said (their message, a follow-up answer) or what the assistant said (a reply, a question).
 */
export interface ThreadTurn {
  role: 'user' | 'assistant';
  text: string;
}

/** A fresh node state. */
export function newNodeState(nodeId: string): NodeState {
  return {
    nodeId,
    rounds: 0,
    stalls: 0,
    fingerprintCounts: {},
    gatedCall: null,
    pendingWrites: [],
    outputs: {},
    approvedWriteFailed: false,
  };
}

/** A fresh run state. */
export function newRunState(runId: string, input: unknown): RunState {
  return {
    runId,
    evidence: [],
    approvals: [],
    inFlight: [],
    followUps: [],
    inputTexts: stringLeaves(input),
    nodeOutputs: {},
  };
}

/** Every string leaf of a JSON value, in document order. */
export function stringLeaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringLeaves);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringLeaves);
  return [];
}

/** What the user has said: the input's string leaves plus every follow-up answer. */
export function userTexts(run: RunState): string[] {
  return [...run.inputTexts, ...run.followUps.map((f) => f.answer)];
}
