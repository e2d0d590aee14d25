import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../web/src/api.js';
import { layoutGraph } from '../../web/src/graph-layout.js';
import { itemsOf } from '../../web/src/trace-graph.js';
import { emptyRun, foldEvents, type RunView } from '../../web/src/trace-model.js';

/** The console's graph of a run, from its trace: parallel branches, joins and maps (no browser). */

let seq = 0;
const ev = (type: string, fields: Record<string, unknown> = {}): TraceEvent => ({
  seq: ++seq,
  ts: '2026-12-04T15:00:00.000Z',
  runId: 'run_1',
  type,
  ...fields,
});
const started = (nodeId: string, extra: Record<string, unknown> = {}) =>
  ev('node.started', { nodeId, maxRounds: 30, maxStalls: 5, ...extra });
const completed = (nodeId: string, outputs: Record<string, unknown> = {}, extra = {}) =>
  ev('node.completed', { nodeId, outputs, ...extra });

/** Each node run as `id<-from ids` (items as `id[item n of map]`). */
function shape(view: RunView): string[] {
  return view.nodes.map((n) =>
    n.itemOf !== null
      ? `${n.id}[${String(n.itemIndex)} of ${view.nodes[n.itemOf]?.id ?? '?'}]`
      : `${n.id}<-${n.from.map((i) => view.nodes[i]?.id ?? '?').join(',')}`,
  );
}

describe('the run graph folded from the trace', () => {
  it('draws a fan-out, both branches running at once, and a join that follows both', () => {
    let view = foldEvents(emptyRun(), [
      ev('run.started', { flowId: 'sum' }),
      started('plan'),
      completed('plan', { a: 1 }),
      started('left'),
      started('right'),
      ev('react.round', { nodeId: 'left', round: 1 }),
      ev('react.round', { nodeId: 'right', round: 1 }),
      ev('tool.invoked', { nodeId: 'left', round: 1, callId: 'c1', tool: 'slow', outcome: 'SUCCESS' }),
    ]);
    expect(view.nodes.filter((n) => n.status === 'running').map((n) => n.id)).toEqual(['left', 'right']);
    // Each branch's events land on its own node run.
    expect(view.nodes.find((n) => n.id === 'left')?.items).toHaveLength(1);
    expect(view.nodes.find((n) => n.id === 'right')?.items).toHaveLength(1);
    view = foldEvents(view, [
      completed('right', { b: 2 }),
      completed('left', { a: 1 }),
      started('sum'),
      completed('sum', { total: 3 }),
      ev('run.completed', { outputs: {} }),
    ]);
    expect(shape(view)).toEqual(['plan<-', 'left<-plan', 'right<-plan', 'sum<-right,left']);
    const layout = layoutGraph(view.nodes);
    expect(layout.boxes.map((b) => [b.column, b.row])).toEqual([
      [0, 0],
      [1, 0],
      [1, 1],
      [2, 0],
    ]);
    expect(layout.lines.map((l) => `${l.from}->${l.to}`)).toEqual(['0->1', '0->2', '2->3', '1->3']);
  });

  it('keeps a sequential run a chain, a failed node leading along its failure edge', () => {
    const view = foldEvents(emptyRun(), [
      started('query'),
      completed('query'),
      started('create'),
      ev('node.failed', { nodeId: 'create', reason: 'X', message: 'x' }),
      started('apologise'),
      completed('apologise'),
      started('query'),
    ]);
    expect(shape(view)).toEqual(['query<-', 'create<-query', 'apologise<-create', 'query<-apologise']);
    expect(layoutGraph(view.nodes).boxes.map((b) => b.column)).toEqual([0, 1, 2, 3]);
  });

  it('groups the runs of a map body as items of the map, with the item count', () => {
    const view = foldEvents(emptyRun(), [
      started('plan'),
      completed('plan', { lines: [1, 2, 3] }),
      started('tickets'),
      started('file'),
      started('file'),
      completed('file', { id: 'a' }),
      started('file'),
      completed('file', { id: 'b' }),
      completed('file', { id: 'c' }),
      completed('tickets', { items: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] }),
      started('report'),
    ]);
    expect(shape(view)).toEqual([
      'plan<-',
      'tickets<-plan',
      'file[0 of tickets]',
      'file[1 of tickets]',
      'file[2 of tickets]',
      'report<-tickets',
    ]);
    expect(itemsOf(view, 1)).toBe(3);
    const layout = layoutGraph(view.nodes);
    // Items one column right of the map, its successor one further.
    expect(layout.boxes.map((b) => b.column)).toEqual([0, 1, 2, 2, 2, 3]);
    expect(layout.lines.filter((l) => l.kind === 'item')).toHaveLength(3);
  });

  it('uses what node.started says when it says it (from, nodeRun, item)', () => {
    const view = foldEvents(emptyRun(), [
      started('plan', { nodeRun: 1 }),
      completed('plan', {}, { nodeRun: 1 }),
      started('left', { nodeRun: 2, from: ['plan'] }),
      started('m', { nodeRun: 3, from: ['plan'] }),
      started('x', { nodeRun: 4, item: { of: 3, index: 0 } }),
      completed('left', {}, { nodeRun: 2 }),
      completed('x', { v: 1 }, { nodeRun: 4 }),
      completed('m', { items: [{ v: 1 }] }, { nodeRun: 3 }),
      started('sum', { nodeRun: 5, from: ['left', 'm'] }),
    ]);
    expect(shape(view)).toEqual(['plan<-', 'left<-plan', 'm<-plan', 'x[0 of m]', 'sum<-left,m']);
    expect(itemsOf(view, 2)).toBe(1);
    // A map whose items the trace does not show still has its count, from its outputs.
    expect(itemsOf({ nodes: [{ ...view.nodes[2]!, outputs: { items: [1, 2] } }] }, 0)).toBe(2);
  });
});
