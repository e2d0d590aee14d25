import type { Flow, FlowNode, Limits } from '../domain/flow.js';
import { newNodeState, type ThreadTurn } from '../records/run-state.js';
import { renderInstructions } from '../graph/templates.js';
import { newLoopState } from '../records/loop-state.js';
import type { LoopHost } from '../loop/node-loop.js';
import { phaseHint } from '../loop/phase-hint.js';
import type { ObservationStyle } from '../loop/render.js';
import { buildSystemPrompt } from '../loop/react-prompt.js';
import { ConversationView, openingMessage } from '../loop/conversation.js';
import type { ModelClient, ModelToolCall } from '../model/model.js';
import type { ControlEffect } from '../tools/call.js';
import { traceArgs, type CallRunner } from '../tools/runner.js';
import type { ToolDescriptor } from '../tools/tool.js';
import type { Locale } from '../domain/locale.js';
import type { Logger } from '../log/logger.js';
import type { RunSession } from './session.js';
import type { PendingItem } from '../records/pending.js';
import type { EventPayload } from '../trace/events.js';
import { pendingId } from './pending-id.js';
import { withPrompt } from './node-prompt.js';
import { budgetExit, contextModel, recordCost } from './context-host.js';
import { readMessages, type MessageReader } from './steering.js';
import { applyChange } from '../records/changes.js';
import { interruptedWrite } from '../tools/interrupted.js';

/** What a node run needs besides the session: its call port, the tools it sees and the model. */
export interface NodeDeps {
  flow: Flow;
  model: ModelClient;
  logger: Logger;
  signal: AbortSignal;
  /** Tools visible in this node (its `tools` plus the builtins), by model-facing name: the system prompt names them. */
  visible: ReadonlyMap<string, ToolDescriptor>;
  /** The node run's call port: every call of the node goes through it (src/tools/runner.ts). */
  runner: CallRunner;
  /** How non-success observations read to the model (default `typed`). */
  observations?: ObservationStyle;
  /** Reads the run's steering messages (absent: a store without them). */
  readMessages?: MessageReader;
  /**
   * At the start of each round, before its model call (after a resumed call's resolution): traces the
   * MCP revisions negotiated in this process that are not traced yet (`mcp.connected`).
   */
  atRound?: () => void;
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
  const prompt = nodePrompt(session, node, locale, deps.visible);
  const limits = nodeLimits(deps.flow, node);
  const emit = (event: EventPayload) => session.emit(event);
  // Built on the first model call (the opening is fixed then), then kept up to date per round.
  let view: ConversationView | null = null;
  const branch = branchCalls(session, node.id);
  const host: LoopHost = {
    nodeId: node.id,
    locale,
    ...(deps.observations ? { observations: deps.observations } : {}),
    limits,
    node: nodeState,
    loop: doc.loop,
    // Context budget, compaction and output limit of every request (issue 20).
    model: contextModel(deps.model, { nodeId: node.id, locale, limits, node: nodeState, emit }),
    conversation: {
      system: () => prompt().system,
      messages: (newest) =>
        (view ??= new ConversationView(
          locale,
          prompt().opening,
          historyFor(node, doc.thread?.history),
        )).build(session.conversation(), newest),
      phaseHint: () => phaseHint(locale, node.outputs, nodeState.outputs),
      callContext: (round) => ({
        runId: session.runId,
        nodeId: node.id,
        callIndex: doc.modelCalls,
        round,
        ...(branch.nodeCallIndex ? { nodeCallIndex: branch.nodeCallIndex() } : {}),
        ...(branch.itemIndex !== undefined ? { itemIndex: branch.itemIndex } : {}),
      }),
    },
    runner: deps.runner,
    record: {
      change: (change) => applyChange({ run: session.run, node: nodeState, loop: doc.loop }, change),
      emit,
      addMessage: (message) => session.addMessage(message),
      recordModelCall: (usage) => {
        doc.modelCalls += 1;
        session.addUsage(usage);
        recordCost(doc, deps.flow, deps.model.id, usage);
      },
      log: (level, message) => deps.logger[level](message),
      suspend: (call, round, effect, extra) => suspend(session, node.id, call, round, effect, extra ?? {}),
      checkpoint: () => session.checkpoint(),
    },
    signal: deps.signal,
    budget: () =>
      budgetExit(limits, deps.flow, deps.model.id, locale, {
        spent: () => session.spent(),
        ancestors: () => session.ancestorBudgets(),
        isChild: session.current.parentRunId !== null,
      }),
    interrupted: (call) => interruptedWrite(session.run, node.id, call) !== undefined,
    textAnswer: () =>
      node.answer === 'text' &&
      Object.entries(node.outputs).every(([key, c]) => !c.required || Object.hasOwn(nodeState.outputs, key)),
    steer: (round) => {
      deps.atRound?.();
      return readMessages(session, deps.readMessages, node.id, round);
    },
  };
  return host;
}

/** A thread's earlier turns as a node sees them: a `sees: request` node only the user's own turns. */
function historyFor(
  node: FlowNode,
  history: readonly ThreadTurn[] | undefined,
): readonly ThreadTurn[] | undefined {
  return node.sees === 'request' ? history?.filter((turn) => turn.role === 'user') : history;
}

/**
 * The system prompt and opening message of a node run, built on first use and then fixed for the node
 * run: providers cache the system prompt, the tools and the opening message.
 */
function nodePrompt(
  session: RunSession,
  node: FlowNode,
  locale: Locale,
  visible: ReadonlyMap<string, ToolDescriptor>,
): () => { system: string; opening: string } {
  let fixed: { system: string; opening: string } | null = null;
  // `sees: request`: the user's request only, never what earlier nodes read or wrote (docs/flows.md).
  const requestOnly = node.sees === 'request';
  const earlier = requestOnly ? {} : session.run.nodeOutputs;
  return () =>
    (fixed ??= {
      system: buildSystemPrompt({
        locale,
        instructions: withPrompt(
          renderInstructions(node.instructions, {
            input: session.current.input,
            nodes: earlier,
            ...(requestOnly ? {} : itemScope(session)),
          }),
          session.doc.node?.prompt,
        ),
        outputs: node.outputs,
        ...(node.answer ? { answer: node.answer } : {}),
        tools: visible.keys(),
      }),
      opening: openingMessage({
        locale,
        input: session.current.input,
        earlierOutputs: earlier,
      }),
    });
}

/** Suspends the run at `call` for a person (the pending item, the trace, the run record). */
export function suspend(
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
  // An approval's `expiresAt` comes with it (src/tools/approval/rules.ts, from the tool's policy).
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

/**
 * In a branch of a parallel flow (h6): the model call index of the node id (per item in a map's body),
 * taken when a call starts, and the item's index.
 */
function branchCalls(
  session: RunSession,
  nodeId: string,
): { nodeCallIndex?: () => number; itemIndex?: number } {
  const branch = session.branches.current()?.branch;
  if (!branch) return {};
  const key = branch.item ? `${nodeId}#item${branch.item.index}` : nodeId;
  const doc = session.doc;
  const nodeCallIndex = (): number => {
    const calls = (doc.nodeModelCalls ??= {});
    const n = calls[key] ?? 0;
    calls[key] = n + 1;
    return n;
  };
  return { nodeCallIndex, ...(branch.item ? { itemIndex: branch.item.index } : {}) };
}

/** In a map's body (h6: parallel branches), the item its instructions may name as `{{item}}`. */
function itemScope(session: RunSession): { item?: unknown } {
  const item = session.branches.current()?.branch.item;
  return item ? { item: item.value } : {};
}
