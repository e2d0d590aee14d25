import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EdgeCondition } from '../../src/domain/edge-condition.js';
import type { FlowEdge } from '../../src/domain/flow.js';
import { EDGES_BUDGET_MS, nextNodes, type EdgeScope } from '../../src/graph/edges.js';
import { ExpressionError } from '../../src/tools/expressions.js';

/**
 * The choice of edge after a node (docs/flows.md, "Edges"): the first edge leaving the node, in file
 * order, whose `when` is true; an edge without `when` only for a completed node; function `when`s of
 * flows written in code by edge index; the shared budget of one node's `when`s.
 */

const done = (outputs: Record<string, unknown> = {}, input: unknown = {}): EdgeScope => ({
  status: 'completed',
  outputs,
  input,
});
const failed: EdgeScope = { status: 'failed', outputs: {}, input: {} };

afterEach(() => {
  vi.restoreAllMocks();
});

describe('nextNodes over JSONata and plain edges', () => {
  it('skips edges of other nodes and answers null when none leaves the node', async () => {
    const edges: FlowEdge[] = [
      { from: 'x', to: 'y' },
      { from: 'a', to: 'b', when: 'false' },
    ];
    expect(await nextNodes(edges, 'a', done())).toBeNull();
    expect(await nextNodes(edges, 'b', done())).toBeNull();
    expect(await nextNodes([], 'a', done())).toBeNull();
    expect(await nextNodes(edges, 'x', done())).toEqual(['y']);
  });

  it('gives every target of a list edge, in its order', async () => {
    expect(await nextNodes([{ from: 'a', to: ['c', 'b', 'd'] }], 'a', done())).toEqual(['c', 'b', 'd']);
  });

  it('an edge without `when` holds for a completed node and never for a failed one', async () => {
    const edges: FlowEdge[] = [
      { from: 'a', to: 'next' },
      { from: 'a', to: 'fix', when: "status = 'failed'" },
    ];
    expect(await nextNodes(edges, 'a', done())).toEqual(['next']);
    expect(await nextNodes(edges, 'a', failed)).toEqual(['fix']);
    expect(await nextNodes([{ from: 'a', to: 'next' }], 'a', failed)).toBeNull();
  });

  it('takes an edge only for a `when` that is exactly true, not merely truthy', async () => {
    const edges = (when: string): FlowEdge[] => [
      { from: 'a', to: 'hit', when },
      { from: 'a', to: 'fallback' },
    ];
    const scope = done({ n: 1, s: 'yes', list: [true], obj: { k: 1 } });
    for (const truthy of ['outputs.n', 'outputs.s', 'outputs.list', 'outputs.obj', 'outputs.missing'])
      expect(await nextNodes(edges(truthy), 'a', scope)).toEqual(['fallback']);
    expect(await nextNodes(edges('outputs.n = 1'), 'a', scope)).toEqual(['hit']);
    expect(await nextNodes(edges('$exists(outputs.obj.k)'), 'a', scope)).toEqual(['hit']);
  });

  it('`when` sees status, outputs and input of the node just finished', async () => {
    const edges: FlowEdge[] = [
      { from: 'a', to: 'big', when: "status = 'completed' and outputs.total > input.limit" },
      { from: 'a', to: 'small' },
    ];
    expect(await nextNodes(edges, 'a', done({ total: 11 }, { limit: 10 }))).toEqual(['big']);
    expect(await nextNodes(edges, 'a', done({ total: 10 }, { limit: 10 }))).toEqual(['small']);
  });

  it('stops at the first match: later edges are not evaluated', async () => {
    const edges: FlowEdge[] = [
      { from: 'a', to: 'first', when: 'true' },
      { from: 'a', to: 'never', when: '$error("evaluated")' },
    ];
    expect(await nextNodes(edges, 'a', done())).toEqual(['first']);
  });

  it('a `when` that fails to evaluate throws ExpressionError', async () => {
    const edges: FlowEdge[] = [{ from: 'a', to: 'b', when: '$error("route broke")' }];
    const error = await nextNodes(edges, 'a', done()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as Error).message).toContain('route broke');
  });

  it(`refuses further \`when\`s once the node's have taken more than ${EDGES_BUDGET_MS} ms together`, async () => {
    // The runtime's evaluator reads the clock before and after each evaluation: each of its reads
    // moves the clock 600 ms (600 ms per evaluation); JSONata's own 250 ms timeout sees no time pass.
    let now = 0;
    const clock = vi
      .spyOn(Date, 'now')
      .mockImplementation(() =>
        /node_modules[\\/]jsonata/.test(new Error().stack ?? '') ? now : (now += 600),
      );
    const edges: FlowEdge[] = [
      { from: 'a', to: 'one', when: 'false' },
      { from: 'a', to: 'two', when: 'false' },
      { from: 'a', to: 'three', when: 'true' },
    ];
    const error = await nextNodes(edges, 'a', done()).catch((e: unknown) => e);
    clock.mockRestore();
    expect(error).toBeInstanceOf(ExpressionError);
    expect((error as Error).message).toContain(
      `the conditions of the edges leaving a took longer than ${EDGES_BUDGET_MS} ms together`,
    );
    // With a clock that does not move, the same edges reach the third.
    expect(await nextNodes(edges, 'a', done())).toEqual(['three']);
  });
});

