import type { Flow, ToolPolicy } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import type { Observation } from '../domain/observation.js';
import type {
  ApprovalPending,
  ElicitationPending,
  FollowUpPending,
  TaskPending,
} from '../records/pending.js';
import type { ChangeLog, RunChange } from '../records/changes.js';
import type { NodeState, RunState, ValueMatch } from '../records/run-state.js';
import type { ToolDescriptor } from '../domain/tool.js';
import type { ElicitHandler, HoldHandler, McpElicitAnswer, McpElicitation } from '../mcp/elicitation.js';
import type { InputRound } from '../records/run-state.js';
import type { SampleHandler, McpSamplingRequest, McpSamplingResult } from '../mcp/sampling.js';
import type { LogSink, McpLogMessage } from '../mcp/server-log.js';
import type { McpTaskState } from '../mcp/types.js';

// The types of one tool call, shared by the pipeline, its guards, the builtins and the runtime.
// Types only: every layer that handles a call can import this module without importing the guards.

/** One tool call as the model made it. */
export interface ToolCall {
  readonly callId: string;
  readonly tool: string;
  /** The model's raw argument string, untouched (ARG_JSON_INVALID is ours to decide). */
  readonly rawArgs: string;
}

export type { ApprovalPending, ElicitationPending, FollowUpPending };

/** How an MCP call's questions reach the run (docs/mcp.md, "Elicitation"). */
export interface ElicitBridge {
  /** The stored answer to a question, or null: the person has to be asked. */
  readonly answer: ElicitHandler;
  /** The call was cancelled for a question the person has to answer (the observation is then a placeholder). */
  readonly asked: (request: McpElicitation) => void;
  /** The `input_required` round the call was suspended in, once the person answered it (2026-07-28). */
  readonly resume: () => InputRound | undefined;
  /** Holds a question nobody answered yet open while a person may answer it (docs/mcp.md). */
  readonly hold?: HoldHandler;
}

/** How an MCP call that runs as a task reaches the run (docs/mcp.md, "Tools that run as tasks"). */
export interface TaskBridge {
  /** How long the call waits for the task in this process before the run waits for it. */
  readonly waitMs: number;
  /** The task this very call started earlier (same fingerprint): polled, never sent again. */
  readonly resume: () => string | undefined;
  /** The server created the task: the run records (and commits) it before it is polled. */
  readonly started: (task: McpTaskState) => Promise<void>;
  /** The task had not ended within `waitMs`: the run waits for it (the observation is then a placeholder). */
  readonly working: (task: McpTaskState) => void;
  /** The call has its result (or failed): the task is no longer waited for. */
  readonly ended: () => void;
}

/** What the runtime traces of a call's MCP task (`tool.task`, docs/trace.md). */
export interface TaskTraceEvent {
  readonly server: string;
  readonly taskId: string;
  readonly phase: 'started' | 'polled';
  readonly status: string;
  readonly statusMessage?: string;
}

/** A request to wait for a person (docs/observations.md). */
export type SuspensionRequest =
  | { kind: 'APPROVAL'; pending: ApprovalPending; fingerprint: string }
  | { kind: 'FOLLOW_UP'; pending: FollowUpPending }
  | { kind: 'TASK'; pending: TaskPending };

/** What a control builtin asks the loop to do after its call. */
export type ControlEffect =
  | { kind: 'finish'; summary: string }
  /** The node fails: FAILED_BY_MODEL (builtin_node_fail), or `failure` when the runtime ends it (a server needing authorization). */
  | { kind: 'fail'; reason: string; failure?: 'TOOLS_UNAUTHORIZED' }
  /** Wait for a person. `childRunId` is set when a delegated child run suspended (its pending item). */
  | { kind: 'suspend'; suspension: SuspensionRequest; childRunId?: string };

/**
 * What the node loop gets of one call: the engine builds it from the pipeline's `CallReport` (or crash
 * recovery does, for an interrupted write).
 */
export interface CallResult {
  observation: Observation;
  effect?: ControlEffect;
  /** The parsed arguments, or the raw string when they were not valid JSON (for the trace). */
  args: unknown;
  executed: boolean;
  /** The fingerprint the call added to the node run's count, if it reached the fingerprint step. */
  counted?: string;
  /** Set by crash recovery when an interrupted write's result is unknown: the run asks the person this. */
  runtimeQuestion?: string;
  /** A write was sent (or an interrupted one settled): recorded even when the driver is told to stop. */
  sent?: boolean;
}

