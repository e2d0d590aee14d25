import type { FlowNode } from '../domain/flow.js';
import { nodeKindOf, type NodeKindName } from '../domain/node-kinds.js';
import { runGraph, type GraphExit, type GraphHost } from '../graph/flow-runner.js';
import { isParallelFlow, runParallelGraph } from '../graph/parallel.js';
import type { Logger } from '../log/logger.js';
import { catalogFailureReason } from '../mcp/errors.js';
import { runNode, type NodeExit } from '../loop/node-loop.js';
import type { ModelClient } from '../model/model.js';
import type { CallServices, LookBackEvent } from '../tools/call.js';
import { createCallRunner, type CallRunner, type NodeCatalog } from '../tools/runner.js';
import { newNodeState } from '../records/run-state.js';
import type { RunRecord } from '../store/store.js';
import type { Locale } from '../domain/locale.js';
import { guardsOff, type Ablation } from './ablation.js';
import { catalogAuthorization, suspendForCatalog } from './authorization.js';
import { runCodeNode } from './code-node.js';
import type { CodeRegistry } from './code-registry.js';
import { createNodeHost, nodeLimits, type NodeDeps } from './node-host.js';
import { fetchNodePrompt } from './node-prompt.js';
import { holdQuestion } from './held-question.js';
import { progressTrace } from './progress-trace.js';
import { nodeSampler } from './sampling-host.js';
import type { Clock } from './seams.js';
import { serverLogTrace } from './server-log-trace.js';
import type { RunSession } from './session.js';
import type { MessageReader } from './steering.js';
import type { FlowCatalog, FlowRef, Toolbox } from './toolbox.js';

/** What driving a run needs besides the session. */
export interface DriveContext {
  toolbox: Toolbox;
  logger: Logger;
  owner: string;
  leaseMs: number;
  clock: Clock;
  signal: AbortSignal;
  /** Extra services offered to calls (delegation, look-back tracing, the telemetry stage's recorder, MCP authorization). */
  services: Pick<CallServices, 'delegate' | 'onLookBack' | 'telemetry' | 'authorization'>;
  /** Eval switches (docs/evals.md): plain observations, guards off. */
  ablation?: Ablation;
  /** Where code nodes' functions come from. */
  code: CodeRegistry;
  /** Reads a run's steering messages (absent: a store without them). */
  readMessages?: MessageReader;
  /** Runs each node run inside a telemetry span (none: run it as is). */
  traceNode?: <T extends NodeExit>(nodeId: string, run: () => Promise<T>) => Promise<T>;
}

/**
 * Drives a run from where its session stands until it ends or suspends, holding and renewing its
 * lease (docs/durability.md) so that every other driver backs off meanwhile.
 */
export async function drive(
  session: RunSession,
  ref: FlowRef,
  model: ModelClient,
  ctx: DriveContext,
): Promise<GraphExit> {
  session.lease = { owner: ctx.owner, ms: ctx.leaseMs };
  const timer = setInterval(
    () => {
      session
        .renewLease()
        .catch((error: unknown) =>
          ctx.logger.warn('RUN lease renewal failed', { runId: session.runId, error }),
        );
    },
    Math.max(50, Math.floor(ctx.leaseMs / 3)),
  );
  timer.unref();
  const runNode = (node: FlowNode) =>
    ctx.traceNode
      ? ctx.traceNode(node.id, () => runOneNode(session, ref, node, model, ctx))
      : runOneNode(session, ref, node, model, ctx);
  const host: GraphHost = {
    flow: ref.flow,
    conditions: ctx.code.conditions(ref),
    doc: session.doc,
    run: session.run,
    input: session.current.input,
    emit: (event) => session.emit(event),
    update: (patch) => session.update(patch),
    checkpoint: () => session.checkpoint(),
    resetConversation: () => session.resetConversation(),
    runNode,
  };
  try {
    if (!isParallelFlow(ref.flow)) return await runGraph(host);
    return await runParallelGraph({
      ...host,
      runBranch: (branch, node) => session.branches.run(branch, () => runNode(node)),
      adoptConversation: (branch) => session.branches.preload(branch, [...session.conversation()]),
    });
  } finally {
    clearInterval(timer);
    session.lease = null;
  }
}

async function runOneNode(
  session: RunSession,
  ref: FlowRef,
  node: FlowNode,
  model: ModelClient,
  ctx: DriveContext,
) {
  let catalog: FlowCatalog;
  try {
    catalog = await ctx.toolbox.catalog(ref);
  } catch (error) {
    const authorize = ctx.services.authorization === 'suspend' && catalogAuthorization(ref.flow, error);
    if (authorize) {
      ctx.logger.warn('RUN waits for an MCP authorization', { runId: session.runId, server: authorize });
      return suspendForCatalog(session, ref.flow, node.id, authorize);
    }
    ctx.logger.error('RUN tools unavailable', { runId: session.runId, node: node.id, error });
    return {
      kind: 'failed',
      reason: catalogFailureReason(error),
      message: error instanceof Error ? error.message : String(error),
    } as const;
  }
  const limits = nodeLimits(ref.flow, node);
  const visible = catalog.visible(node);
  const deps: NodeDeps = {
    flow: ref.flow,
    model,
    logger: ctx.logger,
    signal: ctx.signal,
    visible,
    runner: nodeRunner(
      session,
      ref,
      node,
      {
        visible,
        all: catalog.all,
        invoker: catalog.invoker,
        ...(catalog.settled ? { settled: catalog.settled.bind(catalog) } : {}),
      },
      model,
      ctx,
    ),
    ...(ctx.ablation?.observations ? { observations: ctx.ablation.observations } : {}),
    ...(ctx.readMessages ? { readMessages: ctx.readMessages } : {}),
    // At a round, not here: a resumed run's `run.resumed` is followed by its resolution (docs/trace.md).
    atRound: () => traceProtocols(session, node.id, catalog),
  };
  const run = { session, ref, node, deps, catalog, ctx, toolTimeoutMs: limits.toolTimeoutMs };
  return KIND_RUNNERS[nodeKindOf(node).name](run);
}

