import { describe, expect, it } from 'vitest';
import { MAX_RUN_BRANCHES } from '../../src/domain/flow.js';
import { canReach, outputValues, runParallelGraph, startBranch } from '../../src/graph/parallel.js';
import type { NodeExit } from '../../src/loop/node-loop.js';
import { newLoopState } from '../../src/records/loop-state.js';
import { newNodeState } from '../../src/records/run-state.js';
import type { Branch } from '../../src/records/state-doc.js';
import { complete, gate, nodes, ParallelFake, until } from './parallel-host-fixture.js';

/**
 * The parallel runner with people (docs/flows.md, "Parallel branches and joins": several branches
 * may wait at once, the others go on), starting a branch (its number, trace line and the
 * MAX_RUN_BRANCHES bound), and the small exports of src/graph/parallel.ts.
 */

const question = (text: string) => ({ question: text, options: null, id: `q_${text}` });

/** A node run that waits on a person, as the node loop leaves it. */
function waitOn(branch: Branch, text: string): NodeExit {
  branch.loop.suspended = {
    round: 1,
    callId: `c_${text}`,
    tool: 'builtin_node_follow_up',
    args: {},
    kind: 'FOLLOW_UP',
  };
  branch.suspension = { kind: 'FOLLOW_UP', pending: question(text) };
  return { kind: 'suspended' };
}
describe('runParallelGraph: people', () => {
  it('suspends once no branch can go on, listing every waiting item with the first to suspend first', async () => {
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
        if (node.id === 'a') return waitOn(branch, 'which file?');
        if (node.id === 'b') await slowB.promise;
        if (node.id === 'c') return waitOn(branch, 'which name?');
        return complete(branch);
      },
    );
    const drive = runParallelGraph(host);
    await until(() => host.ran.includes('b'));
    slowB.open();
    expect(await drive).toBe('suspended');
    // The others went on while a waited: b ended and c ran.
    expect(host.ran).toEqual(['start', 'a', 'b', 'c']);
    expect(host.finalPatch()).toEqual({
      status: 'suspended',
      suspension: {
        kind: 'FOLLOW_UP',
        pending: question('which file?'),
        items: [
          { kind: 'FOLLOW_UP', nodeId: 'a', pending: question('which file?') },
          { kind: 'FOLLOW_UP', nodeId: 'c', pending: question('which name?') },
        ],
      },
      leaseOwner: null,
      leaseExpiresAt: null,
    });
    // The runner announces no suspension of its own for the branches that suspended in this drive.
    expect(host.ofType('run.suspended')).toEqual([]);
    expect(host.doc.branches?.map((b) => b.nodeId)).toEqual(['a', 'c']);
  });

  it('a single waiting branch is the suspension itself, without items', async () => {
    const host = new ParallelFake(
      { nodes: nodes('start', 'a', 'b'), edges: [{ from: 'start', to: ['a', 'b'] }] },
      (node, branch) => (node.id === 'b' ? waitOn(branch, 'ok?') : complete(branch)),
    );
    expect(await runParallelGraph(host)).toBe('suspended');
    expect(host.finalPatch()?.suspension).toEqual({ kind: 'FOLLOW_UP', pending: question('ok?') });
  });

  it('the next drive runs the answered branch; one still waiting from before is announced again', async () => {
    const answered = new Set<string>();
    const host = new ParallelFake(
      { nodes: nodes('start', 'a', 'b'), edges: [{ from: 'start', to: ['a', 'b'] }] },
      (node, branch) =>
        answered.has(node.id)
          ? complete(branch, { done: node.id })
          : node.id === 'start'
            ? complete(branch)
            : waitOn(branch, node.id),
    );
    expect(await runParallelGraph(host)).toBe('suspended');
    const [a, b] = host.doc.branches ?? [];
    expect([a?.nodeId, b?.nodeId]).toEqual(['a', 'b']);

    // The person answers a: its loop is no longer suspended; b still waits.
    answered.add('a');
    (a as Branch).loop.suspended = null;
    host.patches.length = 0;
    expect(await runParallelGraph(host)).toBe('suspended');
    expect(a).not.toHaveProperty('suspension');
    expect(host.ran).toEqual(['start', 'a', 'b', 'a']);
    expect(host.ofType('run.suspended')).toEqual([
      { type: 'run.suspended', nodeId: 'b', kind: 'FOLLOW_UP', pending: question('b') },
    ]);
    expect(host.finalPatch()?.suspension).toEqual({ kind: 'FOLLOW_UP', pending: question('b') });

    answered.add('b');
    (b as Branch).loop.suspended = null;
    host.patches.length = 0;
    expect(await runParallelGraph(host)).toBe('completed');
    expect(host.run.nodeOutputs).toEqual({ start: {}, a: { done: 'a' }, b: { done: 'b' } });
  });
});

