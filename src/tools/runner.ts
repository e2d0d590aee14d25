import type { Flow } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import type { ModelTool } from '../model/model.js';
import type { NodeState, RunState } from '../records/run-state.js';
import { recoverWrite } from './approval/index.js';
import type { CallReport, CallResult, CallServices, ToolCall, ToolInvokerPort } from './call.js';
import { watchingCancel } from './cancel-watch.js';
import { createCallInput, flowNodeOf } from './context.js';
import { callTaskOf, interruptedWrite } from './interrupted.js';
import { replyRefusal } from './reply-rule.js';
import type { Observation } from '../domain/observation.js';
import type { Pipeline } from './pipeline.js';
import { withReaders, withResourceReader } from './readers.js';
import type { ToolDescriptor } from './tool.js';
import { landed } from '../records/changes.js';

/** The tools of one node run: what the node sees, every real tool of the flow, and how they are called. */
export interface NodeCatalog {
  /** Tools visible in the node (its `tools` plus the builtins), by model-facing name. */
  readonly visible: ReadonlyMap<string, ToolDescriptor>;
  /** Every real tool of the flow (look-backs may use one not visible in the node). */
  readonly all: ReadonlyMap<string, ToolDescriptor>;
  /** Calls the flow's real tools. */
  readonly invoker: ToolInvokerPort;
  /** Resolves once the tool list changes the MCP servers announced so far are in the catalog. */
  settled?(): Promise<void>;
}

/** Where one call runs, as its progress, server log and sampling events say. */
export interface CallPlace {
  readonly nodeId: string;
  readonly round: number;
  readonly callId: string;
  readonly tool: string;
}

/** What one call reports while it runs; made for a call when it first reports something. */
export type CallHooks = Pick<CallServices, 'progress' | 'serverLog' | 'sample' | 'taskTrace'>;

/** The services every call of the node run shares; the invoker is the catalog's, the time the clock's. */
export type RunnerServices = Omit<
  CallServices,
  'invoker' | 'now' | 'progress' | 'serverLog' | 'sample' | 'taskTrace'
>;

/** What `createCallRunner` needs: the node run's place, its tools, the pipeline and the services. */
export interface CallRunnerOptions {
  readonly flow: Flow;
  readonly nodeId: string;
  /** The run's state and the node run's (changed in place by the calls). */
  readonly run: RunState;
  readonly node: NodeState;
  /** The input the run was started with (user guards see it). */
  readonly input?: unknown;
  readonly catalog: NodeCatalog;
  readonly pipeline: Pipeline;
  /** The runtime's clock (ms since the epoch): each call's `now`. */
  readonly clock: () => number;
  readonly services: RunnerServices;
  /** The hooks of one call (its progress, server log and sampling), asked for when the call first needs one. */
  readonly hooks?: (place: CallPlace) => CallHooks;
  /** A cancel made by another process, noticed while a call runs (src/tools/cancel-watch.ts). */
  readonly cancel?: { cancelled(): Promise<boolean>; onCancel(): void };
}

/** The one port through which a node run's calls go: the loop and code nodes call it. */
export interface CallRunner {
  /**
   * The tools a model call offers: the node's visible ones, with builtin_resource_read once a tool result
   * of the run linked to a resource. Read for each model call: it follows the servers' tool list changes.
   */
  tools(): ModelTool[];
  /**
   * Runs one call through the guard pipeline (or recovers it, when it is a write a dead driver left in
   * flight), then waits until the tool list changes the servers announced meanwhile are in the catalog.
   */
  call(call: ToolCall, round: number): Promise<CallResult>;
  /**
   * A text answer's refusal by the node's reply rule (`reply: { untrusted: refuse }`: a name standing only
   * in untrusted text), or null; always null for a node without the rule.
   */
  checkReply(reply: string): Promise<Observation | null>;
  /** `{ icon }`: the safe icon URL of the tool the model calls by this name, for the console; `{}` when none. */
  iconOf?(tool: string): { icon?: string };
}

/** Builds the call port of one node run. */
export function createCallRunner(options: CallRunnerOptions): CallRunner {
  const { flow, run, catalog } = options;
  const locale: Locale = flow.locale;
  const now = () => new Date(options.clock());
  return {
    tools: () =>
      [...withResourceReader(catalog.visible, run, catalog.all, locale).values()].map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
      })),
    iconOf(tool) {
      const icon = catalog.all.get(tool)?.icon;
      return icon === undefined ? {} : { icon };
    },
    async call(call, round) {
      const result = await runCall(options, now, call, round);
      // A server that changed its tools during the call has them listed again before the next turn.
      await catalog.settled?.();
      return result;
    },
    checkReply: (reply) =>
      flowNodeOf({ flow, nodeId: options.nodeId }).reply?.untrusted === 'refuse'
        ? replyRefusal(reply, {
            run,
            tools: catalog.all,
            flow,
            nodeId: options.nodeId,
            locale,
            services: options.services,
          })
        : Promise.resolve(null),
  };
}

async function runCall(
  options: CallRunnerOptions,
  now: () => Date,
  call: ToolCall,
  round: number,
): Promise<CallResult> {
  const { flow, nodeId, run, node, catalog, pipeline } = options;
  const hooks = lazyHooks(options, { nodeId, round, callId: call.callId, tool: call.tool });
  const input = createCallInput({
    call: { callId: call.callId, tool: call.tool, rawArgs: call.rawArgs },
    flow,
    nodeId,
    run,
    node,
    input: options.input,
    visible: withReaders(catalog.visible, { run, node, tools: catalog.all, locale: flow.locale }),
    tools: catalog.all,
    services: { ...options.services, invoker: catalog.invoker, now, ...hooks },
  });
  const interrupted = interruptedWrite(run, nodeId, call);
  // A write interrupted while its MCP task worked is not settled blind: the call polls its task (docs/mcp.md).
  const tasked = interrupted && callTaskOf(run, interrupted) !== undefined;
  if (interrupted && tasked) input.changes.record(landed(interrupted));
  else if (interrupted) return { ...(await recoverWrite(input, interrupted, pipeline)), sent: true };
  const report = options.cancel
    ? await watchingCancel(pipeline(input), { ...options.cancel, signal: options.services.signal })
    : await pipeline(input);
  return loopResult(report, call.rawArgs);
}

/** A call's hooks, each made on its first use (most calls report nothing). */
function lazyHooks(options: CallRunnerOptions, place: CallPlace): CallHooks {
  const make = options.hooks;
  if (!make) return {};
  let made: CallHooks | undefined;
  const hooks = (): CallHooks => (made ??= make(place));
  return {
    progress: (progress) => hooks().progress?.(progress),
    serverLog: (message, server) => hooks().serverLog?.(message, server),
    taskTrace: (event) => hooks().taskTrace?.(event),
    sample: (request, call) => {
      const sample = hooks().sample;
      if (!sample) return Promise.reject(new Error(`sampling is not offered to ${call.server}`));
      return sample(request, call);
    },
  };
}

/**
 * What the caller gets of a call's report: its observation and effect, the arguments as traced, the
 * fingerprint it counted, and whether a write was sent (recorded even when the driver stops).
 */
export function loopResult(report: CallReport, rawArgs: string): CallResult {
  return {
    observation: report.observation,
    effect: report.effect,
    args: report.args ?? traceArgs(rawArgs),
    executed: report.executed,
    ...(report.counted && report.fingerprint ? { counted: report.fingerprint } : {}),
    ...(report.isWrite === true && report.executed ? { sent: true } : {}),
  };
}

/** The arguments as traced: parsed JSON, or the raw string when it is not valid JSON. */
export function traceArgs(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}