/** What the runner of a node kind gets: the node, its run session, and what the driver prepared for it. */
interface KindRun {
  readonly session: RunSession;
  readonly ref: FlowRef;
  readonly node: FlowNode;
  readonly deps: NodeDeps;
  readonly catalog: FlowCatalog;
  readonly ctx: DriveContext;
  readonly toolTimeoutMs: number;
}

/** How each node kind (src/domain/node-kinds.ts) runs: a kind without a runner here does not compile. */
const KIND_RUNNERS: Record<NodeKindName, (run: KindRun) => Promise<NodeExit>> = {
  /** The model loop, after the node's MCP prompt (if any) was fetched. */
  model: async ({ session, node, deps, catalog, ctx, toolTimeoutMs }) => {
    const options = { timeoutMs: toolTimeoutMs, ...(ctx.signal ? { signal: ctx.signal } : {}) };
    const failed = await fetchNodePrompt(session, node, catalog.invoker, options);
    return failed ?? runNode(createNodeHost(session, node, deps));
  },
  /** The node's function, resolved from the flow (its `run`) or its module. */
  code: async ({ session, ref, node, deps, catalog, ctx }) => {
    traceProtocols(session, node.id, catalog);
    const step = await ctx.code.resolve(ref, node);
    if (typeof step === 'string')
      return { kind: 'failed', reason: 'CODE_NODE_UNAVAILABLE', message: step } as const;
    return runCodeNode(session, node, step, deps);
  },
};

/**
 * The call port of one node run (src/tools/runner.ts), built once: the node's tools, the pipeline, the
 * services every call shares, and per call its progress, server log and sampling hooks.
 */
function nodeRunner(
  session: RunSession,
  ref: FlowRef,
  node: FlowNode,
  catalog: NodeCatalog,
  model: ModelClient,
  ctx: DriveContext,
): CallRunner {
  const limits = nodeLimits(ref.flow, node);
  return createCallRunner({
    flow: ref.flow,
    nodeId: node.id,
    run: session.run,
    node: (session.doc.node ??= newNodeState(node.id)),
    input: session.current.input,
    catalog,
    pipeline: ctx.toolbox.pipeline,
    clock: ctx.clock,
    services: {
      onLookBack: (event) => traceLookBack(session, node.id, ref.flow.locale, event),
      ...ctx.services,
      checkpoint: (options) => session.checkpoint(options),
      logger: ctx.logger,
      signal: ctx.signal,
      ...(guardsOff(ctx.ablation) ? { baseline: true } : {}),
      holdQuestion: (elicitation, holdMs) =>
        holdQuestion(session, { nodeId: node.id, elicitation, holdMs, signal: ctx.signal }, ctx.logger),
    },
    hooks: (place) => ({
      progress: progressTrace(session, place, ctx.clock),
      serverLog: serverLogTrace(session, place),
      taskTrace: (event) => session.emit({ type: 'tool.task', ...place, ...event }),
      sample: nodeSampler(session, node.id, { model, flow: ref.flow, signal: ctx.signal }, limits),
    }),
    // A cancel from another process reaches this one through the store, while the call runs.
    cancel: {
      cancelled: async () => cancelRequested(await session.stored()),
      onCancel: () => session.onCancelRequested?.(),
    },
  });
}

/** Whether the stored run was cancelled, carries a cancel request, or is gone. */
function cancelRequested(record: RunRecord | null): boolean {
  return record === null || record.status === 'cancelled' || record.state.cancelRequested === true;
}

/** The MCP revisions each run session traced (server → revision), so each is traced once per process. */
const traced = new WeakMap<RunSession, Map<string, string>>();

/** Traces `mcp.connected` for each server whose negotiated revision this session has not traced yet. */
function traceProtocols(session: RunSession, nodeId: string, catalog: FlowCatalog): void {
  const seen = traced.get(session) ?? new Map<string, string>();
  traced.set(session, seen);
  for (const { server, protocol } of catalog.protocols?.() ?? []) {
    if (seen.get(server) === protocol.version) continue;
    seen.set(server, protocol.version);
    session.emit({
      type: 'mcp.connected',
      nodeId,
      server,
      protocolVersion: protocol.version,
      era: protocol.era,
      ...(protocol.icon === undefined ? {} : { icon: protocol.icon }),
    });
  }
}

/** Traces a runtime look-back as its own `tool.invoked` (docs/durability.md: a real read with `lookBack: true`). */
function traceLookBack(session: RunSession, nodeId: string, locale: Locale, event: LookBackEvent): void {
  const obs = event.observation;
  session.emit({
    type: 'tool.invoked',
    nodeId,
    round: session.doc.loop.wave?.round ?? session.doc.node?.rounds ?? 0,
    callId: `${event.callId}#lookback`,
    tool: event.tool,
    args: event.args,
    outcome: obs.outcome.name,
    errorCode: obs.errorCode,
    message: obs.message(locale),
    evidenceId: obs.evidenceId,
    executed: true,
    level: obs.outcome.name === 'FAILED' ? 'warn' : 'info',
    lookBack: true,
    result: obs.data,
  });
}
