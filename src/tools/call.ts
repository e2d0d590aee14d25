import type { Flow, ToolPolicy } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import type { Observation } from '../domain/observation.js';
import type { NodeState, RunState, ValueMatch } from '../domain/run-state.js';
import type { ToolDescriptor } from '../domain/tool.js';

// The types of one tool call, shared by the pipeline, its guards, the builtins and the runtime.
// Types only: every layer that handles a call can import this module without importing the guards.

/** One tool call as the model made it. */
export interface ToolCall {
  readonly callId: string;
  readonly tool: string;
  /** The model's raw argument string, untouched (ARG_JSON_INVALID is ours to decide). */
  readonly rawArgs: string;
}

/** The pending item of an approval suspension (docs/observations.md builtin_node_approval). */
export interface ApprovalPending {
  tool: string;
  args: Record<string, unknown>;
  summary: string;
  /** Argument name → evidence id the value was found in. */
  provenance: Record<string, string>;
  /** Argument name → the user's words (run input or an answer) a `source: user` value was found in; absent when none. */
  userProvenance?: Record<string, string>;
  /** Argument name → where its value (or each element or field) was found, with the matched span of a text; absent when none. */
  matches?: Record<string, ValueMatch[]>;
  /** The pending item's id, when it comes from a child run (kept, the child checks responses against it). */
  id?: string;
}

/** The pending item of a follow-up suspension. */
export interface FollowUpPending {
  question: string;
  options: string[] | null;
  /** As ApprovalPending's. */
  id?: string;
}

/** A request to wait for a person (docs/observations.md). */
export type SuspensionRequest =
  | { kind: 'APPROVAL'; pending: ApprovalPending; fingerprint: string }
  | { kind: 'FOLLOW_UP'; pending: FollowUpPending };

/** What a control builtin asks the loop to do after its call. */
export type ControlEffect =
  | { kind: 'finish'; summary: string }
  | { kind: 'fail'; reason: string }
  /** Wait for a person. `childRunId` is set when a delegated child run suspended (its pending item). */
  | { kind: 'suspend'; suspension: SuspensionRequest; childRunId?: string };

/** Per-call options of a real tool invocation (the MCP layer's `ToolInvoker` signature). */
export interface InvokeOptions {
  timeoutMs: number;
  /** MCP calls reporting progress: each report starts `timeoutMs` afresh, up to this in all (docs/mcp.md). */
  maxTotalMs?: number;
  signal?: AbortSignal;
  /** Sent to MCP servers in the request's `_meta` (e.g. `{ idempotencyKey }`). */
  meta?: Record<string, unknown>;
  locale: Locale;
}

/**
 * Calls a real tool (MCP or local) and classifies the result: SUCCESS with the tool's result as
 * data, or FAILED with an invoker-level code. Never throws for a tool's failure.
 */
export interface ToolInvokerPort {
  invoke(tool: ToolDescriptor, args: Record<string, unknown>, options: InvokeOptions): Promise<Observation>;
}

/** The structural subset of src/log/logger.ts `Logger` the pipeline writes to. */
export interface PipelineLogger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
}

/** A runtime look-back of an interrupted write (pipeline step 6, docs/design.md; docs/durability.md), for the trace (`lookBack: true`). */
export interface LookBackEvent {
  /** The interrupted write's call id and tool. */
  callId: string;
  writeTool: string;
  /** The look-back's tool and arguments, as sent. */
  tool: string;
  args: Record<string, unknown>;
  /** The look-back's observation (it cites its evidence id). */
  observation: Observation;
  /** True when `found` held: the write took effect. */
  found: boolean;
}

/** The result of a delegated child run (docs/observations.md builtin_node_delegate). */
export type DelegateResult =
  | { status: 'completed'; childRunId: string; outputs: Record<string, unknown> }
  | { status: 'failed'; childRunId: string; reason: string; message: string }
  | { status: 'suspended'; childRunId: string; suspension: SuspensionRequest };

/** Runs child runs for builtin_node_delegate; provided by the runtime. */
export interface DelegateService {
  /** The ids of the flows this node may delegate to (its `delegates` files, loaded). */
  flows(ctx: CallInput): Promise<readonly string[]>;
  /** Starts a child run of flow `flow` with `task` as its input text and drives it until it ends or suspends. */
  run(flow: string, task: string, ctx: CallInput): Promise<DelegateResult>;
}

