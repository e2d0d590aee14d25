import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineFlow, flowBuilder, type FlowOutputs } from '../../src/index.js';

/** Type-level checks of flows in code (run by `tsc --noEmit -p .`): each `@ts-expect-error` must be an error. */
const base = flowBuilder({ id: 'typed-sum', locale: 'en' })
  .node({
    id: 'plan',
    run: (ctx) => ({ a: Number((ctx.input as { a?: number }).a ?? 1), b: 2 }),
    outputs: { a: { required: true, schema: z.number() }, b: { schema: z.number() } },
  })
  .node({ id: 'left', instructions: 'left', outputs: { value: { sources: ['model'], schema: z.string() } } })
  .node({ id: 'right', instructions: 'right' })
  .node({ id: 'sum', run: () => ({ total: 3 }), outputs: { total: { required: true, schema: z.number() } } });

describe('flowBuilder types', () => {
  it('checks from, to and the outputs a function when reads', () => {
    const flow = base
      .edge('plan', ['left', 'right'], {
        when: ({ status, outputs }) => status === 'completed' && outputs.a > 0,
      })
      .edge('left', 'sum', { when: ({ outputs }) => outputs.value !== 'skip' })
      .edge('right', 'sum')
      .edge('plan', 'sum', { when: "status = 'failed'" })
      .build();
    expectTypeOf<FlowOutputs<typeof flow>>().toEqualTypeOf<{
      plan?: { a: number; b?: number };
      left?: { value?: string };
      right?: Record<string, never>;
      sum?: { total: number };
    }>();
    // The object is plain flow data in the order given, the function kept as the edge's when.
    expect(flow.nodes.map((n) => n.id)).toEqual(['plan', 'left', 'right', 'sum']);
    expect(flow.edges.map((e) => [e.from, e.to, typeof e.when])).toEqual([
      ['plan', ['left', 'right'], 'function'],
      ['left', 'sum', 'function'],
      ['right', 'sum', 'undefined'],
      ['plan', 'sum', 'string'],
    ]);
    // @ts-expect-error: no node "lft"
    base.edge('lft', 'sum');
    // @ts-expect-error: no node "smu"
    base.edge('plan', 'smu');
    // @ts-expect-error: no node "rigth" in a fan-out
    base.edge('plan', ['left', 'rigth']);
    // @ts-expect-error: a fan-out is a non-empty list
    base.edge('plan', []);
    // @ts-expect-error: plan has no output "total"
    base.edge('plan', 'sum', { when: ({ outputs }) => outputs.total === 1 });
    // @ts-expect-error: a when returns a boolean
    base.edge('plan', 'sum', { when: ({ outputs }) => outputs.a });
    // @ts-expect-error: a failed node has no outputs
    base.edge('plan', 'sum', { when: ({ status, outputs }) => status === 'failed' && outputs.a > 0 });
    // @ts-expect-error: "plan" is taken
    base.node({ id: 'plan', instructions: 'again' });
  });

  it('lets defineFlow flows use function whens', () => {
    const flow = defineFlow({
      id: 'typed-when',
      nodes: [
        { id: 'a', instructions: 'a' },
        { id: 'b', instructions: 'b' },
      ],
      edges: [{ from: 'a', to: ['b'], when: ({ status }) => status === 'completed' }],
    });
    expectTypeOf(flow.edges[0].when).toExtend<string | ((scope: never) => boolean) | undefined>();
  });
});

describe('map nodes in flows in code', () => {
  it("type a map node's outputs as items of its body's outputs", () => {
    const nodes = flowBuilder({ id: 'typed-map' })
      .node({ id: 'plan', run: () => ({ lines: [1, 2] }), outputs: { lines: { required: true } } })
      .node({ id: 'each', map: { over: '{{nodes.plan.outputs.lines}}', node: 'price' } })
      .node({
        id: 'price',
        run: (ctx) => ({ v: ctx.item }),
        outputs: { v: { required: true, schema: z.number() } },
      })
      .node({ id: 'report', run: () => ({}) });
    const flow = nodes
      .edge('plan', 'each')
      .edge('each', 'report', { when: ({ outputs }) => (outputs.items?.length ?? 0) > 0 })
      .build();
    expectTypeOf<NonNullable<FlowOutputs<typeof flow>['each']>>().toEqualTypeOf<{ items: { v: number }[] }>();
    // @ts-expect-error: a map node's output is items
    nodes.edge('each', 'report', { when: ({ outputs }) => outputs.item === 1 });
    expect(flow.nodes[1]).toEqual({
      id: 'each',
      map: { over: '{{nodes.plan.outputs.lines}}', node: 'price' },
    });
  });
});

describe('defineFlow edges', () => {
  it('must name the flow nodes', () => {
    defineFlow({
      id: 'checked',
      nodes: [
        { id: 'a', instructions: 'a' },
        { id: 'b', run: (ctx) => ({ x: ctx.nodeId }) },
      ],
      // @ts-expect-error: no node "c"
      edges: [{ from: 'a', to: 'c' }],
    });
    defineFlow({
      id: 'checked',
      nodes: [
        { id: 'a', instructions: 'a' },
        { id: 'b', instructions: 'b' },
      ],
      // @ts-expect-error: no node "x" among the targets
      edges: [{ from: 'a', to: ['b', 'x'] }],
    });
    const ok = defineFlow({
      id: 'checked',
      nodes: [
        { id: 'a', instructions: 'a' },
        { id: 'b', run: (ctx) => ({ x: ctx.nodeId }) },
      ],
      edges: [
        { from: 'a', to: ['b'], when: ({ status }) => status === 'completed' },
        { from: 'b', to: 'a' },
      ],
    });
    expect(ok.edges).toHaveLength(2);
  });
});
