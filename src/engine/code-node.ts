import type { CodeCallRecord, CodeStep, CodeToolResult } from '../domain/code-step.js';
import type { FlowNode } from '../domain/flow.js';
import type { Locale } from '../domain/locale.js';
import { canonicalJson } from '../domain/fingerprint.js';
import { Observation } from '../domain/observation.js';
import { newNodeState, type NodeState } from '../records/run-state.js';
import type { NodeExit } from '../loop/node-loop.js';
import { isBuiltinName } from '../tools/builtin/descriptors.js';
import { checkCodeOutputs } from './code-outputs.js';
import { suspend, type NodeDeps } from './node-host.js';
import type { RunSession } from './session.js';

/** How long a code node's error message may be in the trace and the run summary. */
const MAX_MESSAGE_CHARS = 500;

/** Thrown into a code node's function when its call suspended the run; never seen by a caller. */
class Suspended extends Error {
  constructor() {
    super('the run is suspended for a person; this code node runs again once they answered');
  }
}

/**
 * Runs a code node (docs/flows.md, "Code nodes"): calls its function with the run input and the
 * earlier nodes' outputs, sends the tool calls it makes through the guard chain, and checks the
 * outputs it returns against the node's declared outputs. Every call's observation is recorded in the
 * node's state and committed, so a run again (after an approval, a crash or a restart) returns the
 * recorded result of each call it already made instead of running it again; the function itself
 * runs again from its start (code nodes must be idempotent apart from their tool calls).
 */
export async function runCodeNode(
  session: RunSession,
  node: FlowNode,
  step: CodeStep,
  deps: NodeDeps,
): Promise<NodeExit> {
  session.doc.node ??= newNodeState(node.id);
  const state = session.doc.node;
  const journal = (state.code ??= { calls: [] }).calls;
  settleResolved(session, state, journal, deps);
  let position = 0;
  let suspended = false;
  let reply: string | undefined;
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<CodeToolResult> => {
    if (suspended) throw new Suspended();
    if (typeof tool !== 'string' || isBuiltinName(tool) || !node.tools.includes(tool))
      throw new TypeError(
        `code node ${node.id} may call only its tools (${node.tools.join(', ') || 'none'}); got ${String(tool)}`,
      );
    const at = position++;
    const argsJson = canonicalJson(args);
    const recorded = journal[at];
    if (recorded) {
      if (recorded.tool !== tool || recorded.args !== argsJson)
        throw new ReplayMismatch(
          `code node ${node.id} ran again with another call at position ${at + 1}: ${tool} instead of ${recorded.tool} (or other arguments); a code node must make the same tool calls when it runs again`,
        );
      return resultOf(Observation.fromJSON(recorded.observation), deps);
    }
    const callId = `code_${node.id}_${session.doc.nodeRuns}_${at + 1}`;
    const modelCall = { callId, tool, rawArgs: JSON.stringify(args) };
    const result = await deps.runner.call(modelCall, 0);
    traceCodeCall(session, node.id, modelCall, result, deps.flow.locale);
    let observation: Observation | null = result.observation;
    if (observation.errorCode === 'APPROVAL_REQUIRED') {
      observation = await askApproval(session, node, deps, tool, at);
      if (observation === null) {
        suspended = true;
        throw new Suspended();
      }
    }
    journal.push({ tool, args: argsJson, observation: observation.toJSON() });
    await session.checkpoint();
    return resultOf(observation, deps);
  };
  let returned: unknown;
  try {
    returned = await step({
      runId: session.runId,
      nodeId: node.id,
      input: frozenCopy(session.current.input),
      nodes: frozenCopy(session.run.nodeOutputs),
      ...itemOf(session),
      signal: deps.signal,
      tools: { call },
      reply: (text) => {
        reply = String(text);
      },
    });
  } catch (error) {
    if (suspended || error instanceof Suspended) return suspendedExit(suspended);
    if (deps.signal.aborted) return { kind: 'stopped' };
    const reason = error instanceof ReplayMismatch ? 'CODE_NODE_REPLAY_MISMATCH' : 'CODE_NODE_ERROR';
    return { kind: 'failed', reason, message: clip(messageOf(error)) };
  }
  // The function may have caught the suspension and returned: the run waits all the same.
  if (suspended) return { kind: 'suspended' };
  if (deps.signal.aborted) return { kind: 'stopped' };
  const checked = checkCodeOutputs(node, returned, deps.flow.locale, deps.logger);
  if (typeof checked === 'string')
    return { kind: 'failed', reason: 'CODE_NODE_OUTPUTS', message: clip(checked) };
  state.outputs = checked;
  return { kind: 'completed', ...(reply !== undefined ? { reply } : {}) };
}

