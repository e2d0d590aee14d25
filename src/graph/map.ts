import { MAX_MAP_ITEMS, type Flow } from '../domain/flow.js';
import type { Branch } from '../records/state-doc.js';
import { evaluate } from '../tools/expressions.js';
import type { EndExit, ParallelHost } from './parallel-host.js';
import { graphIndex } from './graph-index.js';
import { lookupReference } from './templates.js';

/** True when `nodeId` is a map node of the flow. */
export function isMapNode(flow: Pick<Flow, 'nodes'>, nodeId: string): boolean {
  return flow.nodes.some((n) => n.id === nodeId && n.map !== undefined);
}

const TEMPLATE = /^\s*\{\{\s*([\w.-]+)\s*\}\}\s*$/;

/**
 * The list a map node runs over: `over` as one template reference, or a JSONata expression over
 * `{input, outputs}` (outputs by node id). A string is the reason when it is no list or too long.
 */
export async function mapItems(
  over: string,
  scope: { input: unknown; outputs: Record<string, Record<string, unknown>> },
): Promise<unknown[] | string> {
  const template = TEMPLATE.exec(over);
  let value: unknown;
  try {
    value = template?.[1]
      ? lookupReference(template[1], { input: scope.input, nodes: scope.outputs })
      : await evaluate(over, scope);
  } catch (error) {
    return `map.over failed: ${error instanceof Error ? error.message : String(error)}`;
  }
  // A reference that names nothing is a mistake; a JSONata expression that matches nothing (a filter
  // with no hit) gives `undefined`, its empty sequence.
  if (value === undefined && template) return `map.over ${over.trim()} names no value of this run`;
  if (value === undefined) value = [];
  // JSONata gives a sequence of one as its one value (`lines[v > 8]` with one hit): a list of one.
  if (!template && !Array.isArray(value) && value !== null) value = [value];
  if (!Array.isArray(value)) return `map.over gave ${value === null ? 'null' : typeof value}, not a list`;
  const items: unknown[] = value;
  if (items.length > MAX_MAP_ITEMS)
    return `map.over gave ${items.length} items; a map runs at most ${MAX_MAP_ITEMS}`;
  return items;
}

/**
 * One step of a map branch: evaluates its list the first time (kept with the branch, so the items
 * stay fixed after a restart), starts items up to `concurrency`, and returns the map node's exit once
 * every item completed (outputs `{ items }` in item order) or one failed. Null: items still run.
 */
export async function stepMap(
  host: ParallelHost,
  branch: Branch,
  start: (nodeId: string, item: NonNullable<Branch['item']>) => void,
): Promise<{ exit: EndExit; outputs?: Record<string, unknown> } | null> {
  const spec = graphIndex(host.flow).node(branch.nodeId)?.map;
  if (!spec) throw new Error(`node ${branch.nodeId} is not a map node`);
  if (!branch.map) {
    const items = await mapItems(spec.over, { input: host.input, outputs: host.run.nodeOutputs });
    if (typeof items === 'string') {
      const reason = items.includes('at most') ? 'MAP_TOO_MANY_ITEMS' : 'MAP_OVER_FAILED';
      return { exit: { kind: 'failed', reason, message: items } };
    }
    branch.map = { items, results: items.map(() => null), started: 0 };
  }
  const map = branch.map;
  if (map.failed) return { exit: { kind: 'failed', ...map.failed } };
  if (map.results.every((r) => r !== null)) {
    return { exit: { kind: 'completed' }, outputs: { items: map.results } };
  }
  const running = (host.doc.branches ?? []).filter((b) => b.item?.of === branch.nodeRuns).length;
  for (let free = spec.concurrency - running; free > 0 && map.started < map.items.length; free -= 1) {
    const index = map.started;
    map.started += 1;
    start(spec.node, { of: branch.nodeRuns, index, value: map.items[index] });
  }
  return null;
}

/**
 * An item's branch ended: its outputs are kept in its map branch (a failure marks the map failed).
 * An item whose map ended meanwhile (another item failed) is dropped.
 */
export function itemSettled(
  host: ParallelHost,
  item: Branch,
  exit: EndExit,
  outputs: Record<string, unknown>,
): void {
  const of = item.item?.of;
  const parent = (host.doc.branches ?? []).find((b) => b.map && !b.item && b.nodeRuns === of);
  if (!parent?.map || !item.item) return;
  if (exit.kind === 'failed') {
    parent.map.failed ??= {
      reason: exit.reason,
      message: `the item at index ${item.item.index} (from 0): ${exit.message}`,
    };
    return;
  }
  parent.map.results[item.item.index] = outputs;
}
