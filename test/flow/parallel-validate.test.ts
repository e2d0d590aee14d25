import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../src/domain/flow.js';
import { loadFlow } from '../../src/flow/load.js';
import { FlowError } from '../../src/flow/problems.js';

/** The problems loadFlow reports for a flow object, one line each. */
async function problems(flow: Partial<FlowInput> & Pick<FlowInput, 'nodes'>): Promise<string[]> {
  try {
    await loadFlow({ id: 'p', locale: 'en', ...flow }, { knownTools: ['slow'] });
    return [];
  } catch (error) {
    if (!(error instanceof FlowError)) throw error;
    return error.problems.map((p) => `${p.path}: ${p.message}`);
  }
}

describe('validation of parallel branches and maps', () => {
  it('accepts a fork and join, and a map whose body reads {{item}}', async () => {
    expect(
      await problems({
        nodes: [
          { id: 'plan' },
          { id: 'left' },
          { id: 'right' },
          { id: 'sum', instructions: '{{nodes.left.outputs}} {{nodes.each.outputs.items}}' },
          { id: 'each', map: { over: 'outputs.plan.lines', node: 'body' } },
          { id: 'body', instructions: 'do {{item}} and {{item.name}}' },
        ],
        edges: [
          { from: 'plan', to: ['left', 'right'] },
          { from: 'left', to: 'each' },
          { from: 'each', to: 'sum' },
          { from: 'right', to: 'sum' },
        ],
      }),
    ).toEqual([]);
  });

  it('reports an unknown node in a list, a node listed twice, and a list that is empty', async () => {
    const found = await problems({
      nodes: [{ id: 'plan' }, { id: 'left' }],
      edges: [{ from: 'plan', to: ['left', 'lefty', 'left'] }],
    });
    expect(found).toEqual([
      'edges[0].to[1]: unknown node "lefty" (did you mean "left"?); expected one of: plan, left',
      'edges[0].to[2]: node "left" is listed twice; expected each node once',
    ]);
    const empty = await problems({ nodes: [{ id: 'plan' }], edges: [{ from: 'plan', to: [] }] });
    expect(empty.join('\n')).toMatch(/edges\[0\]\.to/);
  });

  it('reports map bodies with edges, unknown or nested bodies, keys a map has not and {{item}} elsewhere', async () => {
    const found = await problems({
      nodes: [
        { id: 'plan', instructions: 'see {{item}}' },
        { id: 'each', instructions: 'no', map: { over: '{{nodes.plan.outputs}}', node: 'body' } },
        { id: 'body' },
        { id: 'other', map: { over: '$$$(', node: 'each' } },
        { id: 'ghost', map: { over: 'input.x', node: 'nobody' } },
      ],
      edges: [
        { from: 'plan', to: ['each', 'other', 'ghost'] },
        { from: 'body', to: 'plan', when: 'false' },
      ],
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'nodes[0].instructions: {{item}}: {{item}} is known only in the body of a map node; node "plan" is not one',
        'nodes[1].instructions: a map node runs its body only; expected no instructions (its output is items)',
        'edges[1]: node "body" is the body of map "each", which runs it; expected no edge to or from it',
        expect.stringMatching(/^nodes\[3\]\.map\.over: /),
        'nodes[3].map.node: node "each" is a map itself; expected a model or code node',
        expect.stringMatching(/^nodes\[4\]\.map\.node: unknown node "nobody"/),
      ]),
    );
  });

  it('reports a cycle with no way out, and accepts one with a when', async () => {
    const nodes = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    const endless = await problems({
      nodes,
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'b' },
      ],
    });
    expect(endless).toEqual([
      'edges[1]: the cycle b → c → b has no way out (each of its nodes takes its first edge, which has no when); expected a when on one of its edges',
    ]);
    const bounded = await problems({
      nodes,
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a', when: "status = 'failed'" },
        { from: 'c', to: 'b' },
      ],
    });
    expect(bounded).toEqual([]);
  });
});