/** Side effects a call may need, injected so tests stay deterministic (STYLE.md habit 4). */
export interface CallServices {
  /** Real tools (MCP and local) are invoked through this. */
  readonly invoker: ToolInvokerPort;
  /** Persists the run state now (write-ahead for in-flight writes, docs/durability.md). */
  /**
   * Persists what is buffered. `beforeEffect`: the commit that precedes an effect outside the run (a
   * write's in-flight mark, a delegate's start); it fails when anything else changed the run meanwhile,
   * even a cancel request, so that nothing is started after a cancel.
   */
  checkpoint(options?: { beforeEffect?: boolean }): Promise<void>;
  /** The current time. */
  now(): Date;
  /** The human-readable log: one `TOOL invoked` line per call. */
  readonly logger: PipelineLogger;
  /** Told about each look-back the invoke step ran (the runtime traces it as `tool.invoked`, lookBack true). */
  onLookBack?(event: LookBackEvent): void | Promise<void>;
  /** Child runs for builtin_node_delegate; without it a delegation fails with TOOL_ERROR. */
  readonly delegate?: DelegateService;
  /** Aborted when the run is cancelled; passed to every invocation. */
  readonly signal?: AbortSignal;
  /** An eval baseline (`--guards off`, docs/evals.md): provenance and fingerprint checks are skipped. */
  readonly baseline?: boolean;
}

/** What one call starts with: the model's call, where it happens, and the services it may use. */
export interface CallInput {
  readonly call: ToolCall;
  readonly flow: Flow;
  readonly nodeId: string;
  readonly locale: Locale;
  readonly run: RunState;
  readonly node: NodeState;
  /** Tools visible in this node (its `tools` plus the visible builtins), by model-facing name. */
  readonly visible: ReadonlyMap<string, ToolDescriptor>;
  /** Every real tool of the flow by model-facing name (the look-back may use one not visible here). */
  readonly tools: ReadonlyMap<string, ToolDescriptor>;
  readonly services: CallServices;
  /** True for crash recovery's re-send of an interrupted idempotent write (it settles, not starts, a write). */
  readonly resending?: boolean;
}

/** The result of a write's look-back. `decided`: its `found` could be judged (false: it failed and decides nothing). */
export interface LookBackResult {
  readonly evidenceId: string;
  readonly found: boolean;
  readonly decided: boolean;
}

/**
 * What the runtime reads of a call once the pipeline returned (the trace, the node loop, telemetry).
 * The pipeline writes it from the typed values its steps handed on (src/tools/stages.ts) when the call
 * ends; the steps themselves never read it. A field is absent when the call stopped before the step
 * that learns it.
 */
export interface CallReport {
  /** The tool the catalog step resolved. */
  descriptor?: ToolDescriptor;
  /** The flow's policy of this tool, if any. */
  policy?: ToolPolicy;
  /** True for a write tool (flow `write`, else MCP annotations; builtins never). */
  isWrite?: boolean;
  /** The parsed arguments. */
  args?: Record<string, unknown>;
  /** Tool + canonical arguments. */
  fingerprint?: string;
  /** True once the call was sent (or an attempt was made) to a real tool. */
  executed: boolean;
  /** True when the fingerprint step counted this call (the runtime persists counts through it). */
  counted?: boolean;
  /** True when the write gate answered from an earlier evidence. */
  reused: boolean;
  /** True when this call passed the gate on an approval (an approved write). */
  approved: boolean;
  /** Set when the invoke step looked back an interrupted write. */
  lookBack?: LookBackResult;
  /** Set by builtins that end the node or suspend the run. */
  effect?: ControlEffect;
  /** Argument name → evidence id, for `source: evidence` params. */
  provenance: Record<string, string>;
  /** Argument name → the user's words it was found in, for `source: user` params. */
  userProvenance: Record<string, string>;
  /** Argument name → where its value (or each element or field) was found. */
  matches: Record<string, ValueMatch[]>;
}

/** One call as the runtime holds it: its input, and its report once the pipeline returned. Build it with `createCallContext`. */
export interface CallContext extends CallInput, CallReport {}

/** What `createCallContext` needs; the rest starts empty. */
export interface CallContextInit {
  call: ToolCall;
  flow: Flow;
  nodeId: string;
  run: RunState;
  node: NodeState;
  visible: ReadonlyMap<string, ToolDescriptor>;
  /** Every real tool of the flow; default: the real tools among `visible`. */
  tools?: ReadonlyMap<string, ToolDescriptor>;
  services: CallServices;
  /** Default: the flow's locale. */
  locale?: Locale;
}
