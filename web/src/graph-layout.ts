/**
 * Where the node graph draws each node run (pure, for components/node-graph.tsx): columns by depth
 * from the first node (a node run one column right of the latest run it followed; a map's items one
 * column right of the map, its successors one further), rows in start order within a column; and
 * the lines between them: an edge per node run followed (fan-out: one run to several; join: several
 * to one) and a dashed line from a map to each of its items.
 */
import type { NodeView } from './run-view.js';

/** Size of a node's box and the gaps between boxes, in CSS pixels. */
export const BOX = { width: 232, height: 128, gapX: 48, gapY: 20 } as const;

/** One node run's place: column (depth) and row. */
export interface GraphBox {
  index: number;
  column: number;
  row: number;
  x: number;
  y: number;
}

/** A line from one node run to another: `edge` (it followed) or `item` (a map to its item). */
export interface GraphLine {
  from: number;
  to: number;
  kind: 'edge' | 'item';
}

/** The whole drawing: boxes by node run, lines, and the canvas size. */
export interface GraphLayout {
  boxes: GraphBox[];
  lines: GraphLine[];
  width: number;
  height: number;
}

/** Lays out node runs in trace order (`from`/`itemOf` point to earlier runs only). */
export function layoutGraph(nodes: readonly NodeView[]): GraphLayout {
  const columns: number[] = [];
  const lines: GraphLine[] = [];
  const hasItems = new Set(nodes.flatMap((n) => (n.itemOf === null ? [] : [n.itemOf])));
  nodes.forEach((node, i) => {
    if (node.itemOf !== null) {
      columns[i] = (columns[node.itemOf] ?? 0) + 1;
      lines.push({ from: node.itemOf, to: i, kind: 'item' });
      return;
    }
    const after = node.from.map((p) => (columns[p] ?? 0) + (hasItems.has(p) ? 2 : 1));
    columns[i] = after.length > 0 ? Math.max(...after) : i === 0 ? 0 : (columns[i - 1] ?? 0) + 1;
    for (const p of node.from) lines.push({ from: p, to: i, kind: 'edge' });
  });
  const rowsUsed: number[] = [];
  const boxes = nodes.map((_, index) => {
    const column = columns[index] ?? 0;
    const row = rowsUsed[column] ?? 0;
    rowsUsed[column] = row + 1;
    return {
      index,
      column,
      row,
      x: column * (BOX.width + BOX.gapX),
      y: row * (BOX.height + BOX.gapY),
    };
  });
  const width = Math.max(0, ...boxes.map((b) => b.x + BOX.width));
  const height = Math.max(0, ...boxes.map((b) => b.y + BOX.height));
  return { boxes, lines, width, height };
}
