import type { Flow, FlowNode, Limits, ToolPolicy } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import type { Observation } from '../domain/observation.js';
import type { NodeState, RunState } from '../domain/run-state.js';
import { defaultBuiltins, type BuiltinRegistry } from './builtin/registry.js';
import { catalogGuard } from './catalog.js';
import { argPolicyGuard } from './guards/arg-policy.js';
import { evidenceGuard } from './guards/evidence.js';
import { fingerprintGuard } from './guards/fingerprint.js';
import { invokeStep } from './guards/invoke.js';
import { logGuard } from './guards/log.js';
import { paramContractGuard } from './guards/param-contract.js';
import { responseContractGuard } from './guards/response-contract.js';
import { writeGateGuard } from './guards/write-gate.js';
import type { ToolDescriptor } from './tool.js';

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
  flows(ctx: CallContext): Promise<readonly string[]>;
  /** Starts a child run of flow `flow` with `task` as its input text and drives it until it ends or suspends. */
  run(flow: string, task: string, ctx: CallContext): Promise<DelegateResult>;
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
}

/**
 * Everything one call carries through the guard chain. Guards fill the optional fields as they
 * learn them (descriptor, policy, args, fingerprint, isWrite) and read/change the run and node state.
 * Build it with `createCallContext`.
 */
export interface CallContext {
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
  /** Set by the catalog step. */
  descriptor?: ToolDescriptor;
  /** The flow's policy of this tool, if any. Set by the catalog step. */
  policy?: ToolPolicy;
  /** True for a write tool (flow `write`, else MCP annotations; builtins never). Set by the catalog step. */
  isWrite?: boolean;
  /** Set by crash recovery for the re-send of an interrupted idempotent write (it settles, not starts, a write). */
  resending?: boolean;
  /** The parsed arguments. Set by the arg policy. */
  args?: Record<string, unknown>;
  /** Tool + canonical arguments. Set by the arg policy. */
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
  /** `decided`: the look-back ran and its `found` could be judged (false: it failed and decides nothing). */
  lookBack?: { evidenceId: string; found: boolean; decided: boolean };
  /** Set by builtins that end the node or suspend the run. */
  effect?: ControlEffect;
  /** Argument name → evidence id, filled by the param contract for `source: evidence` params. */
  provenance: Record<string, string>;
  /** Argument name → the user's words it was found in, filled by the param contract for `source: user` params. */
  userProvenance: Record<string, string>;
}

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

/** A fresh context for one call. */
export function createCallContext(init: CallContextInit): CallContext {
  const tools = init.tools ?? new Map([...init.visible].filter(([, d]) => d.kind !== 'builtin'));
  return {
    call: init.call,
    flow: init.flow,
    nodeId: init.nodeId,
    locale: init.locale ?? init.flow.locale,
    run: init.run,
    node: init.node,
    visible: init.visible,
    tools,
    services: init.services,
    executed: false,
    reused: false,
    approved: false,
    provenance: {},
    userProvenance: {},
  };
}

/** The flow node of the call; throws when the flow has no such node (a runtime bug). */
export function flowNodeOf(ctx: Pick<CallContext, 'flow' | 'nodeId'>): FlowNode {
  const node = ctx.flow.nodes.find((n) => n.id === ctx.nodeId);
  if (!node) throw new Error(`flow ${ctx.flow.id} has no node ${ctx.nodeId}`);
  return node;
}

/** Each node's effective limits, computed once per flow node (flows are not changed once loaded). */
const nodeLimits = new WeakMap<object, Limits>();

/** The limits in force for the context's node: the flow's, with the node's own on top. */
export function limitsOf(ctx: Pick<CallContext, 'flow' | 'nodeId'>): Limits {
  const node = ctx.flow.nodes.find((n) => n.id === ctx.nodeId);
  if (!node) return { ...ctx.flow.limits };
  let limits = nodeLimits.get(node);
  if (!limits) {
    limits = { ...ctx.flow.limits, ...(node.limits ?? {}) };
    nodeLimits.set(node, limits);
  }
  return limits;
}

/** A guard: returns an observation to end the chain, or calls `next()` and may rewrite its result. */
export type Guard = (ctx: CallContext, next: () => Promise<Observation>) => Promise<Observation>;

/**
 * Composes guards into one function, outermost first (Hono's compose, STYLE.md habit 3).
 * `terminal` runs when every guard called `next()`.
 */
export function compose(guards: readonly Guard[], terminal: (ctx: CallContext) => Promise<Observation>) {
  return (ctx: CallContext): Promise<Observation> => {
    let index = -1;
    const dispatch = (i: number): Promise<Observation> => {
      if (i <= index) return Promise.reject(new Error('next() called more than once in a guard'));
      index = i;
      const guard = guards[i];
      if (!guard) return terminal(ctx);
      return guard(ctx, () => dispatch(i + 1));
    };
    return dispatch(0);
  };
}

/** Options of `createPipeline`. */
export interface PipelineOptions {
  /** The builtin tools run by the invoke step; default: the standard builtins. */
  builtins?: BuiltinRegistry;
}

/** One call through the whole chain: always resolves to the call's observation. */
export type Pipeline = (ctx: CallContext) => Promise<Observation>;

/**
 * The invocation pipeline of docs/design.md: catalog → ArgPolicy → ParamContract → WriteGate → Fingerprint →
 * invoke, then ResponseContract → WriteGate.after → Evidence on the way back; the first step that
 * produces an observation ends the chain. The log step wraps everything (one `TOOL invoked` line).
 * As an onion the after-steps sit in reverse: Evidence wraps WriteGate, which wraps Fingerprint and
 * ResponseContract, so they run in the documented order after the invoke step.
 */
export function createPipeline(options: PipelineOptions = {}): Pipeline {
  const builtins = options.builtins ?? defaultBuiltins;
  return compose(
    [
      logGuard(),
      catalogGuard(),
      argPolicyGuard(),
      paramContractGuard(),
      evidenceGuard(),
      writeGateGuard(),
      fingerprintGuard(),
      responseContractGuard(),
    ],
    invokeStep(builtins),
  );
}
