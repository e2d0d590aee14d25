import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import { defineTool } from '../../src/tools/tool.js';
import type { ScriptedTurn } from '../../src/model/scripted.js';
import { eventsOf, ofType, script } from '../runtime/helpers.js';

/**
 * Two items of a map node share the node id, and a model may give their writes the same call id (a
 * provider that numbers calls per response, or a script). Neither item's write is taken for one a dead
 * driver left in flight: a mark is this call's only when its node, call id, tool and arguments are
 * (src/tools/interrupted.ts).
 */
describe('map items whose writes share a call id', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  it('each item sends its own write once; neither is taken for an interrupted one', async () => {
    const saved: string[] = [];
    const save = defineTool<{ name: string }>({
      name: 'save',
      description: 'Saves a name (slowly)',
      write: true,
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      execute: async (args) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        saved.push(args.name);
        return { saved: args.name };
      },
    });
    const runtime = createRuntime({ store: 'memory', tools: [save], logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow(
      {
        id: 'map-writes',
        locale: 'en',
        input: { type: 'object', properties: { lines: { type: 'array', items: { type: 'number' } } } },
        tools: { save: { write: true, approval: { auto: 'true' } } },
        nodes: [
          {
            id: 'plan',
            outputs: { lines: { required: true } },
            run: (ctx) => ({ lines: (ctx.input as { lines: number[] }).lines }),
          },
          { id: 'each', map: { over: '{{nodes.plan.outputs.lines}}', node: 'price', concurrency: 2 } },
          {
            id: 'price',
            instructions: 'Save line {{item}}.',
            tools: ['save'],
            outputs: { value: { required: true, sources: ['model' as const] } },
          },
          { id: 'total', outputs: { n: { required: true } }, run: () => ({ n: 1 }) },
        ],
        edges: [
          { from: 'plan', to: 'each' },
          { from: 'each', to: 'total' },
        ],
      },
      {},
    );
    const turns = [10, 20].flatMap((x, item): ScriptedTurn[] => [
      { node: 'price', item, calls: [{ id: 'g', tool: 'save', args: { name: `line-${x}` } }] },
      {
        node: 'price',
        item,
        calls: [{ id: 'a', tool: 'builtin_node_approval', args: { tool: 'save', summary: `save ${x}` } }],
      },
      // The same call id in both items (the provider's, not the runtime's).
      { node: 'price', item, calls: [{ id: 'w', tool: 'save', args: { name: `line-${x}` } }] },
      {
        node: 'price',
        item,
        calls: [
          { tool: 'builtin_output_set', args: { key: 'value', value: x, sourceType: 'model' } },
          { tool: 'builtin_node_finish', args: { summary: `line ${x}` } },
        ],
      },
    ]);
    const done = await runtime.start(flow, { input: { lines: [10, 20] }, model: script(...turns) });
    const events = await eventsOf(runtime, done.runId);
    const invoked = ofType(events, 'tool.invoked')
      .map((e) => e as unknown as { tool: string; callId: string; outcome: string; errorCode?: string })
      .filter((e) => e.tool === 'save' && e.callId === 'w')
      .map((e) => `${e.outcome}${e.errorCode ? ` ${e.errorCode}` : ''}`);
    expect({ status: done.status, saved: saved.sort(), invoked }).toEqual({
      status: 'completed',
      saved: ['line-10', 'line-20'],
      invoked: ['SUCCESS', 'SUCCESS'],
    });
  });
});
