import { afterEach, describe, expect, it } from 'vitest';
import { flowBuilder } from '../../src/flow/builder.js';
import { loadFlow, loadFlowText } from '../../src/flow/load.js';
import { FlowError } from '../../src/flow/problems.js';
import { nextNodes } from '../../src/graph/edges.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { makeRuntime, script, sqliteUrl, toolKit } from '../runtime/helpers.js';

const KNOWN = { knownTools: ['lookup', 'save'] };

/** A code node saves (a write: it suspends for approval), then a function `when` picks the next node. */
function routed(seen: unknown[] = []) {
  return flowBuilder({
    id: 'routed',
    locale: 'en',
    input: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
    tools: { save: { write: true } },
  })
    .node({
      id: 'file',
      tools: ['save'],
      outputs: { total: { required: true, schema: { type: 'number' } } },
      run: async (ctx) => {
        const total = (ctx.input as { total: number }).total;
        await ctx.tools.call('save', { name: `total-${total}` });
        return { total };
      },
    })
    .node({ id: 'big', run: () => ({ size: 'big' }), outputs: { size: {} } })
    .node({ id: 'small', run: () => ({ size: 'small' }), outputs: { size: {} } })
    .edge('file', 'big', {
      when: (scope) => {
        seen.push(scope);
        // The function is given copies: changing them changes nothing.
        if (scope.status === 'completed') (scope.outputs as { total: number }).total = -1;
        return scope.status === 'completed' && (scope.input as { total: number }).total > 10;
      },
    })
    .edge('file', 'small')
    .build();
}

describe('function when (flows in code)', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  const runtime = (options: Parameters<typeof makeRuntime>[1] = {}) => {
    const r = makeRuntime(toolKit(), options);
    runtimes.push(r);
    return r;
  };

  it('takes the edge whose function returns true, in edge order, with copies of the scope', async () => {
    const seen: unknown[] = [];
    const rt = runtime();
    const loaded = await loadFlow(routed(seen), KNOWN);
    // The flow is data: the function is kept beside it, by edge index.
    expect(loaded.flow.edges[0]).toEqual({ from: 'file', to: 'big', when: 'inline' });
    expect([...(loaded.conditions?.keys() ?? [])]).toEqual([0]);
    const big = await rt.start(loaded, { input: { total: 20 }, model: script() });
    const doneBig = await rt.approve(big.runId, {});
    expect(doneBig.status).toBe('completed');
    expect(doneBig.outputs).toEqual({ file: { total: 20 }, big: { size: 'big' } });
    expect(seen).toEqual([{ status: 'completed', outputs: { total: -1 }, input: { total: 20 } }]);
    const small = await rt.start(loaded, { input: { total: 3 }, model: script() });
    const doneSmall = await rt.approve(small.runId, {});
    expect(doneSmall.outputs).toEqual({ file: { total: 3 }, small: { size: 'small' } });
  });

  it('is continued by a fresh runtime on the same SQLite file that was given the flow', async () => {
    const store = sqliteUrl();
    const first = runtime({ store });
    const started = await first.start(await loadFlow(routed(), KNOWN), {
      input: { total: 50 },
      model: script(),
    });
    expect(started.status).toBe('suspended');
    await first.close();
    runtimes.splice(runtimes.indexOf(first), 1);
    const knowing = runtime({ store, flows: [routed()] });
    const done = await knowing.approve(started.runId, { model: script() });
    expect(done.status).toBe('completed');
    expect(done.outputs).toEqual({ file: { total: 50 }, big: { size: 'big' } });
  });

  it('starts parallel branches along a fan-out edge whose function holds, and joins them', async () => {
    const rt = runtime();
    const flow = flowBuilder({ id: 'fan', locale: 'en' })
      .node({
        id: 'plan',
        run: () => ({ n: 2 }),
        outputs: { n: { required: true, schema: { type: 'number' } } },
      })
      .node({ id: 'left', run: (ctx) => ({ v: Number(ctx.nodes.plan?.n) * 10 }), outputs: { v: {} } })
      .node({ id: 'right', run: (ctx) => ({ v: Number(ctx.nodes.plan?.n) * 100 }), outputs: { v: {} } })
      .node({
        id: 'sum',
        run: (ctx) => ({ total: Number(ctx.nodes.left?.v) + Number(ctx.nodes.right?.v) }),
        outputs: { total: {} },
      })
      .edge('plan', ['left', 'right'], { when: ({ outputs }) => outputs.n === 2 })
      .edge('left', 'sum')
      .edge('right', 'sum')
      .build();
    const run = await rt.start(await loadFlow(flow), { input: { text: 'x' }, model: script() });
    expect(run.status).toBe('completed');
    expect(run.outputs.sum).toEqual({ total: 220 });
  });

  it('fails the run EDGE_ERROR when the function throws', async () => {
    const rt = runtime();
    const flow = flowBuilder({ id: 'throws', locale: 'en' })
      .node({ id: 'a', run: () => ({}) })
      .node({ id: 'b', run: () => ({}) })
      .edge('a', 'b', {
        when: () => {
          throw new Error('no route for this order');
        },
      })
      .build();
    const run = await rt.start(await loadFlow(flow), { input: { text: 'x' }, model: script() });
    expect(run.status).toBe('failed');
    expect(run.reason).toBe('EDGE_ERROR');
    expect(run.message).toContain('edges[0] (a → b) threw: no route for this order');
  });

  it('names a when: inline whose function this runtime was not given, and takes a true one only', async () => {
    const edges = [
      { from: 'a', to: 'b', when: 'inline' },
      { from: 'a', to: ['c', 'd'], when: 'inline' },
    ];
    const scope = { status: 'completed' as const, outputs: {}, input: {} };
    await expect(nextNodes(edges, 'a', scope)).rejects.toThrow(
      'edges[0] (a → b) is a function of a flow written in code that this runtime was not given; give the flow to createRuntime({ flows })',
    );
    // A value that is not `true` does not take the edge; a fan-out gives every target.
    const truthy = new Map([
      [0, () => 1 as unknown as boolean],
      [1, () => true],
    ]);
    expect(await nextNodes(edges, 'a', scope, truthy)).toEqual(['c', 'd']);
  });

  it('refuses when: inline in a YAML or JSON flow (it stands for a function)', async () => {
    const text = [
      'id: plain',
      'nodes:',
      '  - { id: a, instructions: go }',
      '  - { id: b, instructions: go }',
      'edges:',
      '  - { from: a, to: b, when: inline }',
    ].join('\n');
    const error = await loadFlowText(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowError);
    expect((error as FlowError).message).toContain(
      'edges[0].when: when: inline stands for a function in flows written in code',
    );
  });
});
