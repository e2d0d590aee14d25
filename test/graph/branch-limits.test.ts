import { describe, expect, it } from 'vitest';
import type { FlowInput, FlowNode } from '../../src/domain/flow.js';
import { MAX_EDGE_TARGETS, MAX_RUN_BRANCHES } from '../../src/domain/flow.js';
import { loadFlow } from '../../src/flow/load.js';
import { FlowError } from '../../src/flow/problems.js';
import { runParallelGraph, type ParallelHost } from '../../src/graph/parallel.js';
import type { NodeExit } from '../../src/loop/node-loop.js';
import type { Branch } from '../../src/records/state-doc.js';
import { GraphHostFake } from '../helpers/graph-host-fake.js';

/**
 * Issue 39, finding 2: how wide parallel branches may be. A flow declaring a wider fan-out than
 * MAX_EDGE_TARGETS per edge or MAX_RUN_BRANCHES per run is refused when loaded, a run that would
 * still hold more (an edge taken again in a cycle) fails TOO_MANY_BRANCHES, and the driver's
 * bookkeeping per ended branch does not grow with the number of branches.
 */

/** The graph host fake with the parallel runner's port: each node run answers from `answer`. */
class ParallelFake extends GraphHostFake implements ParallelHost {
  constructor(
    flow: Omit<FlowInput, 'id'>,
    private readonly answer: (node: FlowNode, branch: Branch) => Promise<NodeExit>,
  ) {
    super(flow, {});
  }
  runBranch(branch: Branch, node: FlowNode): Promise<NodeExit> {
    return this.answer(node, branch);
  }
  adoptConversation(): void {}
}

const done: NodeExit = { kind: 'completed' };
const node = (id: string) => ({ id, instructions: 'x' });

async function problemsOf(flow: Record<string, unknown>): Promise<string> {
  try {
    await loadFlow({ id: 'wide', locale: 'en', ...flow } as never);
    return '';
  } catch (error) {
    expect(error).toBeInstanceOf(FlowError);
    return (error as Error).message;
  }
}

describe('branch limits', () => {
  it('refuses an edge to more than MAX_EDGE_TARGETS nodes, naming the edge and the limit', async () => {
    const ids = Array.from({ length: MAX_EDGE_TARGETS + 1 }, (_, i) => `n${i}`);
    const message = await problemsOf({
      nodes: [node('start'), ...ids.map(node)],
      edges: [{ from: 'start', to: ids }],
    });
    expect(message).toContain('edges[0].to');
    expect(message).toContain(`starts ${MAX_EDGE_TARGETS + 1} nodes at once; an edge starts at most 64`);
    // Exactly the limit is fine.
    const fits = await problemsOf({
      nodes: [node('start'), ...ids.slice(1).map(node)],
      edges: [{ from: 'start', to: ids.slice(1) }],
    });
    expect(fits).toBe('');
  });

  it('refuses lists and map concurrency adding up to more than MAX_RUN_BRANCHES', async () => {
    const heads = ['h0', 'h1', 'h2', 'h3'];
    const leaves = heads.map((h) => Array.from({ length: 63 }, (_, i) => `${h}_${i}`));
    const flow = (concurrency: number) => ({
      nodes: [
        node('start'),
        ...heads.map(node),
        ...leaves.flat().map(node),
        node('body'),
        { id: 'each', map: { over: '{{input.text}}', node: 'body', concurrency } },
      ],
      edges: [{ from: 'start', to: heads }, ...heads.map((h, k) => ({ from: h, to: leaves[k] }))],
    });
    // 4 + 4 × 63 = 256, with a map of concurrency 1: 257.
    const over = await problemsOf(flow(1));
    expect(over).toContain(`add up to 257 branches; a run holds at most ${MAX_RUN_BRANCHES} at once`);
    const message = await problemsOf({ ...flow(1), nodes: flow(1).nodes.slice(0, -2) });
    expect(message).toBe('');
  });

  it('fails a run TOO_MANY_BRANCHES when a cycle would start more than MAX_RUN_BRANCHES at once', async () => {
    // x → [x, y1 … y63] while it is asked to: each round adds 63 branches that wait.
    const ys = Array.from({ length: 63 }, (_, i) => `y${i}`);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    let xs = 0;
    let running = 0;
    let most = 0;
    const host = new ParallelFake(
      {
        nodes: [node('x'), ...ys.map(node)],
        edges: [{ from: 'x', to: ['x', ...ys], when: "status = 'completed'" }],
      },
      async (n) => {
        most = Math.max(most, (running += 1));
        if (n.id === 'x') xs += 1;
        else await gate;
        running -= 1;
        return done;
      },
    );
    const checkpoint = host.checkpoint.bind(host);
    host.checkpoint = () => {
      // The waiting branches end once the run knows it cannot start more.
      if (host.doc.graph?.failed) open();
      return checkpoint();
    };
    expect(await runParallelGraph(host)).toBe('failed');
    expect(host.finalPatch()).toMatchObject({ status: 'failed', reason: 'TOO_MANY_BRANCHES' });
    expect(host.finalPatch()?.message).toContain(`a run holds at most ${MAX_RUN_BRANCHES}`);
    expect(xs).toBe(5);
    expect(most).toBeGreaterThan(MAX_RUN_BRANCHES - 63);
    expect(most).toBeLessThanOrEqual(MAX_RUN_BRANCHES);
    expect(host.doc.branches?.length ?? 0).toBeLessThanOrEqual(MAX_RUN_BRANCHES);
  });

  it('keeps the bookkeeping linear: 1,000 branches in 4 fan-outs of 250 (the driver alone, no validation)', async () => {
    // Counted, not timed: the reads of the flow's nodes and edges and of the run's branch list. A scan
    // of every node or edge per branch per ended branch (as before) made twice the fan-outs cost four
    // times the reads, and took minutes at 2,000 branches.
    const two = await fanOuts(2);
    const four = await fanOuts(4);
    expect(four.completed).toBe(1 + 1_000 + 4);
    expect(four.reads / two.reads).toBeLessThan(2.5);
  });
});

/** Runs `levels` fan-outs of 250 branches, each joined before the next; counts the reads. */
async function fanOuts(levels: number): Promise<{ completed: number; reads: number }> {
  const ids = Array.from({ length: levels }, (_, l) => Array.from({ length: 250 }, (_, i) => `n${l}_${i}`));
  const joins = ids.map((_, l) => `join${l}`);
  const host = new ParallelFake(
    {
      nodes: [node('start'), ...ids.flat().map(node), ...joins.map(node)],
      edges: ids.flatMap((level, l) => [
        { from: l === 0 ? 'start' : (joins[l - 1] as string), to: level },
        ...level.map((id) => ({ from: id, to: joins[l] as string })),
      ]),
    },
    () => Promise.resolve(done),
  );
  let reads = 0;
  const counted = <T extends object>(list: T[]): T[] =>
    new Proxy(list, {
      get(target, key, receiver) {
        reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
  Object.assign(host.flow, { nodes: counted(host.flow.nodes), edges: counted(host.flow.edges) });
  host.doc.branches = counted([]);
  expect(await runParallelGraph(host)).toBe('completed');
  return { completed: host.ofType('node.completed').length, reads };
}
