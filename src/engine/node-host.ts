import type { Flow, FlowNode, Limits } from '../domain/flow.js';
import { newNodeState } from '../domain/run-state.js';
import { renderInstructions } from '../graph/templates.js';
import { newLoopState } from '../loop/loop-state.js';
import type { CallResult, LoopHost } from '../loop/node-loop.js';
import { phaseHint } from '../loop/phase-hint.js';
import type { ObservationStyle } from '../loop/render.js';
import { buildSystemPrompt } from '../loop/react-prompt.js';
import { modelConversation, openingMessage } from '../loop/conversation.js';
import type { ModelClient, ModelTool, ModelToolCall } from '../model/model.js';
import type { CallContext, CallServices, ControlEffect } from '../tools/call.js';
import { createCallContext } from '../tools/context.js';
import type { ToolDescriptor } from '../tools/tool.js';
import type { Locale } from '../domain/locale.js';
import type { Logger } from '../log/logger.js';
import type { RunSession } from './session.js';
import type { EventPayload, PendingItem } from '../trace/events.js';
import { recoverWrite } from '../tools/recovery.js';
import { pendingId } from './pending-id.js';
import { budgetExit, contextModel, recordCost, visibleWithReader } from './context-host.js';

/** What a node run needs besides the session: its tools, the pipeline and the model. */
export interface NodeDeps {
  flow: Flow;
  model: ModelClient;
  logger: Logger;
  signal: AbortSignal;
  /** Tools visible in this node (its `tools` plus the builtins), by model-facing name. */
  visible: ReadonlyMap<string, ToolDescriptor>;
  /** Every real tool of the flow (look-backs may use one not visible in the node). */
  tools: ReadonlyMap<string, ToolDescriptor>;
  pipeline: (ctx: CallContext) => Promise<import('../domain/observation.js').Observation>;
  services: Omit<CallServices, 'checkpoint'>;
  /** How non-success observations read to the model (default `typed`). */
  observations?: ObservationStyle;
}

/** The node's effective limits: the flow's, tightened or loosened by the node's own. */
export function nodeLimits(flow: Flow, node: FlowNode): Limits {
  return { ...flow.limits, ...(node.limits ?? {}) };
}

/** Builds the loop's host for one node run of a session. */
export function createNodeHost(session: RunSession, node: FlowNode, deps: NodeDeps): LoopHost {
  const doc = session.doc;
  doc.node ??= newNodeState(node.id);
  const nodeState = doc.node;
  const locale = deps.flow.locale;
  // Read for each model call: the visible tools follow the MCP servers' tools/list_changed.
  const tools = (): ModelTool[] =>
    [...deps.visible.values()].map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
    }));
  const prompt = nodePrompt(session, node, locale);
  const limits = nodeLimits(deps.flow, node);
  const emit = (event: EventPayload) => session.emit(event);
  const host: LoopHost = {
    runId: session.runId,
    nodeId: node.id,
    locale,
    ...(deps.observations ? { observations: deps.observations } : {}),
    limits,
    node: nodeState,
    loop: doc.loop,
    // Context budget, compaction and output limit of every request (issue 20).
    model: contextModel(deps.model, { nodeId: node.id, locale, limits, node: nodeState, emit }),
    budget: () =>
      budgetExit(limits, deps.flow, deps.model.id, locale, {
        spent: () => session.spent(),
        ancestors: () => session.ancestorBudgets(),
        isChild: session.current.parentRunId !== null,
      }),
    signal: deps.signal,
    interrupted: (call) => session.run.inFlight.some((w) => w.callId === call.callId && w.nodeId === node.id),
    textAnswer: () =>
      node.answer === 'text' &&
      Object.entries(node.outputs).every(([key, c]) => !c.required || Object.hasOwn(nodeState.outputs, key)),
    modelCalls: () => doc.modelCalls,
    phaseHint: () => phaseHint(locale, node.outputs, nodeState.outputs),
    systemPrompt: () => prompt().system,
    modelMessages: (newest) =>
      modelConversation(locale, prompt().opening, session.conversation(), newest, doc.thread?.history),
    tools,
    conversation: () => session.conversation(),
    callTool: (call, round) => callTool(session, node, deps, call, round),
    suspend: (call, round, effect, extra) => suspend(session, node.id, call, round, effect, extra ?? {}),
    emit: (event) => session.emit(event),
    addMessage: (message) => session.addMessage(message),
    recordModelCall: (usage) => {
      doc.modelCalls += 1;
      session.addUsage(usage);
      recordCost(doc, deps.flow, deps.model.id, usage);
    },
    log: (level, message) => deps.logger[level](message),
    checkpoint: () => session.checkpoint(),
  };
  return host;
}