class ReplayMismatch extends Error {}

/** In a map's body: the item (a frozen copy) and its index. */
function itemOf(session: RunSession): { item?: unknown; itemIndex?: number } {
  const item = session.branches.current()?.branch.item;
  return item ? { item: frozenCopy(item.value), itemIndex: item.index } : {};
}

function suspendedExit(suspended: boolean): NodeExit {
  if (!suspended) throw new Error('a code node threw the suspension of another run');
  return { kind: 'suspended' };
}

/**
 * A write stopped for approval: asks for it through builtin_node_approval, as a model would, and
 * suspends the run there (null). When the builtin does not suspend (the person declined this very
 * call before), its observation is the write's result.
 */
async function askApproval(
  session: RunSession,
  node: FlowNode,
  deps: NodeDeps,
  tool: string,
  at: number,
): Promise<Observation | null> {
  const callId = `code_${node.id}_${session.doc.nodeRuns}_${at + 1}_approval`;
  const rawArgs = JSON.stringify({ tool, summary: `${node.id}: ${tool}` });
  const approval = { callId, tool: 'builtin_node_approval', rawArgs };
  const result = await deps.runner.call(approval, 0);
  if (result.effect?.kind !== 'suspend') return result.observation;
  suspend(session, node.id, approval, 0, result.effect, {});
  await session.checkpoint();
  return null;
}

/**
 * After a person answered an approval the code node asked for: a rejection becomes the recorded
 * result of the stopped write (the function sees it when it runs again); an approval leaves the call
 * to run again, now through the write gate with its approval.
 */
function settleResolved(
  session: RunSession,
  state: NodeState,
  journal: CodeCallRecord[],
  deps: NodeDeps,
): void {
  const resolved = session.doc.loop.resolved;
  if (!resolved) return;
  session.doc.loop.resolved = null;
  const observation = Observation.fromJSON(resolved.observation);
  const gated = state.gatedCall;
  const call = { callId: resolved.call.callId, tool: resolved.call.tool, rawArgs: '' };
  traceCodeCall(
    session,
    state.nodeId,
    call,
    { observation, executed: false, args: resolved.call.args },
    deps.flow.locale,
  );
  if (observation.outcome.name === 'SUCCESS' || !gated) return;
  journal.push({ tool: gated.tool, args: canonicalJson(gated.args), observation: observation.toJSON() });
}

/** The `tool.invoked` of a code node's call (round 0: a code node has no model rounds). */
function traceCodeCall(
  session: RunSession,
  nodeId: string,
  call: { callId: string; tool: string },
  result: { observation: Observation; executed: boolean; args: unknown },
  locale: Locale,
): void {
  const { observation: obs, executed } = result;
  session.emit({
    type: 'tool.invoked',
    nodeId,
    round: 0,
    callId: call.callId,
    tool: call.tool,
    args: result.args,
    outcome: obs.outcome.name,
    errorCode: obs.errorCode,
    message: obs.message(locale),
    evidenceId: obs.evidenceId,
    executed,
    level: obs.outcome.name === 'FAILED' ? 'warn' : 'info',
    lookBack: false,
    ...(executed ? { result: obs.data } : {}),
  });
}

function resultOf(obs: Observation, deps: NodeDeps): CodeToolResult {
  const outcome = obs.outcome.name;
  return Object.freeze({
    outcome,
    ok: outcome === 'SUCCESS',
    errorCode: obs.errorCode,
    message: obs.message(deps.flow.locale),
    data: obs.data,
    evidenceId: obs.evidenceId,
  });
}

/** A deep copy the function cannot change the run through. */
function frozenCopy<T>(value: T): T {
  const copy = structuredClone(value);
  const freeze = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
    Object.freeze(v);
    for (const child of Object.values(v)) freeze(child);
  };
  freeze(copy);
  return copy;
}

function messageOf(error: unknown): string {
  return error instanceof Error
    ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`
    : String(error);
}

function clip(text: string): string {
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}