describe('startBranch', () => {
  const host = () =>
    new ParallelFake(
      {
        limits: { maxRounds: 12, maxStalls: 5 },
        nodes: [{ id: 'start' }, { id: 'body', limits: { maxStalls: 2 } }],
        edges: [{ from: 'start', to: 'body' }],
      },
      () => ({ kind: 'completed' }),
    );

  it('starts a fresh node run with the next run-wide number and traces node.started with its item', () => {
    const h = host();
    const item = { of: 7, index: 3, value: { sku: 'x' } };
    const branch = startBranch(h, 'body', item, ['start']);
    expect(branch).toEqual({
      nodeId: 'body',
      nodeRuns: 2,
      node: newNodeState('body'),
      loop: newLoopState(),
      item,
    });
    expect(h.doc.nodeRuns).toBe(2);
    expect(h.doc.branches).toEqual([branch]);
    expect(h.events.at(-1)).toEqual({
      type: 'node.started',
      nodeId: 'body',
      maxRounds: 12,
      maxStalls: 2,
      nodeRun: 2,
      from: ['start'],
      item: { of: 7, index: 3 },
    });
    // No `from` for an empty list, no item key for a plain branch.
    startBranch(h, 'body', undefined, []);
    expect(h.events.at(-1)).toEqual({
      type: 'node.started',
      nodeId: 'body',
      maxRounds: 12,
      maxStalls: 2,
      nodeRun: 3,
    });
  });

  it(`refuses a branch beyond ${MAX_RUN_BRANCHES}: null, and the run is marked to fail TOO_MANY_BRANCHES (the first such node named)`, () => {
    const h = host();
    const filler = (i: number): Branch => ({ nodeId: 'body', nodeRuns: i, node: null, loop: newLoopState() });
    h.doc.branches = Array.from({ length: MAX_RUN_BRANCHES - 1 }, (_, i) => filler(i));
    expect(startBranch(h, 'body')).not.toBeNull();
    const before = h.events.length;
    expect(startBranch(h, 'start')).toBeNull();
    expect(startBranch(h, 'body')).toBeNull();
    expect(h.doc.branches).toHaveLength(MAX_RUN_BRANCHES);
    expect(h.events).toHaveLength(before);
    expect(h.doc.graph?.failed).toEqual({
      nodeId: 'start',
      reason: 'TOO_MANY_BRANCHES',
      message: `starting start would make more than ${MAX_RUN_BRANCHES} branches at once; a run holds at most ${MAX_RUN_BRANCHES} (MAX_RUN_BRANCHES)`,
    });
  });
});

describe('outputValues and canReach', () => {
  it('gives the plain values of a branch, {} for one without a node state', () => {
    const branch: Branch = { nodeId: 'n', nodeRuns: 1, node: newNodeState('n'), loop: newLoopState() };
    complete(branch, { a: 1, b: { deep: [true] }, c: null });
    expect(outputValues(branch)).toEqual({ a: 1, b: { deep: [true] }, c: null });
    expect(outputValues({ ...branch, node: null })).toEqual({});
  });

  it('follows list edges and ignores conditions', () => {
    const flow = {
      nodes: nodes('a', 'b', 'c', 'd') as never,
      edges: [
        { from: 'a', to: ['b', 'c'] },
        { from: 'c', to: 'd', when: 'false' },
      ],
    };
    expect(canReach(flow, 'a', 'd')).toBe(true);
    expect(canReach(flow, 'b', 'd')).toBe(false);
    expect(canReach(flow, 'd', 'a')).toBe(false);
  });
});