/** Per-call options of a real tool invocation (the MCP layer's `ToolInvoker` signature). */
export interface InvokeOptions {
  timeoutMs: number;
  /** MCP calls reporting progress: each report starts `timeoutMs` afresh, up to this in all (docs/mcp.md). */
  maxTotalMs?: number;
  signal?: AbortSignal;
  /** Sent to MCP servers in the request's `_meta` (e.g. `{ idempotencyKey }`). */
  meta?: Record<string, unknown>;
  locale: Locale;
  /** Told about each progress report of the call (MCP `notifications/progress`, a local tool's `progress`). */
  onProgress?: (progress: ToolProgress) => void;
  /** MCP calls: the server's questions to the person (docs/mcp.md, "Elicitation"). */
  elicit?: ElicitBridge;
  /** MCP calls of tools that run as tasks: how the run waits for the task. */
  task?: TaskBridge;
  /** MCP calls to a server with `sampling: true`: its sampling requests, answered by the node's model. */
  sample?: SampleHandler;
  /** MCP calls: the server's log messages while the call runs. */
  onLog?: LogSink;
}

/** One progress report of a running tool call (MCP `notifications/progress`). */
export interface ToolProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/**
 * Calls a real tool (MCP or local) and classifies the result: SUCCESS with the tool's result as
 * data, or FAILED with an invoker-level code. Never throws for a tool's failure.
 */
export interface ToolInvokerPort {
  invoke(tool: ToolDescriptor, args: Record<string, unknown>, options: InvokeOptions): Promise<Observation>;
  /**
   * `resources/read` of `uri` on MCP server `server` for builtin_resource_read: SUCCESS with
   * `{uri, contents}` (binary contents as their size), or FAILED with an invoker-level code.
   */
  readResource?(server: string, uri: string, options: InvokeOptions): Promise<Observation>;
  /**
   * `resources/list` and `resources/templates/list` of MCP server `server` for builtin_resource_list:
   * SUCCESS with `{server, resources, templates}`, or FAILED with an invoker-level code.
   */
  listResources?(server: string, options: InvokeOptions): Promise<Observation>;
  /**
   * The text of prompt `name` of MCP server `server` with `args` (`prompts/get`), for a node's
   * `prompt`. Throws what the connection throws (the runtime classifies it like a catalog failure).
   */
  promptText?(
    server: string,
    name: string,
    args: Readonly<Record<string, string>>,
    options: Pick<InvokeOptions, 'timeoutMs' | 'signal'>,
  ): Promise<string>;
  /**
   * `tasks/get` (or `tasks/cancel`) of a task of MCP server `server` that a call of a suspended run
   * started (docs/mcp.md, "Tools that run as tasks"): the task as the server reports it. Throws what the
   * connection throws (a task the server no longer knows: its error).
   */
  task?(
    server: string,
    taskId: string,
    action: 'get' | 'cancel',
    options: Pick<InvokeOptions, 'timeoutMs'>,
  ): Promise<McpTaskState>;
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

/** Side effects a call may need, injected so tests stay deterministic. */
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
  /** Told about each progress report of this call's tool (the runtime traces it as `tool.progress`). */
  progress?(progress: ToolProgress): void;
  /**
   * Holds an MCP server's question open while a person may answer it from any process (docs/mcp.md,
   * "Holding the request open"): the answer, or null; without it questions are never held.
   */
  readonly holdQuestion?: (question: ElicitationPending, holdMs: number) => Promise<McpElicitAnswer | null>;
  /**
   * Answers an MCP server's sampling request made during a call of `tool` on `server` with the node's
   * model (docs/mcp.md, "Sampling"); without it such requests are refused.
   */
  readonly sample?: (
    request: McpSamplingRequest,
    call: { readonly server: string; readonly tool: string },
  ) => Promise<McpSamplingResult>;
  /**
   * Told about the log messages an MCP server sent while this call of `server` was its only one in
   * flight (the runtime traces them as `mcp.log`, docs/mcp.md "Server log messages").
   */
  serverLog?(message: McpLogMessage, server: string): void;
  /** Told when this call's MCP task was created or looked at (the runtime traces it as `tool.task`). */
  taskTrace?(event: TaskTraceEvent): void;
  /** How long a call that runs as a task waits for it before the run waits for it (default 2 s). */
  readonly taskWaitMs?: number;
  /** An eval baseline (`--guards off`, docs/evals.md): provenance and fingerprint checks are skipped. */
  readonly baseline?: boolean;
  /** Records each call (an `execute_tool` span, the step duration): the telemetry stage of the pipeline. */
  readonly telemetry?: CallWatch;
  /**
   * `suspend`: a call refused by an MCP server whose entry has `auth` with grant authorization_code
   * suspends the run until a person authorizes it (docs/mcp.md, "Connect"); otherwise such a call
   * fails the node TOOLS_UNAUTHORIZED.
   */
  readonly authorization?: 'suspend' | 'fail';
}

