import type { Flow, FlowNode } from '../domain/flow.js';
import { newNodeState, type RunState } from '../records/run-state.js';
import { newLoopState } from '../records/loop-state.js';
import type { NodeExit } from '../loop/node-loop.js';
import type { RunPatch } from '../store/store.js';
import type { EventPayload } from '../trace/events.js';
import { nextNodes, type EdgeConditions } from './edges.js';
import type { RunStateDoc } from '../records/state-doc.js';

/** What the graph runner needs from the runtime. */
export interface GraphHost {
  readonly flow: Flow;
  /** The function `when`s of a flow written in code, by edge index (none: every `when` is JSONata). */
  readonly conditions?: EdgeConditions;
  readonly doc: RunStateDoc;
  readonly run: RunState;
  readonly input: unknown;
  emit(event: EventPayload): void;
  update(patch: RunPatch): void;
  checkpoint(): Promise<void>;
  /** Forgets the previous node run's conversation. */
  resetConversation(): void;
  runNode(node: FlowNode): Promise<NodeExit>;
}

/** How a drive of the graph stopped. */
export type GraphExit = 'suspended' | 'completed' | 'failed' | 'stopped';

/**
 * Runs nodes one at a time along edges (docs/flows.md) from where the run stands, until the run ends or
 * suspends. The first matching edge in file order wins; no matching edge ends the run with the last
 * node's status.
 */
export async function runGraph(host: GraphHost): Promise<GraphExit> {
  for (;;) {
    const nodeId = host.doc.nodeId;
    if (!nodeId) throw new Error(`run has no current node`);
    const node = host.flow.nodes.find((n) => n.id === nodeId);
    if (!node) throw new Error(`flow ${host.flow.id} has no node ${nodeId}`);
    const exit = await host.runNode(node);
    if (exit.kind === 'suspended') return 'suspended';
    if (exit.kind === 'stopped') return 'stopped';
    const outputs = exit.kind === 'completed' ? outputValues(host) : {};
    if (exit.kind === 'completed') {
      if (exit.reply === undefined) delete host.doc.reply;
      else host.doc.reply = exit.reply;
      host.run.nodeOutputs[nodeId] = outputs;
      host.emit({ type: 'node.completed', nodeId, outputs });
      host.update({ outputs: { ...host.run.nodeOutputs } });
    } else {
      host.emit({ type: 'node.failed', nodeId, reason: exit.reason, message: exit.message });
    }
    const status = exit.kind === 'completed' ? 'completed' : 'failed';
    let next: string | null;
    try {
      next =
        (
          await nextNodes(host.flow.edges, nodeId, { status, outputs, input: host.input }, host.conditions)
        )?.[0] ?? null;
    } catch (error) {
      // A `when` that fails at run time ends the run as failed instead of leaving it stuck.
      const message = error instanceof Error ? error.message : String(error);
      endRun(host, { kind: 'failed', reason: 'EDGE_ERROR', message }, nodeId);
      await host.checkpoint();
      return 'failed';
    }
    if (next) {
      startNode(host, next, host.flow);
      await host.checkpoint();
      continue;
    }
    endRun(host, exit, nodeId);
    await host.checkpoint();
    return status;
  }
}

/**
 * Makes `nodeId` the current node with a fresh node run and emits `node.started` with the node's
 * effective `maxRounds` and `maxStalls` (the flow's limits, overridden by the node's own).
 */
export function startNode(
  host: Pick<GraphHost, 'doc' | 'emit' | 'resetConversation'>,
  nodeId: string,
  flow: Flow,
): void {
  host.doc.nodeId = nodeId;
  host.doc.nodeRuns += 1;
  host.doc.node = newNodeState(nodeId);
  host.doc.loop = newLoopState();
  host.resetConversation();
  const limits = { ...flow.limits, ...(flow.nodes.find((n) => n.id === nodeId)?.limits ?? {}) };
  host.emit({ type: 'node.started', nodeId, maxRounds: limits.maxRounds, maxStalls: limits.maxStalls });
}

function endRun(
  host: GraphHost,
  exit: Exclude<NodeExit, { kind: 'suspended' | 'stopped' }>,
  nodeId: string,
): void {
  if (exit.kind === 'completed') {
    host.doc.nodeId = null;
    host.doc.node = null;
    host.emit({
      type: 'run.completed',
      outputs: { ...host.run.nodeOutputs },
      ...(host.doc.reply !== undefined ? { reply: host.doc.reply } : {}),
    });
    host.update({ status: 'completed', suspension: null, leaseOwner: null, leaseExpiresAt: null });
    return;
  }
  // A failed run keeps its node run (state, loop position, conversation key) so that `retry` can
  // continue it there (src/engine/retry.ts).
  host.emit({ type: 'run.failed', reason: exit.reason, failedNode: nodeId, message: exit.message });
  host.update({
    status: 'failed',
    suspension: null,
    reason: exit.reason,
    failedNode: nodeId,
    message: exit.message,
    leaseOwner: null,
    leaseExpiresAt: null,
  });
}

function outputValues(host: GraphHost): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(host.doc.node?.outputs ?? {})) out[key] = v.value;
  return out;
}
