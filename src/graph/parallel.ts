import { edgeTargets, MAX_RUN_BRANCHES, type Flow, type FlowNode } from '../domain/flow.js';
export type { EndExit, ParallelHost } from './parallel-host.js';
import type { NodeExit } from '../loop/node-loop.js';
import { newLoopState } from '../records/loop-state.js';
import { newNodeState } from '../records/run-state.js';
import type { Branch, GraphState } from '../records/state-doc.js';
import { nextNodes } from './edges.js';
import type { GraphExit } from './flow-runner.js';
import type { EndExit, ParallelHost } from './parallel-host.js';
import { graphIndex } from './graph-index.js';
import { itemSettled, stepMap } from './map.js';

/**
 * True when the flow needs the parallel runner: an edge starts several nodes, or a node is a map.
 * Other flows run one node at a time (`runGraph`), exactly as before branches existed.
 */
export function isParallelFlow(flow: Pick<Flow, 'edges' | 'nodes'>): boolean {
  return flow.edges.some((e) => edgeTargets(e).length > 1) || flow.nodes.some((n) => n.map !== undefined);
}

interface Settled {
  branch: Branch;
  exit?: NodeExit;
  error?: unknown;
}

/**
 * Runs a flow with parallel branches (docs/flows.md, "Parallel branches"): every active branch's node
 * run at the same time in this one driver, a join once no running branch can still reach it, map
 * items within their concurrency. Each branch's steps commit as in a single node run (the session
 * serialises the commits). The run suspends when no branch can go on and one waits on a person, fails
 * once every branch ended after one failed without an edge routing it, completes when none is left.
 */
