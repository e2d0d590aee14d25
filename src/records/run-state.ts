import { z } from 'zod';
import type { CodeCallRecord } from '../domain/code-step.js';

/**
 * The mutable, persistable state of a run that the guards and builtin tools read and change
 * (docs/design.md; docs/observations.md; docs/flows.md). Plain JSON data: the store persists it after every step.
 * Evidence and approvals are per run; gated calls, fingerprint counts, stalls and pending writes
 * are per node run. Each record is declared once, as a zod schema (checked when a stored run is
 * loaded, src/store/document.ts) with its TypeScript type inferred from it.
 */

const jsonObject = z.record(z.string(), z.unknown());
const stringMap = z.record(z.string(), z.string());
const pathSchema = z.array(z.union([z.string(), z.number()]));

/**
 * Where a checked value — an argument, one element or field of it, or an output — was found
 * (docs/flows.md, "How values are matched"), so that a person sees the very span it was cited from.
 */
export const ValueMatchSchema = z
  .object({
    /** Inside the argument or output value: [] the value itself, [1] its second element, ['city'] a field. */
    at: pathSchema.meta({
      description: 'Inside the argument: [] the value itself, [1] its second element, ["city"] a field.',
    }),
    source: z.enum(['evidence', 'user', 'derived']),
    /**
     * Set by contracts that state `untrusted` or `derive` (docs/flows.md, "Untrusted text"): the user's
     * words, a trusted record, untrusted text, or a derivation.
     */
    trust: z.enum(['user', 'trusted', 'untrusted', 'derived']).optional(),
    /** trust untrusted: the text around the match, as the person should read it. */
    context: z.string().optional(),
    /** source derived: the derivation found, e.g. `1000 (ev_1) + 100 (user) = 1100`. */
    derivation: z.string().optional(),
    /** source evidence: the evidence id. */
    evidenceId: z.string().optional(),
    /**
     * source evidence: the path of the matching leaf (or sub-tree) in the evidence payload, [] for the
     * payload itself; absent when a `path` selection cannot be traced back to the payload.
     */
    path: pathSchema
      .optional()
      .meta({ description: 'The matching leaf in the evidence payload ([] the payload itself).' }),
    /** A match inside a text: [start, end) of the value in the string at `path`, in UTF-16 code units. */
    span: z.tuple([z.number(), z.number()]).optional().meta({
      description: 'A match inside a text: [start, end) in the string at `path` (UTF-16 code units).',
    }),
  })
  .meta({ description: 'Where a checked value was found (docs/flows.md, matching).' });
export type ValueMatch = z.infer<typeof ValueMatchSchema>;

/** A tool call that really executed (SUCCESS or FAILED), kept for provenance, reuse and outputs. */
export const EvidenceRecordSchema = z.object({
  /** `ev_1`, `ev_2`, … numbered per run in the order calls executed. */
  id: z.string(),
  tool: z.string(),
  args: jsonObject,
  fingerprint: z.string(),
  outcome: z.enum(['SUCCESS', 'FAILED']),
  errorCode: z.string().nullable(),
  payload: z.unknown(),
  ts: z.string(),
  nodeId: z.string(),
  callId: z.string(),
  /** True for a runtime look-back query (docs/durability.md). */
  lookBack: z.boolean().optional(),
  /** For a look-back that confirmed an interrupted write: the write's fingerprint, counted as its evidence. */
  confirmsFingerprint: z.string().optional(),
});
export type EvidenceRecord = z.infer<typeof EvidenceRecordSchema>;