/** What one call starts with: the model's call, where it happens, and the services it may use. */
export interface CallInput {
  readonly call: ToolCall;
  readonly flow: Flow;
  readonly nodeId: string;
  readonly locale: Locale;
  /** The run and its node run as they stand: read here; changed only through `changes`. */
  readonly run: Readonly<RunState>;
  readonly node: Readonly<NodeState>;
  /** Where the call's stages record what they change (src/records/changes.ts): applied at once, kept for the report. */
  readonly changes: ChangeLog;
  /** The input the run was started with (user guards see it, docs/interceptors.md). */
  readonly input?: unknown;
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
 * What one call came to: the pipeline's one result, an immutable value (frozen). It is built once,
 * when the call settles, from the typed values its stages handed on (src/tools/stages.ts); no stage
 * writes onto shared state to report. A field of a stage the call never reached is absent.
 */
export interface CallReport {
  /** What the model is told. */
  readonly observation: Observation;
  /** What the call changed of the run, in the order made (already applied). */
  readonly changes: readonly RunChange[];
  /** True once the call was sent (or an attempt was made) to a real tool. */
  readonly executed: boolean;
  /** True when the write gate answered from an earlier evidence. */
  readonly reused: boolean;
  /** True when this call passed the gate on an approval (an approved write). */
  readonly approved: boolean;
  /** Set by builtins that end the node or suspend the run. */
  readonly effect?: ControlEffect;
  /** Set when the invoke step looked back an interrupted write. */
  readonly lookBack?: LookBackResult;
  /** The tool the catalog step resolved. */
  readonly descriptor?: ToolDescriptor;
  /** The flow's policy of this tool, if any. */
  readonly policy?: ToolPolicy;
  /** True for a write tool (flow `write`, else MCP annotations; builtins never). */
  readonly isWrite?: boolean;
  /** The parsed arguments. */
  readonly args?: Record<string, unknown>;
  /** Tool + canonical arguments. */
  readonly fingerprint?: string;
  /** True when the fingerprint step counted this call (the runtime persists counts through it). */
  readonly counted: boolean;
  /** Argument name → evidence id, for `source: evidence` params. */
  readonly provenance: Readonly<Record<string, string>>;
  /** Argument name → the user's words it was found in, for `source: user` params. */
  readonly userProvenance: Readonly<Record<string, string>>;
  /** Argument name → where its value (or each element or field) was found. */
  readonly matches: Readonly<Record<string, ValueMatch[]>>;
}

/** A stage that sees a call from its start to its end, and changes nothing (telemetry, the log). */
export type CallWatch = (input: CallInput) => WatchedCall;

/** One call as a watch stage follows it: told once how it ended. */
export interface WatchedCall {
  /** The call settled with this report. */
  ended(report: CallReport): void;
  /** The pipeline threw (a bug, or a checkpoint refused before an effect); the error is rethrown. */
  threw(error: unknown): void;
}

/** What `createCallInput` needs; the rest takes defaults. */
export interface CallInputInit {
  call: ToolCall;
  flow: Flow;
  nodeId: string;
  run: RunState;
  node: NodeState;
  /** The run's input. */
  input?: unknown;
  visible: ReadonlyMap<string, ToolDescriptor>;
  /** Every real tool of the flow; default: the real tools among `visible`. */
  tools?: ReadonlyMap<string, ToolDescriptor>;
  services: CallServices;
  /** Default: the flow's locale. */
  locale?: Locale;
  /** Default: a new log applying to `run` and `node`. */
  changes?: ChangeLog;
}
