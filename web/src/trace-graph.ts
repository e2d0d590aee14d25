/**
 * The shape of a run's graph as its trace tells it (docs/console.md): which node runs led to which,
 * and which ran as items of a map node. A `node.started` may say it (`from`: the node ids it follows;
 * `item: { of, index }` with `nodeRun`: an item of the map node run `of`); otherwise it is inferred from
 * the order of events: the nodes started after one or more nodes ended follow those that ended and led
 * nowhere yet (several started together: parallel branches; several ended before one started: a join),
 * and a node started while a run of the same node is a running map item is the next item of that map.
 */
import type { TraceEvent } from './api.js';
import type { NodeView, RunView } from './run-view.js';

/** What folding the trace remembers to infer the graph (kept in the view, plain data). */
export interface GraphFold {
  /** Node runs that ended and that no node run followed yet (indices into `nodes`). */
  dangling: number[];
  /** What the node runs started since the last end follow; null: a node ended since. */
  batch: number[] | null;
}

/** An empty fold (a run whose trace has not started). */
export function emptyGraphFold(): GraphFold {
  return { dangling: [], batch: null };
}

const active = (node: NodeView) => node.status === 'running' || node.status === 'suspended';

/** Places the node run just started (`view.nodes[index]`) in the graph. */
export function graphStarted(view: RunView, index: number, e: TraceEvent): void {
  const node = view.nodes[index] as NodeView;
  const fold = view.graphFold;
  node.nodeRun = typeof e.nodeRun === 'number' ? e.nodeRun : null;
  const item = e.item as { of?: unknown; index?: unknown } | undefined;
  if (item !== null && typeof item === 'object') {
    const parent = view.nodes.findIndex((n) => n.nodeRun !== null && n.nodeRun === item.of);
    node.itemOf = parent >= 0 ? parent : null;
    node.itemIndex = typeof item.index === 'number' ? item.index : itemsOf(view, node.itemOf ?? -1) - 1;
    if (node.itemOf !== null) return;
  }
  if (asItem(view, index)) return;
  if (Array.isArray(e.from)) {
    const ids = new Set(e.from.filter((id): id is string => typeof id === 'string'));
    const from = [...ids].map((id) => view.nodes.findLastIndex((n, i) => i < index && n.id === id));
    node.from = from.filter((i) => i >= 0);
    fold.dangling = fold.dangling.filter((i) => !node.from.includes(i));
    fold.batch = node.from;
    return;
  }
  if (fold.batch === null) {
    fold.batch = fold.dangling;
    fold.dangling = [];
  }
  node.from = [...fold.batch];
}

/**
 * A second run of a node while another is running is an item of a map: of the map its first item
 * follows, or (for the first item, which looked like a branch) of the node run started before it.
 */
function asItem(view: RunView, index: number): boolean {
  const node = view.nodes[index] as NodeView;
  const sibling = view.nodes.findLastIndex((n, i) => i < index && n.id === node.id && active(n));
  if (sibling < 0) return false;
  const first = view.nodes[sibling] as NodeView;
  if (first.itemOf === null) {
    const parent = view.nodes.findLastIndex((n, i) => i < sibling && n.id !== node.id && active(n));
    if (parent < 0) return false;
    first.itemOf = parent;
    first.itemIndex = 0;
    first.from = [];
  }
  node.itemOf = first.itemOf;
  node.itemIndex = itemsOf(view, node.itemOf) - 1;
  return true;
}

/** The node run `view.nodes[index]` ended: it leads to what starts next (a map item leads back to its map). */
export function graphEnded(view: RunView, index: number): void {
  const node = view.nodes[index];
  if (!node || node.itemOf !== null) return;
  if (!view.graphFold.dangling.includes(index)) view.graphFold.dangling.push(index);
  view.graphFold.batch = null;
}

/** How many items map node run `index` has: its item runs in the trace, else the length of its `items` output. */
export function itemsOf(view: Pick<RunView, 'nodes'>, index: number): number {
  const runs = view.nodes.filter((n) => n.itemOf === index).length;
  if (runs > 0) return runs;
  const items = view.nodes[index]?.outputs?.items;
  return Array.isArray(items) ? items.length : 0;
}

/**
 * The node run an event of node `id` belongs to: the run the event names (`nodeRun`), else the latest
 * running or waiting run of that node (parallel branches run at once), else its latest run.
 */
export function runOf(view: RunView, e: TraceEvent): NodeView | undefined {
  const id = e.nodeId;
  if (typeof e.nodeRun === 'number') {
    const named = view.nodes.find((n) => n.nodeRun === e.nodeRun);
    if (named) return named;
  }
  let latest: NodeView | undefined;
  for (let i = view.nodes.length - 1; i >= 0; i--) {
    const node = view.nodes[i] as NodeView;
    if (id !== undefined && node.id !== id) continue;
    if (active(node)) return node;
    latest ??= node;
  }
  return latest;
}
