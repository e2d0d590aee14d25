import { edgeTargets, type Flow, type FlowEdge, type FlowNode } from '../domain/flow.js';
import type { EdgesFrom } from './edges.js';

/**
 * What the parallel runner asks of a flow's shape again and again, computed once per flow object:
 * nodes by id, map nodes, each node's sources and targets, and which node can reach which (memoised).
 * With these the runner's bookkeeping per ended branch does not grow with the number of nodes or edges.
 */
export interface GraphIndex {
  node(nodeId: string): FlowNode | undefined;
  isMap(nodeId: string): boolean;
  /** The nodes with an edge to `nodeId`. */
  sources(nodeId: string): ReadonlySet<string>;
  /** The edges leaving `nodeId`, with their indexes, in file order (for `nextNodes`). */
  edgesFrom(nodeId: string): EdgesFrom;
  /** A path of edges leads from `from` to `to` that does not pass through `to` before. */
  canReach(from: string, to: string): boolean;
}

const indexes = new WeakMap<Pick<Flow, 'nodes' | 'edges'>, GraphIndex>();

/** The index of `flow` (built on first use; a flow is not changed while it runs). */
export function graphIndex(flow: Pick<Flow, 'nodes' | 'edges'>): GraphIndex {
  const known = indexes.get(flow);
  if (known) return known;
  const index = buildIndex(flow);
  indexes.set(flow, index);
  return index;
}

function buildIndex(flow: Pick<Flow, 'nodes' | 'edges'>): GraphIndex {
  const nodes = new Map(flow.nodes.map((n) => [n.id, n] as const));
  const maps = new Set(flow.nodes.filter((n) => n.map !== undefined).map((n) => n.id));
  const incoming = new Map<string, Set<string>>();
  const outgoing = new Map<string, Set<string>>();
  const leaving = new Map<string, [number, FlowEdge][]>();
  flow.edges.forEach((edge, i) => {
    let list = leaving.get(edge.from);
    if (!list) leaving.set(edge.from, (list = []));
    list.push([i, edge]);
  });
  for (const edge of flow.edges)
    for (const to of edgeTargets(edge)) {
      let from = incoming.get(to);
      if (!from) incoming.set(to, (from = new Set()));
      from.add(edge.from);
      let next = outgoing.get(edge.from);
      if (!next) outgoing.set(edge.from, (next = new Set()));
      next.add(to);
    }
  const none: ReadonlySet<string> = new Set();
  const reach = new Map<string, boolean>();
  const search = (from: string, to: string): boolean => {
    const seen = new Set<string>([from]);
    const queue = [from];
    for (let i = 0; i < queue.length; i += 1) {
      for (const next of outgoing.get(queue[i] as string) ?? none) {
        if (next === to) return true;
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return false;
  };
  return {
    node: (nodeId) => nodes.get(nodeId),
    isMap: (nodeId) => maps.has(nodeId),
    sources: (nodeId) => incoming.get(nodeId) ?? none,
    edgesFrom: (nodeId) => ({ entries: leaving.get(nodeId) ?? [] }),
    canReach(from, to) {
      const key = `${from}\u0000${to}`;
      let known = reach.get(key);
      if (known === undefined) reach.set(key, (known = search(from, to)));
      return known;
    },
  };
}
