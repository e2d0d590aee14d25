import { describe, expect, it } from 'vitest';
import { MAX_MAP_ITEMS, type FlowInput } from '../../src/domain/flow.js';
import { isMapNode, itemSettled, mapItems, stepMap } from '../../src/graph/map.js';
import { runParallelGraph } from '../../src/graph/parallel.js';
import { newLoopState } from '../../src/records/loop-state.js';
import type { Branch } from '../../src/records/state-doc.js';
import { complete, ParallelFake as MapFake } from './parallel-host-fixture.js';

/**
 * Map nodes (docs/flows.md, "Map"): the list `over` gives (mapItems), one step of a map branch
 * (stepMap), an item's end (itemSettled), and whole maps through the parallel runner behind a fake
 * host whose node runs answer from a function.
 */

/** start (plan) → each (a map of `body` over `over`) → after. */
function mapFlow(over: string, concurrency = 2): Omit<FlowInput, 'id'> {
  return {
    nodes: [
      { id: 'start', instructions: 'plan' },
      { id: 'each', map: { over, node: 'body', concurrency } },
      { id: 'body', instructions: 'do {{item}}' },
      { id: 'after', instructions: 'report' },
    ],
    edges: [
      { from: 'start', to: 'each' },
      { from: 'each', to: 'after' },
    ],
  };
}

const scope = (input: unknown, outputs: Record<string, Record<string, unknown>> = {}) => ({ input, outputs });

describe('mapItems', () => {
  it('reads one template reference: node outputs or input fields, white space allowed', async () => {
    expect(await mapItems('{{nodes.plan.outputs.lines}}', scope({}, { plan: { lines: [1, 2] } }))).toEqual([
      1, 2,
    ]);
    expect(await mapItems('  {{ input.items }} ', scope({ items: ['a'] }))).toEqual(['a']);
    expect(await mapItems('{{input.order.lines}}', scope({ order: { lines: [] } }))).toEqual([]);
  });

  it('evaluates anything else as JSONata over {input, outputs}', async () => {
    const s = scope({ n: 3 }, { plan: { lines: [{ v: 1 }, { v: 5 }, { v: 9 }] } });
    expect(await mapItems('outputs.plan.lines', s)).toEqual([{ v: 1 }, { v: 5 }, { v: 9 }]);
    expect(await mapItems('outputs.plan.lines[v > 2].v', s)).toEqual([5, 9]);
    expect(await mapItems('[1..input.n]', s)).toEqual([1, 2, 3]);
    // A filter without a hit is JSONata's empty sequence: an empty list, not an error.
    expect(await mapItems('outputs.plan.lines[v > 100]', s)).toEqual([]);
  });

  it("takes an expression's single value as a list of one (a filter with one hit), a template's not", async () => {
    const lines = { lines: [{ v: 1 }, { v: 5 }, { v: 9 }] };
    expect(await mapItems('outputs.plan.lines[v > 8]', scope({}, { plan: lines }))).toEqual([{ v: 9 }]);
    expect(await mapItems('outputs.plan.lines[v > 8].v', scope({}, { plan: lines }))).toEqual([9]);
    expect(await mapItems('outputs.plan.lines[v > 4]', scope({}, { plan: lines }))).toEqual([
      { v: 5 },
      { v: 9 },
    ]);
    expect(await mapItems('outputs.plan.lines[v > 10]', scope({}, { plan: lines }))).toEqual([]);
    expect(await mapItems('{{nodes.plan.outputs.one}}', scope({}, { plan: { one: { v: 9 } } }))).toBe(
      'map.over gave object, not a list',
    );
  });

  it('names a template that names nothing, a value that is no list, and an expression that fails', async () => {
    expect(await mapItems('{{nodes.plan.outputs.missing}}', scope({}, { plan: {} }))).toBe(
      'map.over {{nodes.plan.outputs.missing}} names no value of this run',
    );
    expect(await mapItems(' {{input.x}} ', scope({}))).toBe(
      'map.over {{input.x}} names no value of this run',
    );
    expect(await mapItems('{{input.x}}', scope({ x: 'abc' }))).toBe('map.over gave string, not a list');
    expect(await mapItems('{{input.x}}', scope({ x: { a: 1 } }))).toBe('map.over gave object, not a list');
    expect(await mapItems('{{input.x}}', scope({ x: null }))).toBe('map.over gave null, not a list');
    expect(await mapItems('input.n', scope({ n: null }))).toBe('map.over gave null, not a list');
    const failed = await mapItems('$error("bad list")', scope({}));
    expect(failed).toMatch(/^map\.over failed: /);
    expect(failed).toContain('bad list');
    expect(await mapItems('input.(', scope({}))).toMatch(/^map\.over failed: /);
  });

  it(`takes at most ${MAX_MAP_ITEMS} items`, async () => {
    const list = (n: number) => scope({ xs: Array.from({ length: n }, (_, i) => i) });
    expect(await mapItems('{{input.xs}}', list(MAX_MAP_ITEMS))).toHaveLength(MAX_MAP_ITEMS);
    expect(await mapItems('input.xs', list(MAX_MAP_ITEMS + 1))).toBe(
      `map.over gave ${MAX_MAP_ITEMS + 1} items; a map runs at most ${MAX_MAP_ITEMS}`,
    );
  });
});