/** A person's approval of exactly one gated call, consumed once the write has executed (or may have). */
export const ApprovalSchema = z.object({
  fingerprint: z.string(),
  tool: z.string(),
  args: jsonObject,
  nodeId: z.string(),
  grantedAt: z.string(),
  who: z.string().nullable(),
  comment: z.string().nullable(),
  consumed: z.boolean(),
  /** Set when a rule of the tool's approval policy approved it, not a person (docs/approvals.md). */
  rule: z.enum(['auto']).optional(),
  /** With several approvers: every person who approved, in order (`who` is the last). */
  approvers: z.array(z.string()).optional(),
  /** Set when the person approved edited arguments: the arguments the model had given. */
  editedFrom: jsonObject.optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

/** A write call stopped by the write gate and waiting for `builtin_node_approval`. */
export const GatedCallSchema = z.object({
  tool: z.string(),
  args: jsonObject,
  fingerprint: z.string(),
  /** Argument name → evidence id it was found in (from `source: evidence` contracts). */
  provenance: stringMap,
  /** Argument name → the user's words it was found in (from `source: user` contracts); absent when none. */
  userProvenance: stringMap.optional(),
  /** Argument name → where its value (or each element or field) was found; absent when none. */
  matches: z.record(z.string(), z.array(ValueMatchSchema)).optional(),
  /** Set once the person declined it. */
  declined: z.boolean().optional(),
  /** Set when a rule of the tool's approval policy decided it (docs/approvals.md). */
  decidedBy: z.enum(['auto', 'reject']).optional(),
});
export type GatedCall = z.infer<typeof GatedCallSchema>;

/** A write whose result matched `pending`: accepted, not done yet (pipeline step 4c, docs/design.md). */
export const PendingWriteSchema = z.object({
  tool: z.string(),
  fingerprint: z.string(),
  verifyTool: z.string(),
  verifyArgs: jsonObject,
  /** The JSONata `done` expression and the names it is evaluated over (without `verify`). */
  done: z.string(),
  scope: z.object({ args: jsonObject, result: z.unknown(), key: z.string() }),
});
export type PendingWrite = z.infer<typeof PendingWriteSchema>;

/** A write marked as sent and not yet known to be done (docs/durability.md). */
export const InFlightWriteSchema = z.object({
  fingerprint: z.string(),
  tool: z.string(),
  args: jsonObject,
  /** The idempotency key, derived from the run id and the fingerprint. */
  key: z.string(),
  nodeId: z.string(),
  callId: z.string(),
  startedAt: z.string(),
});
export type InFlightWrite = z.infer<typeof InFlightWriteSchema>;

/**
 * A tool call the server runs as a task (docs/mcp.md, "Tools that run as tasks"), recorded as soon as the
 * server created it and kept until the call has its result: the call, sent again, polls this task.
 */
export const StartedTaskSchema = z.object({
  server: z.string(),
  tool: z.string(),
  fingerprint: z.string(),
  taskId: z.string(),
  nodeId: z.string(),
  callId: z.string(),
  startedAt: z.string(),
});
export type StartedTask = z.infer<typeof StartedTaskSchema>;

/**
 * One `input_required` round of an MCP call (2026-07-28, docs/mcp.md, "Elicitation"): the server's
 * input requests by key, and its opaque request state, echoed byte for byte when the call is retried.
 */
export const InputRoundSchema = z.object({
  inputRequests: z.record(
    z.string(),
    z.object({ method: z.string(), params: z.record(z.string(), z.unknown()).optional() }),
  ),
  requestState: z.string().optional(),
});
export type InputRound = z.infer<typeof InputRoundSchema>;

/** A person's answer to an MCP server's question, kept until the call it came up in is sent again. */
export const ElicitationAnswerSchema = z.object({
  server: z.string(),
  tool: z.string(),
  /** The fingerprint of the call the question came up in. */
  fingerprint: z.string(),
  action: z.enum(['accept', 'decline', 'cancel']),
  /** Accepted form content (the requested schema's defaults applied). */
  content: z.record(z.string(), z.unknown()).optional(),
  /** True once given to the server. */
  used: z.boolean().optional(),
  /** Set when the question came in an `input_required` result: the round the call is retried with. */
  round: InputRoundSchema.optional(),
});
export type ElicitationAnswer = z.infer<typeof ElicitationAnswerSchema>;

export const FollowUpRecordSchema = z.object({
  question: z.string(),
  options: z.array(z.string()).nullable(),
  answer: z.string(),
  nodeId: z.string(),
  /** Set when an MCP server asked (docs/mcp.md, "Elicitation"): the answer as the server gets it. */
  elicitation: ElicitationAnswerSchema.optional(),
});
export type FollowUpRecord = z.infer<typeof FollowUpRecordSchema>;

/** A value written with builtin_output_set. */
export const OutputValueSchema = z.object({
  value: z.unknown(),
  /** `code`: returned by a code node's function (docs/flows.md, "Code nodes"). */
  sourceType: z.enum(['evidence', 'user', 'node', 'model', 'code']),
  sourceRef: z.string().nullable(),
  /** sourceType evidence: where in the cited evidence the value (or each element) was found; absent when not checked. */
  match: z.array(ValueMatchSchema).optional(),
});
export type OutputValue = z.infer<typeof OutputValueSchema>;

/**
 * The persisted position of a node run's context compaction (src/loop/compaction.ts): rounds are
 * counted from the node run's first model answer; the first `dropped` rounds are folded into one
 * digest message and the first `stubbed` rounds have their tool results replaced by stubs. Both only
 * grow, so the compacted conversation is a pure function of the conversation and this state.
 */
export const ContextStateSchema = z.object({
  stubbed: z.number(),
  dropped: z.number(),
  /** How often the node run compacted (builtin_evidence_read is offered once this is above 0). */
  compactions: z.number(),
  /** The previous model call: its reported input tokens and how many messages it was sent, under this state. */
  last: z.object({ inputTokens: z.number(), messages: z.number() }).nullable(),
});
export type ContextState = z.infer<typeof ContextStateSchema>;

/** Per node run. */
export const NodeStateSchema = z.object({
  nodeId: z.string(),
  rounds: z.number(),
  stalls: z.number(),
  /** Fingerprint → how many times it reached the fingerprint step. */
  fingerprintCounts: z.record(z.string(), z.number()),
  /** The latest gated call waiting for approval, if any. */
  gatedCall: GatedCallSchema.nullable(),
  pendingWrites: z.array(PendingWriteSchema),
  outputs: z.record(z.string(), OutputValueSchema),
  /** True after an approved write failed, until the next follow-up (which is then never UNGROUNDED). */
  approvedWriteFailed: z.boolean(),
  /** How the node run's conversation is compacted (absent until the first model call with a context budget). */
  context: ContextStateSchema.optional(),
  /** A code node's tool calls so far, in order (absent for model nodes): a run again returns them. */
  code: z.object({ calls: z.array(z.custom<CodeCallRecord>(isObject)) }).optional(),
  /** The text of the node's MCP prompt (`prompt`), fetched once when the node run started. */
  prompt: z.string().optional(),
});
export type NodeState = z.infer<typeof NodeStateSchema>;

/** Per run. */
export const RunStateSchema = z.object({
  runId: z.string(),
  evidence: z.array(EvidenceRecordSchema),
  approvals: z.array(ApprovalSchema),
  inFlight: z.array(InFlightWriteSchema),
  followUps: z.array(FollowUpRecordSchema),
  /** Every string leaf of the run input, for `source: user` matching (answers are in followUps). */
  inputTexts: z.array(z.string()),
  /** Outputs of completed nodes, keyed by node id. */
  nodeOutputs: z.record(z.string(), jsonObject),
  /** Who started the run (a token's name, or the OS user of a local CLI); absent when unknown. */
  startedBy: z.string().optional(),
  /** A run in a thread: who started the thread (its first run's starter); absent when unknown. */
  threadStartedBy: z.string().optional(),
  /** String leaves of arguments a person edited on approval: they count as the user's words. */
  editTexts: z.array(z.string()).optional(),
  /** The highest seq of the steering messages the run has read (docs/approvals.md); absent: none. */
  steerSeq: z.number().int().nonnegative().optional(),
  /** The texts of the steering messages read: they count as the user's words. */
  steerTexts: z.array(z.string()).optional(),
  /** MCP tasks started by calls that have no result yet (absent: none). */
  tasks: z.array(StartedTaskSchema).optional(),
});
export type RunState = z.infer<typeof RunStateSchema>;

/**
 * One earlier turn of a thread (docs/threads.md) that a run in the thread starts with: what the user
 * said (their message, a follow-up answer) or what the assistant said (a reply, a question).
 */
export const ThreadTurnSchema = z.object({ role: z.enum(['user', 'assistant']), text: z.string() });
export type ThreadTurn = z.infer<typeof ThreadTurnSchema>;

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

/**
 * What the user has said: the input's string leaves, every follow-up answer, a person's edits of
 * arguments and the steering messages read.
 */
export function userTexts(run: RunState): string[] {
  return [
    ...run.inputTexts,
    ...run.followUps.map((f) => f.answer),
    ...(run.editTexts ?? []),
    ...(run.steerTexts ?? []),
  ];
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}
