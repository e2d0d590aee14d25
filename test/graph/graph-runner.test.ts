import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../src/domain/flow.js';
import { runGraph } from '../../src/graph/flow-runner.js';
import { completed, failed, GraphHostFake, stopped, suspended } from '../helpers/graph-host-fake.js';

type Edges = NonNullable<FlowInput['edges']>;

/**
 * The graph runner alone, behind a strict fake of its port (test/helpers/graph-host-fake.ts): which
 * edge is taken, how a run ends, EDGE_ERROR, cycles. Each node's exit is scripted, so no model, loop
 * or store runs. graph.test.ts drives the same runner through a whole runtime.
 */
function graph(edges: Edges, visits: ConstructorParameters<typeof GraphHostFake>[1], input?: unknown) {
  const ids = [...new Set(['start', ...edges.flatMap((e) => [e.from, e.to].flat())])];
  return new GraphHostFake({ nodes: ids.map((id) => ({ id })), edges }, visits, input);
}

describe('runGraph behind a fake host', () => {
  it('takes the first edge whose `when` holds, in file order; an edge without `when` holds for a completed node', async () => {
    const edges: Edges = [
      { from: 'start', to: 'a', when: "outputs.kind = 'a'" },
      { from: 'start', to: 'b', when: "status = 'completed' and outputs.kind = 'b'" },
      { from: 'start', to: 'c', when: '$exists(outputs.kind)' },
      { from: 'start', to: 'a' },
    ];
    const cases: [unknown, string][] = [
      ['b', 'b'],
      ['zzz', 'c'],
      [undefined, 'a'],
    ];
    for (const [kind, leaf] of cases) {
      const host = graph(edges, {
        start: [completed(kind === undefined ? {} : { kind })],
        [leaf]: [completed()],
      });
      expect(await runGraph(host)).toBe('completed');
      expect(host.visited).toEqual(['start', leaf]);
    }
  });

  it('`when` sees the run input', async () => {
    const edges: Edges = [
      { from: 'start', to: 'a', when: "input.mode = 'fast'" },
      { from: 'start', to: 'b' },
    ];
    const fast = graph(edges, { start: [completed()], a: [completed()] }, { text: 'go', mode: 'fast' });
    await runGraph(fast);
    expect(Object.keys(fast.run.nodeOutputs)).toEqual(['start', 'a']);
    const slow = graph(edges, { start: [completed()], b: [completed()] });
    await runGraph(slow);
    expect(Object.keys(slow.run.nodeOutputs)).toEqual(['start', 'b']);
  });

  it('no matching edge ends the run with the last node status (completed), its outputs and reply', async () => {
    const host = graph([{ from: 'start', to: 'a', when: "outputs.kind = 'a'" }], {
      start: [completed({ kind: 'other' }, 'all done')],
    });
    expect(await runGraph(host)).toBe('completed');
    expect(host.visited).toEqual(['start']);
    expect(host.ofType('run.completed')).toEqual([
      { type: 'run.completed', outputs: { start: { kind: 'other' } }, reply: 'all done' },
    ]);
    expect(host.finalPatch()).toMatchObject({ status: 'completed', suspension: null, leaseOwner: null });
    expect(host.doc).toMatchObject({ nodeId: null, node: null, reply: 'all done' });
  });

  it('a failed node ends the run as failed: an edge without `when` is not taken; the node run is kept for retry', async () => {
    const host = graph([{ from: 'start', to: 'a' }], { start: [failed('FAILED_BY_MODEL', 'no way')] });
    expect(await runGraph(host)).toBe('failed');
    expect(host.visited).toEqual(['start']);
    expect(host.ofType('run.failed')).toEqual([
      { type: 'run.failed', reason: 'FAILED_BY_MODEL', failedNode: 'start', message: 'no way' },
    ]);
    expect(host.finalPatch()).toMatchObject({
      status: 'failed',
      reason: 'FAILED_BY_MODEL',
      failedNode: 'start',
    });
    expect(host.doc.nodeId).toBe('start');
    expect(host.doc.node).not.toBeNull();
  });

  it("a failed node continues along an edge matching `status = 'failed'`, and its outputs are {}", async () => {
    const host = graph(
      [
        { from: 'start', to: 'a', when: "status = 'completed'" },
        { from: 'start', to: 'b', when: "status = 'failed' and $count($keys(outputs)) = 0" },
        { from: 'start', to: 'c', when: "status = 'failed'" },
      ],
      { start: [{ ...failed('FAILED_BY_MODEL', 'broken'), outputs: { kind: 'x' } }], b: [completed()] },
    );
    expect(await runGraph(host)).toBe('completed');
    expect(host.run.nodeOutputs).toEqual({ b: {} });
    expect(host.visited).toEqual(['start', 'b']);
    expect(host.ofType('node.failed')).toEqual([
      { type: 'node.failed', nodeId: 'start', reason: 'FAILED_BY_MODEL', message: 'broken' },
    ]);
  });

  it('a run ending in a failed node after a completed one keeps the completed outputs', async () => {
    const host = graph([{ from: 'start', to: 'a' }], { start: [completed()], a: [failed('NO_PROGRESS')] });
    expect(await runGraph(host)).toBe('failed');
    expect(host.run.nodeOutputs).toEqual({ start: {} });
    expect(host.finalPatch()).toMatchObject({ status: 'failed', failedNode: 'a' });
  });

  it('a `when` that fails at run time ends the run failed EDGE_ERROR at the node just finished', async () => {
    const host = graph([{ from: 'start', to: 'a', when: '$error("the edge broke")' }], {
      start: [completed()],
    });
    expect(await runGraph(host)).toBe('failed');
    expect(host.visited).toEqual(['start']);
    const [ended] = host.ofType('run.failed');
    expect(ended).toMatchObject({ reason: 'EDGE_ERROR', failedNode: 'start' });
    expect(ended?.message).toContain('the edge broke');
    expect(host.finalPatch()).toMatchObject({ status: 'failed', reason: 'EDGE_ERROR' });
    // The completed node's outputs were committed before the edge was chosen.
    expect(host.ofType('node.completed')).toHaveLength(1);
  });

  it('a cycle runs a fresh node run on each visit (new state, conversation reset) until its `when` stops holding', async () => {
    const host = new GraphHostFake(
      {
        limits: { maxStalls: 3 },
        nodes: [{ id: 'start', limits: { maxRounds: 4, maxStalls: 2 } }, { id: 'done' }],
        edges: [
          { from: 'start', to: 'start', when: "status = 'failed'" },
          { from: 'start', to: 'done' },
        ],
      },
      { start: [failed(), failed(), completed({ n: 3 })], done: [completed()] },
    );
    expect(await runGraph(host)).toBe('completed');
    expect(host.visited).toEqual(['start', 'start', 'start', 'done']);
    expect(host.doc.nodeRuns).toBe(4);
    expect(host.resets).toBe(4);
    expect(host.ofType('node.started').map((e) => [e.nodeId, e.maxRounds, e.maxStalls])).toEqual([
      ['start', 4, 2],
      ['start', 4, 2],
      ['start', 4, 2],
      ['done', 30, 3],
    ]);
  });

  it('a suspended or stopped node leaves the run where it stands: no end, no edge, no checkpoint', async () => {
    for (const visit of [suspended(), stopped()]) {
      const host = graph([{ from: 'start', to: 'a' }], { start: [visit] });
      expect(await runGraph(host)).toBe(visit.exit.kind);
      expect(host.events.map((e) => e.type)).toEqual(['node.started']);
      expect(host.patches).toEqual([]);
      expect(host.checkpoints).toBe(0);
      expect(host.doc.nodeId).toBe('start');
    }
  });

  it('the fake is strict: a node run more often than scripted throws', async () => {
    const host = graph([{ from: 'start', to: 'start' }], { start: [completed()] });
    await expect(runGraph(host)).rejects.toThrow(/more often than its script allows/);
  });
});