describe('isMapNode', () => {
  it('is true only for a node of the flow with `map`', () => {
    const flow = { nodes: mapFlow('input.xs').nodes as never };
    expect(isMapNode(flow, 'each')).toBe(true);
    expect(isMapNode(flow, 'body')).toBe(false);
    expect(isMapNode(flow, 'nowhere')).toBe(false);
  });
});

describe('stepMap and itemSettled', () => {
  /** A host whose map branch `each` is in the branches, with the run's input. */
  function mapHost(input: unknown, concurrency = 2) {
    const host = new MapFake(mapFlow('{{input.xs}}', concurrency), () => ({ kind: 'completed' }), input);
    const branch: Branch = { nodeId: 'each', nodeRuns: 5, node: null, loop: newLoopState() };
    host.doc.branches = [branch];
    const started: [string, NonNullable<Branch['item']>][] = [];
    const start = (nodeId: string, item: NonNullable<Branch['item']>) => {
      started.push([nodeId, item]);
      host.doc.branches?.push({ nodeId, nodeRuns: 100 + item.index, node: null, loop: newLoopState(), item });
    };
    return { host, branch, started, start };
  }

  it('fixes the items on the first step and starts up to `concurrency`, then more as items end', async () => {
    const { host, branch, started, start } = mapHost({ xs: ['a', 'b', 'c'] });
    expect(await stepMap(host, branch, start)).toBeNull();
    expect(branch.map).toEqual({ items: ['a', 'b', 'c'], results: [null, null, null], started: 2 });
    expect(started).toEqual([
      ['body', { of: 5, index: 0, value: 'a' }],
      ['body', { of: 5, index: 1, value: 'b' }],
    ]);
    // The input changing later does not change the list.
    (host.input as { xs: string[] }).xs.push('d');
    expect(await stepMap(host, branch, start)).toBeNull();
    expect(started).toHaveLength(2);

    // Item 1 ends first: its result goes to index 1, and its branch leaves the running ones.
    const second = host.doc.branches?.find((b) => b.item?.index === 1) as Branch;
    itemSettled(host, second, { kind: 'completed' }, { out: 'B' });
    host.doc.branches = host.doc.branches?.filter((b) => b !== second);
    expect(await stepMap(host, branch, start)).toBeNull();
    expect(started.map(([, item]) => item.index)).toEqual([0, 1, 2]);
    expect(branch.map?.results).toEqual([null, { out: 'B' }, null]);

    for (const index of [0, 2]) {
      const item = host.doc.branches?.find((b) => b.item?.index === index) as Branch;
      itemSettled(host, item, { kind: 'completed' }, { out: index });
    }
    expect(await stepMap(host, branch, start)).toEqual({
      exit: { kind: 'completed' },
      outputs: { items: [{ out: 0 }, { out: 'B' }, { out: 2 }] },
    });
    expect(started).toHaveLength(3);
  });

  it('completes an empty list at once with items: []', async () => {
    const { host, branch, started, start } = mapHost({ xs: [] });
    expect(await stepMap(host, branch, start)).toEqual({
      exit: { kind: 'completed' },
      outputs: { items: [] },
    });
    expect(started).toEqual([]);
  });

  it('fails MAP_OVER_FAILED for what is no list and MAP_TOO_MANY_ITEMS for a long one, starting nothing', async () => {
    const notList = mapHost({ xs: 'abc' });
    expect(await stepMap(notList.host, notList.branch, notList.start)).toEqual({
      exit: { kind: 'failed', reason: 'MAP_OVER_FAILED', message: 'map.over gave string, not a list' },
    });
    const missing = mapHost({});
    expect(await stepMap(missing.host, missing.branch, missing.start)).toEqual({
      exit: {
        kind: 'failed',
        reason: 'MAP_OVER_FAILED',
        message: 'map.over {{input.xs}} names no value of this run',
      },
    });
    const long = mapHost({ xs: Array.from({ length: MAX_MAP_ITEMS + 1 }, () => 0) });
    expect(await stepMap(long.host, long.branch, long.start)).toEqual({
      exit: {
        kind: 'failed',
        reason: 'MAP_TOO_MANY_ITEMS',
        message: `map.over gave ${MAX_MAP_ITEMS + 1} items; a map runs at most ${MAX_MAP_ITEMS}`,
      },
    });
    for (const h of [notList, missing, long]) {
      expect(h.started).toEqual([]);
      expect(h.branch.map).toBeUndefined();
    }
  });

  it('an item failing marks the map failed with the first failure, naming the item by its index', async () => {
    const { host, branch, started, start } = mapHost({ xs: [1, 2, 3] }, 3);
    await stepMap(host, branch, start);
    const item = (i: number) => host.doc.branches?.find((b) => b.item?.index === i) as Branch;
    itemSettled(host, item(2), { kind: 'failed', reason: 'NO_PROGRESS', message: 'stuck' }, {});
    itemSettled(host, item(0), { kind: 'failed', reason: 'OTHER', message: 'later' }, {});
    itemSettled(host, item(1), { kind: 'completed' }, { ok: true });
    expect(branch.map?.failed).toEqual({
      reason: 'NO_PROGRESS',
      message: 'the item at index 2 (from 0): stuck',
    });
    expect(await stepMap(host, branch, start)).toEqual({
      exit: { kind: 'failed', reason: 'NO_PROGRESS', message: 'the item at index 2 (from 0): stuck' },
    });
    expect(started).toHaveLength(3);
  });

  it('drops an item whose map is gone, and refuses a node that is not a map', async () => {
    const { host, branch } = mapHost({ xs: [1] });
    const orphan: Branch = {
      nodeId: 'body',
      nodeRuns: 9,
      node: null,
      loop: newLoopState(),
      item: { of: 42, index: 0, value: 1 },
    };
    itemSettled(host, orphan, { kind: 'failed', reason: 'X', message: 'y' }, {});
    expect(branch.map).toBeUndefined();
    const plain: Branch = { nodeId: 'after', nodeRuns: 3, node: null, loop: newLoopState() };
    await expect(stepMap(host, plain, () => {})).rejects.toThrow('node after is not a map node');
  });
});

