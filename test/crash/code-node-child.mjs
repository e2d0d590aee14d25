// A child process of code-node.test.ts: starts or resumes a run of the flow plan (code) → look (model)
// → sum (code) on a SQLite file, through the built package (dist/). Every tool execution is appended
// to a file, so that the test counts them across processes. With `crash` the process kills itself
// with SIGKILL inside `sum`, after its tool call returned and before its outputs were committed.
import { appendFileSync } from 'node:fs';
import { createRuntime, defineTool, RunError, scriptedModel } from '../../dist/src/index.js';

const config = JSON.parse(process.argv[2]);
const executed = (tool, args) => appendFileSync(config.log, JSON.stringify({ tool, args }) + '\n');
const price = defineTool({
  name: 'price',
  description: 'The price of an item',
  inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
  execute: (args) => {
    executed('price', args);
    return { item: args.item, price: args.item.length * 10 };
  },
});

const flow = {
  id: 'code-crash',
  locale: 'en',
  input: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } },
  nodes: [
    {
      id: 'plan',
      tools: ['price'],
      outputs: { first: { required: true } },
      run: async (ctx) => {
        const first = await ctx.tools.call('price', { item: ctx.input.items[0] });
        return { first: first.data.price };
      },
    },
    { id: 'look', tools: ['price'], outputs: { second: { required: true, sources: ['evidence'] } } },
    {
      id: 'sum',
      tools: ['price'],
      outputs: { total: { required: true, schema: { type: 'number' } } },
      run: async (ctx) => {
        const third = await ctx.tools.call('price', { item: ctx.input.items[2] });
        if (config.crash) process.kill(process.pid, 'SIGKILL');
        return { total: ctx.nodes.plan.first + ctx.nodes.look.second + third.data.price };
      },
    },
  ],
  edges: [
    { from: 'plan', to: 'look' },
    { from: 'look', to: 'sum' },
  ],
};

const model = scriptedModel({
  turns: [
    { node: 'look', calls: [{ tool: 'price', args: { item: 'banana' } }] },
    {
      node: 'look',
      calls: [
        {
          tool: 'builtin_output_set',
          args: { key: 'second', value: 60, sourceType: 'evidence', sourceRef: 'ev_2' },
        },
        { tool: 'builtin_node_finish', args: { summary: 'priced' } },
      ],
    },
  ],
});

const runtime = createRuntime({
  store: `sqlite:${config.db}`,
  tools: [price],
  logger: false,
  leaseMs: 300,
  flows: [flow],
  onEvent: (event) => {
    if (event.type === 'run.started') process.stdout.write(JSON.stringify({ runId: event.runId }) + '\n');
  },
});
let summary;
if (config.mode === 'start') {
  summary = await runtime.start(flow, { input: { items: ['fig', 'banana', 'kiwi'] }, model });
} else {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      summary = await runtime.resume(config.runId, { model });
      break;
    } catch (error) {
      // The killed process's lease has not expired yet.
      if (!(error instanceof RunError && error.code === 'RUN_CONFLICT') || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
await runtime.close();
process.stdout.write(JSON.stringify({ summary }) + '\n');