describe('nextNodes with function `when`s (flows in code)', () => {
  it('reads the functions by the edge index in the flow, also from a node’s indexed edges', async () => {
    const edges: FlowEdge[] = [
      { from: 'z', to: 'other' },
      { from: 'a', to: 'b', when: 'inline' },
      { from: 'a', to: ['c', 'd'], when: 'inline' },
    ];
    const conditions = new Map<number, EdgeCondition>([
      [1, () => false],
      [2, () => true],
    ]);
    expect(await nextNodes(edges, 'a', done(), conditions)).toEqual(['c', 'd']);
    const indexed = { entries: [[1, edges[1]] as const, [2, edges[2]] as const] as const };
    expect(await nextNodes(indexed as never, 'a', done(), conditions)).toEqual(['c', 'd']);
    // The indexes are the flow's: shifted by one, the other function answers.
    const shifted = new Map<number, EdgeCondition>([[1, () => true]]);
    expect(await nextNodes(edges, 'a', done(), shifted)).toEqual(['b']);
  });

  it('a function given for a JSONata edge wins over its text', async () => {
    const edges: FlowEdge[] = [{ from: 'a', to: 'b', when: 'true' }];
    expect(await nextNodes(edges, 'a', done(), new Map([[0, () => false]]))).toBeNull();
  });

  it('a function may take a failed node on, and gets copies: what it changes is not seen after', async () => {
    const scope: EdgeScope = { status: 'failed', outputs: { list: [1] }, input: { deep: { n: 1 } } };
    const seen: unknown[] = [];
    const conditions = new Map<number, EdgeCondition>([
      [
        0,
        (s) => {
          seen.push(s);
          (s.outputs as { list: number[] }).list.push(2);
          (s.input as { deep: { n: number } }).deep.n = 99;
          return s.status === 'failed';
        },
      ],
    ]);
    expect(await nextNodes([{ from: 'a', to: 'fix', when: 'inline' }], 'a', scope, conditions)).toEqual([
      'fix',
    ]);
    expect(scope).toEqual({ status: 'failed', outputs: { list: [1] }, input: { deep: { n: 1 } } });
    expect(seen).toEqual([{ status: 'failed', outputs: { list: [1, 2] }, input: { deep: { n: 99 } } }]);
  });

  it('names the edge when its function throws, keeping the cause; a thrown non-error is shown as text', async () => {
    const edges: FlowEdge[] = [
      { from: 'q', to: 'r' },
      { from: 'a', to: ['b', 'c'], when: 'inline' },
    ];
    const cause = new Error('no route for this order');
    const error = await nextNodes(
      edges,
      'a',
      done(),
      new Map([
        [
          1,
          () => {
            throw cause;
          },
        ],
      ]),
    ).catch((e: unknown) => e);
    expect((error as Error).message).toBe('the when of edges[1] (a → b, c) threw: no route for this order');
    expect((error as Error).cause).toBe(cause);
    const odd = await nextNodes(
      edges,
      'a',
      done(),
      new Map([
        [
          1,
          () => {
            // eslint-disable-next-line @typescript-eslint/only-throw-error -- a function `when` may throw anything
            throw 'plain text';
          },
        ],
      ]),
    ).catch((e: unknown) => e);
    expect((odd as Error).message).toBe('the when of edges[1] (a → b, c) threw: plain text');
  });

  it('a `when: inline` without its function throws, even for a failed node; another node’s does not matter', async () => {
    const edges: FlowEdge[] = [
      { from: 'other', to: 'x', when: 'inline' },
      { from: 'a', to: 'b', when: 'inline' },
    ];
    await expect(nextNodes(edges, 'a', failed)).rejects.toThrow(
      /^the when of edges\[1\] \(a → b\) is a function of a flow written in code that this runtime was not given/,
    );
    expect(await nextNodes([{ from: 'other', to: 'x', when: 'inline' }], 'a', done())).toBeNull();
  });
});