export async function runParallelGraph(host: ParallelHost): Promise<GraphExit> {
  const doc = host.doc;
  const branches = (doc.branches ??= []);
  doc.graph ??= { joins: [] };
  if (doc.nodeId !== null) adoptSingleNodeRun(host, branches);
  const inflight = new Map<Branch, Promise<Settled>>();
  // Branches that ended, in the order they did: one wait per ended branch, whatever the number running.
  const ended: Settled[] = [];
  let wake: (() => void) | undefined;
  let stopped = false;
  let suspendedHere: Branch | undefined;
  for (;;) {
    if (!stopped && doc.graph.failed === undefined) {
      await advanceMaps(host);
      for (const b of branches) {
        if (inflight.has(b) || !runnable(host.flow, b)) continue;
        const running = settle(b, host.runBranch(b, nodeOf(host.flow, b.nodeId)));
        inflight.set(b, running);
        void running.then((s) => {
          ended.push(s);
          wake?.();
        });
      }
    }
    if (inflight.size === 0) break;
    while (ended.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
    const done = ended.shift() as Settled;
    inflight.delete(done.branch);
    if (done.error !== undefined || !done.exit) {
      await Promise.allSettled(inflight.values());
      throw done.error;
    }
    const exit = done.exit;
    if (exit.kind === 'stopped') stopped = true;
    else if (exit.kind === 'suspended') suspendedHere ??= done.branch;
    else await branchEnded(host, done.branch, exit);
    await host.checkpoint();
  }
  if (stopped) return 'stopped';
  const exit = finish(host, suspendedHere);
  await host.checkpoint();
  return exit;
}

function settle(branch: Branch, running: Promise<NodeExit>): Promise<Settled> {
  return running.then(
    (exit) => ({ branch, exit }),
    (error: unknown) => ({ branch, error: error ?? new Error('a branch failed without an error') }),
  );
}

/** A branch can run now: not a map node (the runner runs its items) and not waiting on a person. */
function runnable(flow: Flow, branch: Branch): boolean {
  if (!branch.item && graphIndex(flow).isMap(branch.nodeId)) return false;
  if (branch.loop.suspended !== null) return false;
  delete branch.suspension;
  return true;
}

function nodeOf(flow: Flow, nodeId: string): FlowNode {
  const node = graphIndex(flow).node(nodeId);
  if (!node) throw new Error(`flow ${flow.id} has no node ${nodeId}`);
  return node;
}

/**
 * The run's first node run (started as a single node run) becomes its first branch; so does the
 * failed node a `retry` sets up again, and the failure it clears.
 */
function adoptSingleNodeRun(host: ParallelHost, branches: Branch[]): void {
  const doc = host.doc;
  if (doc.nodeId === null) return;
  if (doc.graph) delete doc.graph.failed;
  const branch: Branch = { nodeId: doc.nodeId, nodeRuns: doc.nodeRuns, node: doc.node, loop: doc.loop };
  branches.push(branch);
  host.adoptConversation(branch);
  doc.nodeId = null;
  doc.node = null;
  doc.loop = newLoopState();
}

/**
 * Lets every map branch start items up to its concurrency; a map whose items all completed (or one
 * failed, or whose list cannot be had) ends as its node, and what that makes ready starts.
 */
async function advanceMaps(host: ParallelHost): Promise<void> {
  for (let again = true; again;) {
    again = false;
    for (const branch of [...(host.doc.branches ?? [])]) {
      if (branch.item || !graphIndex(host.flow).isMap(branch.nodeId)) continue;
      const ended = await stepMap(host, branch, (nodeId, item) => startBranch(host, nodeId, item));
      if (!ended) continue;
      removeBranch(host, branch);
      await nodeEnded(host, branch, ended.exit, ended.outputs);
      startReadyJoins(host);
      again = true;
    }
  }
}

/**
 * Starts a node run of `nodeId` as a new branch and traces `node.started` with its effective limits;
 * a map node evaluates its list at once. Returns the branch, or null when the run already holds
 * MAX_RUN_BRANCHES branches: then nothing starts and the run fails TOO_MANY_BRANCHES once the running
 * branches ended.
 */
export function startBranch(
  host: ParallelHost,
  nodeId: string,
  item?: Branch['item'],
  from?: readonly string[],
): Branch | null {
  const doc = host.doc;
  if ((doc.branches ?? []).length >= MAX_RUN_BRANCHES) {
    const graph = (doc.graph ??= { joins: [] });
    graph.failed ??= {
      nodeId,
      reason: 'TOO_MANY_BRANCHES',
      message: `starting ${nodeId} would make more than ${MAX_RUN_BRANCHES} branches at once; a run holds at most ${MAX_RUN_BRANCHES} (MAX_RUN_BRANCHES)`,
    };
    return null;
  }
  doc.nodeRuns += 1;
  const branch: Branch = {
    nodeId,
    nodeRuns: doc.nodeRuns,
    node: newNodeState(nodeId),
    loop: newLoopState(),
    ...(item ? { item } : {}),
  };
  (doc.branches ??= []).push(branch);
  const limits = { ...host.flow.limits, ...(nodeOf(host.flow, nodeId).limits ?? {}) };
  host.emit({
    type: 'node.started',
    nodeId,
    maxRounds: limits.maxRounds,
    maxStalls: limits.maxStalls,
    nodeRun: doc.nodeRuns,
    ...(from && from.length > 0 ? { from: [...from] } : {}),
    ...(item ? { item: { of: item.of, index: item.index } } : {}),
  });
  return branch;
}

/** A branch's node run ended: record it, take its edges (or fail the run), start what became ready. */
async function branchEnded(host: ParallelHost, branch: Branch, exit: EndExit): Promise<void> {
  removeBranch(host, branch);
  if (branch.item) {
    const outputs = exit.kind === 'completed' ? outputValues(branch) : {};
    const item = { of: branch.item.of, index: branch.item.index };
    if (exit.kind === 'completed')
      host.emit({ type: 'node.completed', nodeId: branch.nodeId, outputs, item });
    else
      host.emit({
        type: 'node.failed',
        nodeId: branch.nodeId,
        reason: exit.reason,
        message: exit.message,
        item,
      });
    itemSettled(host, branch, exit, outputs);
    await advanceMaps(host);
  } else await nodeEnded(host, branch, exit);
  startReadyJoins(host);
}

function removeBranch(host: ParallelHost, branch: Branch): void {
  const branches = host.doc.branches ?? [];
  const at = branches.indexOf(branch);
  if (at >= 0) branches.splice(at, 1);
}

/** A node (not a map item) ended: its outputs, the trace, and the edges leaving it. */
async function nodeEnded(
  host: ParallelHost,
  branch: Branch,
  exit: EndExit,
  given?: Record<string, unknown>,
): Promise<void> {
  const graph = host.doc.graph as GraphState;
  const nodeId = branch.nodeId;
  const outputs = exit.kind === 'completed' ? (given ?? outputValues(branch)) : {};
  if (exit.kind === 'completed') {
    if (exit.reply === undefined) delete host.doc.reply;
    else host.doc.reply = exit.reply;
    host.run.nodeOutputs[nodeId] = outputs;
    host.emit({ type: 'node.completed', nodeId, outputs });
    // The run's outputs object itself, not a copy: the commit copies it once (a copy per ended node
    // made the bookkeeping of a wide fan-out quadratic in its number of nodes).
    host.update({ outputs: host.run.nodeOutputs });
  } else host.emit({ type: 'node.failed', nodeId, reason: exit.reason, message: exit.message });
  let next: string[] | null;
  try {
    next = await nextNodes(
      graphIndex(host.flow).edgesFrom(nodeId),
      nodeId,
      { status: exit.kind, outputs, input: host.input },
      host.conditions,
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    graph.failed ??= { nodeId, reason: 'EDGE_ERROR', message };
    return;
  }
  if (next === null && exit.kind === 'failed') {
    graph.failed ??= { nodeId, reason: exit.reason, message: exit.message };
    return;
  }
  if (graph.failed !== undefined) return;
  for (const target of next ?? []) {
    if (graphIndex(host.flow).sources(target).size > 1) {
      if (!graph.joins.includes(target)) graph.joins.push(target);
    } else startBranch(host, target, undefined, [nodeId]);
  }
}

/** Starts every waiting join that no active branch can reach any more. */
function startReadyJoins(host: ParallelHost): void {
  const graph = host.doc.graph as GraphState;
  if (graph.failed !== undefined) return;
  for (const join of [...graph.joins]) {
    const active = host.doc.branches ?? [];
    const index = graphIndex(host.flow);
    if (active.some((b) => b.nodeId !== join && index.canReach(b.nodeId, join))) continue;
    graph.joins.splice(graph.joins.indexOf(join), 1);
    // The join follows those of its sources that ended in this run.
    const ended = [...index.sources(join)].filter((id) => id in host.run.nodeOutputs);
    startBranch(host, join, undefined, ended);
  }
}

/** A path of edges leads from `from` to `to` that does not pass through `to` before. */
export function canReach(flow: Pick<Flow, 'edges' | 'nodes'>, from: string, to: string): boolean {
  return graphIndex(flow).canReach(from, to);
}

/** A branch's node outputs as plain values. */
export function outputValues(branch: Branch): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(branch.node?.outputs ?? {})) out[key] = v.value;
  return out;
}

