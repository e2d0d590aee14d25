/** The run page's view of a run: what folding its trace events (trace-model.ts) gives. */
import type { Pending, SuspensionKind } from './api.js';
import { emptyGraphFold, type GraphFold } from './trace-graph.js';
import { noUsage, type Usage } from './usage.js';

export type { Usage } from './usage.js';

export const OUTCOMES = ['SUCCESS', 'FAILED', 'REJECTED', 'DEFERRED'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** One tool call of a round. `outcome` is null while the call waits (a suspending call before the response). */
export interface CallView {
  callId: string;
  tool: string;
  args: unknown;
  outcome: Outcome | null;
  errorCode: string | null;
  reason: string;
  next: string | null;
  evidenceId: string | null;
  executed: boolean;
  lookBack: boolean;
  skipped: boolean;
  seq: number;
  /** When the call's `tool.invoked` was written (null while it waits). */
  ts: string | null;
  /** True for a builtin tool (`builtin_…`): never executed against a real system, never evidence. */
  builtin: boolean;
  /** What the call returned as the trace holds it; `hasResult` is false when the trace has none (not run, or an old trace). */
  hasResult: boolean;
  result: unknown;
  /** True when `result` is only the beginning of the call's result (the evidence holds all of it). */
  resultTruncated: boolean;
  /** The latest progress report of the call's tool (`tool.progress`), null when it reported none. */
  progress: CallProgress | null;
  /** The MCP tool's icon URL as the trace gives it (`tool.invoked`), null when it has none. */
  icon: string | null;
}

/** One progress report of a running call. */
export interface CallProgress {
  progress: number;
  total: number | null;
  message: string | null;
}

/** One round: a model call and the wave of tool calls it returned. */
export interface RoundView {
  kind: 'round';
  seq: number;
  round: number;
  text: string;
  hint: string | null;
  /** A person's steering messages read at the start of this round (`run.message`). */
  messages: { text: string; who: string | null }[];
  calls: CallView[];
  /** Tokens of this round's model call (null until the model answered). */
  usage: Usage | null;
  noToolCalls: boolean;
  /** The stall counter after this round, when the round counted a stall. */
  stall: { stalls: number; maxStalls: number } | null;
}

/** A person's response to a suspension (`run.resumed`). */
export interface Resolution {
  seq: number;
  ts: string;
  decision: 'approved' | 'rejected' | null;
  comment: string | null;
  answer: string | null;
  who: string | null;
  /** Everyone who approved, when the policy needed several people. */
  approvers: string[] | null;
  /** Edited arguments: the model's (`from`) and the approved ones (`to`). */
  edit: { from: Record<string, unknown>; to: Record<string, unknown> } | null;
}

/** A suspension of the run and, once given, the response. */
export interface SuspensionView {
  kind: 'suspension';
  seq: number;
  ts: string;
  nodeId: string;
  suspension: SuspensionKind;
  pending: Pending;
  resolution: Resolution | null;
  /** Set once the approval expired and was escalated (`approval.escalated`): when, and to whom. */
  escalated: { ts: string; to: string[] } | null;
}

/** A takeover after a crash (`run.resumed` with kind RECOVERY). */
export interface RecoveryView {
  kind: 'recovery';
  seq: number;
  ts: string;
}

export type TimelineItem = RoundView | SuspensionView | RecoveryView;

export type NodeStatus = 'running' | 'suspended' | 'completed' | 'failed';

/** One node run. */
export interface NodeView {
  id: string;
  status: NodeStatus;
  items: TimelineItem[];
  /** Consecutive stalls now (a SUCCESS resets them, docs/design.md) and the limit (null when the trace does not say it). */
  stalls: number;
  maxStalls: number | null;
  /** The node run's round limit (null for traces written before `node.started` carried it). */
  maxRounds: number | null;
  /** Tokens of the node run's model calls. */
  usage: Usage;
  outputs: Record<string, unknown> | null;
  failure: { reason: string; message: string } | null;
  /** The node runs this one followed (indices into `RunView.nodes`; several: a join; none: the first). */
  from: number[];
  /** For an item of a map node: the map node run (index into `RunView.nodes`) and the item's position. */
  itemOf: number | null;
  itemIndex: number | null;
  /** The engine's number of this node run, when the trace gives it (`nodeRun`). */
  nodeRun: number | null;
}

/** The whole run as the trace tells it. */
export interface RunView {
  flowId: string | null;
  flowVersion: string | null;
  input: unknown;
  parentRunId: string | null;
  nodes: NodeView[];
  ending: {
    type: 'run.completed' | 'run.failed' | 'run.cancelled';
    reason: string | null;
    message: string | null;
    ts: string;
  } | null;
  /** Tokens of every model call in the trace. */
  usage: Usage;
  lastSeq: number;
  /** What folding remembers to infer the graph (trace-graph.ts). */
  graphFold: GraphFold;
}

/** An empty view (no events yet). */
export function emptyRun(): RunView {
  return {
    flowId: null,
    flowVersion: null,
    input: null,
    parentRunId: null,
    nodes: [],
    ending: null,
    usage: noUsage(),
    lastSeq: 0,
    graphFold: emptyGraphFold(),
  };
}