/**
 * The system prompt and opening message of a node run, built on first use and then fixed for the node
 * run: providers cache the system prompt, the tools and the opening message.
 */
function nodePrompt(
  session: RunSession,
  node: FlowNode,
  locale: Locale,
): () => { system: string; opening: string } {
  let fixed: { system: string; opening: string } | null = null;
  return () =>
    (fixed ??= {
      system: buildSystemPrompt({
        locale,
        instructions: renderInstructions(node.instructions, {
          input: session.current.input,
          nodes: session.run.nodeOutputs,
        }),
        outputs: node.outputs,
        ...(node.answer ? { answer: node.answer } : {}),
      }),
      opening: openingMessage({
        locale,
        input: session.current.input,
        earlierOutputs: session.run.nodeOutputs,
      }),
    });
}

async function callTool(
  session: RunSession,
  node: FlowNode,
  deps: NodeDeps,
  call: ModelToolCall,
  _round: number,
): Promise<CallResult> {
  const nodeState = session.doc.node ?? newNodeState(node.id);
  const ctx = createCallContext({
    call: { callId: call.callId, tool: call.tool, rawArgs: call.rawArgs },
    flow: deps.flow,
    nodeId: node.id,
    run: session.run,
    node: nodeState,
    visible: visibleWithReader(deps.visible, nodeState, deps.flow.locale),
    tools: deps.tools,
    services: { ...deps.services, checkpoint: (options) => session.checkpoint(options) },
  });
  const interrupted = session.run.inFlight.find((w) => w.callId === call.callId && w.nodeId === node.id);
  if (interrupted) return { ...(await recoverWrite(ctx, interrupted, deps.pipeline)), sent: true };
  const observation = await deps.pipeline(ctx);
  const counted = ctx.counted ? ctx.fingerprint : undefined;
  return {
    observation,
    effect: ctx.effect,
    args: ctx.args ?? traceArgs(call.rawArgs),
    executed: ctx.executed,
    ...(counted ? { counted } : {}),
    ...(ctx.isWrite && ctx.executed ? { sent: true } : {}),
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

function suspend(
  session: RunSession,
  nodeId: string,
  call: ModelToolCall,
  round: number,
  effect: Extract<ControlEffect, { kind: 'suspend' }>,
  extra: { runtimeQuestion?: boolean; counted?: string },
): void {
  const runtimeQuestion = extra.runtimeQuestion === true;
  const s = effect.suspension;
  const parsed = traceArgs(call.rawArgs);
  const args = runtimeQuestion && s.kind === 'FOLLOW_UP' ? { question: s.pending.question } : parsed;
  session.doc.loop.suspended = {
    round,
    callId: call.callId,
    tool: call.tool,
    args: typeof args === 'object' && args !== null ? (args as Record<string, unknown>) : {},
    kind: s.kind,
    ...(s.kind === 'APPROVAL' ? { fingerprint: s.fingerprint } : {}),
    ...(runtimeQuestion ? { runtimeQuestion: true } : {}),
    ...(extra.counted ? { counted: extra.counted } : {}),
    ...(effect.childRunId ? { childRunId: effect.childRunId } : {}),
  };
  // A child's pending item keeps the child's id: the person's response is checked against it there.
  const pending: PendingItem = { ...s.pending, id: s.pending.id ?? pendingId(session, call.callId, s.kind) };
  session.emit({ type: 'node.suspended', nodeId, kind: s.kind, pending });
  session.emit({ type: 'run.suspended', nodeId, kind: s.kind, pending });
  session.update({
    status: 'suspended',
    suspension: { kind: s.kind, pending },
    leaseOwner: null,
    leaseExpiresAt: null,
  });
}

/** Resets the loop position for a fresh node run (used when a node starts). */
export function freshLoop(session: RunSession): void {
  session.doc.loop = newLoopState();
}