/** No branch runs any more: the run fails, suspends or completes. */
function finish(host: ParallelHost, suspendedHere: Branch | undefined): GraphExit {
  const doc = host.doc;
  const failed = doc.graph?.failed;
  if (failed) {
    const message = failed.message ?? failed.reason;
    host.emit({ type: 'run.failed', reason: failed.reason, failedNode: failed.nodeId, message });
    host.update({
      status: 'failed',
      suspension: null,
      reason: failed.reason,
      failedNode: failed.nodeId,
      message,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    return 'failed';
  }
  const waiting = (doc.branches ?? []).filter((b) => b.loop.suspended !== null && b.suspension);
  const first = waiting.find((b) => b === suspendedHere) ?? waiting[0];
  if (first?.suspension) {
    const { kind, pending } = first.suspension;
    // A branch that suspended before this drive is announced again: it is the item the run waits for now.
    if (first !== suspendedHere) host.emit({ type: 'run.suspended', nodeId: first.nodeId, kind, pending });
    const items = [first, ...waiting.filter((b) => b !== first)].flatMap((b) =>
      b.suspension ? [{ kind: b.suspension.kind, nodeId: b.nodeId, pending: b.suspension.pending }] : [],
    );
    host.update({
      status: 'suspended',
      suspension: items.length > 1 ? { kind, pending, items } : first.suspension,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    return 'suspended';
  }
  if ((doc.branches ?? []).length > 0) throw new Error(`run has branches that can neither run nor wait`);
  doc.branches = [];
  host.emit({
    type: 'run.completed',
    outputs: { ...host.run.nodeOutputs },
    ...(doc.reply !== undefined ? { reply: doc.reply } : {}),
  });
  host.update({ status: 'completed', suspension: null, leaseOwner: null, leaseExpiresAt: null });
  return 'completed';
}