describe('maps through the parallel runner', () => {
  it('runs the body once per item, at most `concurrency` at once, and keeps outputs in item order', async () => {
    const releases: (() => void)[] = [];
    const host = new MapFake(mapFlow('{{nodes.start.outputs.lines}}', 2), async (node, branch) => {
      if (node.id === 'start') return complete(branch, { lines: [10, 20, 30, 40] });
      if (node.id !== 'body') return complete(branch, { seen: node.id });
      // Items end in the order the test releases them.
      await new Promise<void>((resolve) => releases.push(resolve));
      return complete(branch, { double: (branch.item?.value as number) * 2 });
    });
    const drive = runParallelGraph(host);
    const settle = async () => {
      for (let i = 0; i < 50; i += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    await settle();
    expect(host.running).toBe(2);
    // Release the later of the two first, then each newest.
    for (let left = 4; left > 0; left -= 1) {
      releases.pop()?.();
      await settle();
    }
    expect(await drive).toBe('completed');
    expect(host.mostRunning).toBe(2);
    expect(host.items.filter((_, i) => host.ran[i] === 'body')).toEqual([0, 1, 2, 3]);
    expect(host.run.nodeOutputs.each).toEqual({
      items: [{ double: 20 }, { double: 40 }, { double: 60 }, { double: 80 }],
    });
    const mapRun = host.ofType('node.started').find((e) => e.nodeId === 'each')?.nodeRun;
    const items = host.ofType('node.started').filter((e) => e.nodeId === 'body');
    expect(items.map((e) => e.item)).toEqual([0, 1, 2, 3].map((index) => ({ of: mapRun, index })));
    const itemEnds = host.ofType('node.completed').filter((e) => e.nodeId === 'body');
    expect(itemEnds).toHaveLength(4);
    expect(itemEnds.every((e) => e.item?.of === mapRun)).toBe(true);
    // Item ends are not node outputs of the run; the map node's are, and `after` follows it.
    expect(Object.keys(host.run.nodeOutputs)).toEqual(['start', 'each', 'after']);
    expect(host.ofType('node.started').find((e) => e.nodeId === 'after')?.from).toEqual(['each']);
  });

  it('an empty list completes the map at once with items: [] and never runs the body', async () => {
    const host = new MapFake(mapFlow('input.xs'), (_node, branch) => complete(branch), { xs: [] });
    expect(await runParallelGraph(host)).toBe('completed');
    expect(host.ran).toEqual(['start', 'after']);
    expect(host.run.nodeOutputs.each).toEqual({ items: [] });
  });

  it('an item that fails fails the map node; items running finish, none starts; the run fails at the map', async () => {
    const host = new MapFake(
      mapFlow('input.xs', 2),
      (_node, branch) =>
        branch.item?.index === 0
          ? { kind: 'failed', reason: 'NO_PROGRESS', message: 'could not price' }
          : complete(branch, { ok: branch.item?.index }),
      { xs: ['a', 'b', 'c', 'd'] },
    );
    expect(await runParallelGraph(host)).toBe('failed');
    expect(host.items.filter((_, i) => host.ran[i] === 'body')).toEqual([0, 1]);
    expect(host.ofType('node.failed').map((e) => [e.nodeId, e.reason, e.message, e.item ?? null])).toEqual([
      ['body', 'NO_PROGRESS', 'could not price', { of: 2, index: 0 }],
      ['each', 'NO_PROGRESS', 'the item at index 0 (from 0): could not price', null],
    ]);
    expect(host.finalPatch()).toMatchObject({
      status: 'failed',
      failedNode: 'each',
      reason: 'NO_PROGRESS',
      message: 'the item at index 0 (from 0): could not price',
    });
    expect(host.ran).not.toContain('after');
  });

  it('a map failure can be routed like any failure', async () => {
    const flow = mapFlow('{{input.xs}}', 1);
    flow.nodes = [...(flow.nodes ?? []), { id: 'apologise', instructions: 'sorry' }];
    flow.edges = [
      { from: 'start', to: 'each' },
      { from: 'each', to: 'apologise', when: "status = 'failed'" },
      { from: 'each', to: 'after' },
    ];
    const host = new MapFake(flow, (_node, branch) => complete(branch), { xs: 'not a list' });
    expect(await runParallelGraph(host)).toBe('completed');
    expect(host.ran).toEqual(['start', 'apologise']);
    expect(host.ofType('node.failed')).toEqual([
      {
        type: 'node.failed',
        nodeId: 'each',
        reason: 'MAP_OVER_FAILED',
        message: 'map.over gave string, not a list',
      },
    ]);
  });
});
