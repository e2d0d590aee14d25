import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../src/domain/flow.js';
import { isParallelFlow, runParallelGraph } from '../../src/graph/parallel.js';
import { complete, gate, nodes, ParallelFake, until } from './parallel-host-fixture.js';

/**
 * The parallel runner (src/graph/parallel.ts) alone, behind the graph host fake with the parallel
 * port: no model, loop or store. Each node run answers from a function; a gate holds a node run open
 * until the test releases it, so the order in which branches end is the test's. Fan-out, joins,
 * replies and failures; people and startBranch are in parallel-branches.test.ts.
 */

describe('isParallelFlow', () => {
  it('is true for an edge to several nodes or a map node, false otherwise', () => {
    const flow = (edges: FlowInput['edges'], extra: FlowInput['nodes'] = []) => ({
      edges: edges ?? [],
      nodes: [...nodes('a', 'b', 'c'), ...extra] as never,
    });
    expect(isParallelFlow(flow([{ from: 'a', to: 'b' }]))).toBe(false);
    expect(isParallelFlow(flow([{ from: 'a', to: ['b'] }]))).toBe(false);
    expect(isParallelFlow(flow([{ from: 'a', to: ['b', 'c'] }]))).toBe(true);
    expect(isParallelFlow(flow([], [{ id: 'm', map: { over: 'input.x', node: 'b' } }]))).toBe(true);
    expect(isParallelFlow(flow([]))).toBe(false);
  });
});

describe('runParallelGraph: fan-out and joins', () => {
  it('adopts the first node run as a branch, starts both targets, and runs the join once, after its last source', async () => {
    const slowA = gate();
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'c', 'j'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'a', to: 'j' },
          { from: 'b', to: 'c' },
          { from: 'c', to: 'j' },
        ],
      },
      async (node, branch) => {
        if (node.id === 'a') await slowA.promise;
        return complete(branch, { v: node.id });
      },
    );
    const drive = runParallelGraph(host);
    // b and c end while a still runs: the join waits, since a can still reach it.
    await until(() => host.ofType('node.completed').some((e) => e.nodeId === 'c'));
    expect(host.ran).toEqual(['start', 'a', 'b', 'c']);
    expect(host.doc.graph?.joins).toEqual(['j']);
    slowA.open();
    expect(await drive).toBe('completed');
    expect(host.ran).toEqual(['start', 'a', 'b', 'c', 'j']);
    // The constructor's node.started (single node run) has no nodeRun; the runner's carry theirs and `from`.
    expect(host.started()).toEqual([
      ['start', undefined, undefined],
      ['a', 2, ['start']],
      ['b', 3, ['start']],
      ['c', 4, ['b']],
      ['j', 5, ['a', 'c']],
    ]);
    expect(host.adopted.map((b) => [b.nodeId, b.nodeRuns])).toEqual([['start', 1]]);
    expect(host.doc).toMatchObject({ nodeId: null, node: null, branches: [], graph: { joins: [] } });
    expect(host.ofType('run.completed')).toEqual([
      {
        type: 'run.completed',
        outputs: { start: { v: 'start' }, a: { v: 'a' }, b: { v: 'b' }, c: { v: 'c' }, j: { v: 'j' } },
      },
    ]);
    expect(host.finalPatch()).toEqual({
      status: 'completed',
      suspension: null,
      leaseOwner: null,
      leaseExpiresAt: null,
    });
  });

  it('starts a join as soon as no running branch can reach it, and names only the sources that ended', async () => {
    const slowX = gate();
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'x', 'j'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'b', to: 'j', when: 'false' },
          { from: 'b', to: 'x' },
          { from: 'a', to: 'j' },
        ],
      },
      async (node, branch) => {
        if (node.id === 'x') await slowX.promise;
        return complete(branch);
      },
    );
    const drive = runParallelGraph(host);
    // x runs on and cannot reach j: j starts without waiting for it.
    await until(() => host.ran.includes('j'));
    expect(host.ran.includes('x')).toBe(true);
    expect(host.ofType('node.completed').map((e) => e.nodeId)).not.toContain('x');
    slowX.open();
    expect(await drive).toBe('completed');
    const j = host.ofType('node.started').find((e) => e.nodeId === 'j');
    // b completed (its edge to j did not hold), a led to j: both ended in this run.
    expect(j?.from).toEqual(['b', 'a']);
  });

  it('a join that an edge never leads to does not run', async () => {
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'j'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'a', to: 'j', when: 'false' },
          { from: 'b', to: 'j', when: 'false' },
        ],
      },
      (_node, branch) => complete(branch),
    );
    expect(await runParallelGraph(host)).toBe('completed');
    expect(host.ran).toEqual(['start', 'a', 'b']);
    expect(host.doc.graph?.joins).toEqual([]);
  });

  it("a node's limits override the flow's in the node.started of a branch", async () => {
    const host = new ParallelFake(
      {
        limits: { maxRounds: 9, maxStalls: 4 },
        nodes: [
          { id: 'start' },
          { id: 'a', limits: { maxRounds: 2 } },
          { id: 'b', limits: { maxStalls: 1 } },
        ],
        edges: [{ from: 'start', to: ['a', 'b'] }],
      },
      (_node, branch) => complete(branch),
    );
    await runParallelGraph(host);
    expect(host.ofType('node.started').map((e) => [e.nodeId, e.maxRounds, e.maxStalls])).toEqual([
      ['start', 9, 4],
      ['a', 2, 4],
      ['b', 9, 1],
    ]);
  });

  it('the reply is that of the last node that completed: one without a reply clears an earlier one', async () => {
    const run = async (order: 'a-last' | 'b-last') => {
      const later = gate();
      const last = order === 'a-last' ? 'a' : 'b';
      const host = new ParallelFake(
        { nodes: nodes('start', 'a', 'b'), edges: [{ from: 'start', to: ['a', 'b'] }] },
        async (node, branch) => {
          if (node.id === last) await later.promise;
          return complete(branch, {}, node.id === 'a' ? 'from a' : undefined);
        },
      );
      const drive = runParallelGraph(host);
      await until(() => host.ofType('node.completed').length === 2);
      later.open();
      await drive;
      return host;
    };
    const aLast = await run('a-last');
    expect(aLast.ofType('run.completed')[0]?.reply).toBe('from a');
    expect(aLast.doc.reply).toBe('from a');
    const bLast = await run('b-last');
    expect(bLast.ofType('run.completed')[0]).not.toHaveProperty('reply');
    expect(bLast.doc.reply).toBeUndefined();
  });
});

