import { describe, expect, it } from 'vitest';
import { FlowSchema, type Flow, type FlowInput } from '../../src/domain/flow.js';
import { graphIndex } from '../../src/graph/graph-index.js';

/** The index the parallel runner asks about a flow's shape: nodes, maps, sources, edges, reachability. */

const flow = (edges: FlowInput['edges'], extra: FlowInput['nodes'] = []): Flow =>
  FlowSchema.parse({
    id: 'shape',
    nodes: [...['a', 'b', 'c', 'd', 'e', 'lonely'].map((id) => ({ id, instructions: id })), ...extra],
    edges,
  });

const diamond = () =>
  flow([
    { from: 'a', to: ['b', 'c'] },
    { from: 'b', to: 'd' },
    { from: 'c', to: 'd', when: "status = 'completed'" },
    { from: 'c', to: 'e' },
    { from: 'd', to: 'a', when: 'false' },
  ]);

describe('graphIndex', () => {
  it('finds nodes by id and tells map nodes apart', () => {
    const index = graphIndex(
      flow([{ from: 'a', to: 'fan' }], [{ id: 'fan', map: { over: 'input.items', node: 'b' } }]),
    );
    expect(index.node('b')?.instructions).toBe('b');
    expect(index.node('missing')).toBeUndefined();
    expect(index.isMap('fan')).toBe(true);
    expect(index.isMap('b')).toBe(false);
    expect(index.isMap('missing')).toBe(false);
  });

  it('gives each node its sources, counting a node with several edges to it once', () => {
    const index = graphIndex(diamond());
    expect([...index.sources('d')].sort()).toEqual(['b', 'c']);
    expect([...index.sources('b')]).toEqual(['a']);
    expect([...index.sources('a')]).toEqual(['d']);
    expect(index.sources('lonely').size).toBe(0);
  });

  it('lists the edges leaving a node with their indexes in the flow, in file order', () => {
    const index = graphIndex(diamond());
    const from = (id: string) => index.edgesFrom(id).entries.map(([i, e]) => [i, e.to, e.when ?? null]);
    expect(from('c')).toEqual([
      [2, 'd', "status = 'completed'"],
      [3, 'e', null],
    ]);
    expect(from('a')).toEqual([[0, ['b', 'c'], null]]);
    expect(from('e')).toEqual([]);
  });

  it('answers reachability along edges whatever their conditions, through cycles, and never for an island', () => {
    const index = graphIndex(diamond());
    expect(index.canReach('a', 'e')).toBe(true);
    expect(index.canReach('b', 'c')).toBe(true); // b → d → a → c, through the cycle
    expect(index.canReach('e', 'a')).toBe(false); // e has no way out
    expect(index.canReach('a', 'lonely')).toBe(false);
    expect(index.canReach('lonely', 'a')).toBe(false);
    expect(index.canReach('a', 'a')).toBe(true); // a → b → d → a
    expect(index.canReach('e', 'e')).toBe(false); // a node is not reached from itself without an edge
    // Asked again, the answer is the same (memoised by pair, not by the first node asked).
    expect(index.canReach('b', 'c')).toBe(true);
    expect(index.canReach('c', 'b')).toBe(true);
  });

  it('is built once per flow object: the same flow answers from the same index, another flow from its own', () => {
    const one = diamond();
    expect(graphIndex(one)).toBe(graphIndex(one));
    const other = flow([{ from: 'e', to: 'a' }]);
    expect(graphIndex(other)).not.toBe(graphIndex(one));
    expect(graphIndex(other).canReach('e', 'a')).toBe(true);
    expect(graphIndex(one).canReach('e', 'a')).toBe(false);
  });
});