describe('runParallelGraph: failures', () => {
  it('a branch failing without a route: the others finish their node, nothing new starts, the run fails there', async () => {
    const slowB = gate();
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'after'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'a', to: 'after' },
          { from: 'b', to: 'after' },
        ],
      },
      async (node, branch) => {
        if (node.id === 'a') return { kind: 'failed', reason: 'NO_PROGRESS', message: 'a gave up' };
        if (node.id === 'b') await slowB.promise;
        return complete(branch, { v: node.id });
      },
    );
    const drive = runParallelGraph(host);
    await until(() => host.ofType('node.failed').length === 1);
    expect(host.doc.graph?.failed).toEqual({ nodeId: 'a', reason: 'NO_PROGRESS', message: 'a gave up' });
    slowB.open();
    expect(await drive).toBe('failed');
    expect(host.ran).toEqual(['start', 'a', 'b']);
    expect(host.ofType('node.completed').map((e) => e.nodeId)).toEqual(['start', 'b']);
    expect(host.ofType('run.failed')).toEqual([
      { type: 'run.failed', reason: 'NO_PROGRESS', failedNode: 'a', message: 'a gave up' },
    ]);
    expect(host.finalPatch()).toEqual({
      status: 'failed',
      suspension: null,
      reason: 'NO_PROGRESS',
      failedNode: 'a',
      message: 'a gave up',
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    expect(host.run.nodeOutputs).toEqual({ start: { v: 'start' }, b: { v: 'b' } });
  });

  it('the first failure is the one reported when two branches fail', async () => {
    const second = gate();
    const host = new ParallelFake(
      { nodes: nodes('start', 'a', 'b'), edges: [{ from: 'start', to: ['a', 'b'] }] },
      async (node, branch) => {
        if (node.id === 'start') return complete(branch);
        if (node.id === 'b') await second.promise;
        return { kind: 'failed', reason: `FAIL_${node.id.toUpperCase()}`, message: `${node.id} failed` };
      },
    );
    const drive = runParallelGraph(host);
    await until(() => host.ofType('node.failed').length === 1);
    second.open();
    expect(await drive).toBe('failed');
    expect(host.ofType('node.failed').map((e) => e.nodeId)).toEqual(['a', 'b']);
    expect(host.finalPatch()).toMatchObject({ reason: 'FAIL_A', failedNode: 'a', message: 'a failed' });
  });

  it("a failure routed by `status = 'failed'` goes on: its outputs are {} and not among the run's", async () => {
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'repair'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'a', to: 'repair', when: "status = 'failed' and $count($keys(outputs)) = 0" },
        ],
      },
      (node, branch) =>
        node.id === 'a'
          ? { kind: 'failed', reason: 'NO_PROGRESS', message: 'stuck' }
          : complete(branch, { from: node.id }),
    );
    expect(await runParallelGraph(host)).toBe('completed');
    expect(host.ran).toEqual(['start', 'a', 'b', 'repair']);
    expect(Object.keys(host.run.nodeOutputs).sort()).toEqual(['b', 'repair', 'start']);
    expect(host.ofType('node.started').find((e) => e.nodeId === 'repair')?.from).toEqual(['a']);
  });

  it('a join reached by a routed failure runs; its `from` names only the sources that completed (docs/trace.md)', async () => {
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'j'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'a', to: 'j', when: "status = 'failed'" },
          { from: 'b', to: 'j' },
        ],
      },
      (node, branch) =>
        node.id === 'a' ? { kind: 'failed', reason: 'NO_PROGRESS', message: 'x' } : complete(branch),
    );
    expect(await runParallelGraph(host)).toBe('completed');
    expect(host.started().at(-1)).toEqual(['j', 4, ['b']]);
    expect(host.ran.filter((id) => id === 'j')).toHaveLength(1);
  });

  it('a `when` that fails at run time fails the run EDGE_ERROR at the node just finished', async () => {
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'c'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'a', to: 'c', when: '$error("no route here")' },
        ],
      },
      (_node, branch) => complete(branch),
    );
    expect(await runParallelGraph(host)).toBe('failed');
    expect(host.ran).not.toContain('c');
    const [ended] = host.ofType('run.failed');
    expect(ended).toMatchObject({ reason: 'EDGE_ERROR', failedNode: 'a' });
    expect(ended?.message).toContain('no route here');
  });

  it('a retry clears the failure it adopts: a run set up again at its failed node completes', async () => {
    const host = new ParallelFake(
      { nodes: nodes('start', 'a', 'b'), edges: [{ from: 'start', to: ['a', 'b'] }] },
      (_node, branch) => complete(branch),
    );
    host.doc.graph = { joins: [], failed: { nodeId: 'start', reason: 'NO_PROGRESS', message: 'earlier' } };
    expect(await runParallelGraph(host)).toBe('completed');
    expect(host.doc.graph.failed).toBeUndefined();
    expect(host.ran).toEqual(['start', 'a', 'b']);
  });

  it('a branch that throws: the runner lets the others end, then throws that error', async () => {
    const slowB = gate();
    let settled = false;
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'c'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'b', to: 'c' },
        ],
      },
      async (node, branch) => {
        if (node.id === 'a') throw new Error('store went away');
        if (node.id === 'b') await slowB.promise;
        return complete(branch);
      },
    );
    const drive = runParallelGraph(host).finally(() => (settled = true));
    await until(() => host.ran.includes('b'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    slowB.open();
    await expect(drive).rejects.toThrow('store went away');
    // b's end was not taken: nothing after it started, no run end was recorded.
    expect(host.ran).toEqual(['start', 'a', 'b']);
    expect(host.finalPatch()).toBeUndefined();
  });

  it('a branch told to stop: nothing new starts, the others finish their node, no end is recorded', async () => {
    const slowB = gate();
    const host = new ParallelFake(
      {
        nodes: nodes('start', 'a', 'b', 'c'),
        edges: [
          { from: 'start', to: ['a', 'b'] },
          { from: 'b', to: 'c' },
        ],
      },
      async (node, branch) => {
        if (node.id === 'a') return { kind: 'stopped' };
        if (node.id === 'b') await slowB.promise;
        return complete(branch);
      },
    );
    const drive = runParallelGraph(host);
    await until(() => host.ran.includes('b'));
    slowB.open();
    expect(await drive).toBe('stopped');
    expect(host.ran).toEqual(['start', 'a', 'b']);
    expect(host.ofType('node.started').map((e) => e.nodeId)).toEqual(['start', 'a', 'b', 'c']);
    expect(host.finalPatch()).toBeUndefined();
    expect(host.ofType('run.completed')).toEqual([]);
    expect(host.ofType('run.failed')).toEqual([]);
  });
});
