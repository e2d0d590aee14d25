// A child process of parallel.test.ts: starts or resumes a run of the flow plan (code) → [left, right]
// (model nodes calling a 400 ms tool at the same time) → sum (code, a join), through the built package
// (dist/), on the store `config.store` (a SQLite file or PostgreSQL). Every tool execution is appended to
// a file so that the test counts them across processes. With `crash` the process kills itself with
// SIGKILL inside `sum`, after both branches were committed and before sum's outputs were.
import { appendFileSync } from 'node:fs';
import { createRuntime, defineTool, RunError, scriptedModel } from '../../dist/src/index.js';

const config = JSON.parse(process.argv[2]);
const slow = defineTool({
  name: 'slow',
  description: 'Looks a number up slowly',
  inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
  execute: async (args) => {
    const start = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 400));
    appendFileSync(config.log, JSON.stringify({ x: args.x, start, end: Date.now() }) + '\n');
    return { x: args.x };
  },
});

const branch = (id) => ({ id, tools: ['slow'], outputs: { value: { required: true, sources: ['model'] } } });
const flow = {
  id: 'fork-join-crash',
  locale: 'en',
  input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
  nodes: [
    { id: 'plan', outputs: { a: { required: true }, b: { required: true } }, run: (ctx) => ctx.input },
    branch('left'),
    branch('right'),
    {
      id: 'sum',
      outputs: { total: { required: true, schema: { type: 'number' } } },
      run: (ctx) => {
        if (config.crash) process.kill(process.pid, 'SIGKILL');
        return { total: ctx.nodes.left.value + ctx.nodes.right.value };
      },
    },
  ],
  edges: [
    { from: 'plan', to: ['left', 'right'] },
    { from: 'left', to: 'sum' },
    { from: 'right', to: 'sum' },
  ],
};

const side = (node, x) => [
  { node, calls: [{ tool: 'slow', args: { x } }] },
  {
    node,
    calls: [
      { tool: 'builtin_output_set', args: { key: 'value', value: x, sourceType: 'model' } },
      { tool: 'builtin_node_finish', args: { summary: `${node} done` } },
    ],
  },
];
const model = scriptedModel({ turns: [...side('left', 2), ...side('right', 3)] });

const runtime = createRuntime({
  store: config.store,
  tools: [slow],
  logger: false,
  leaseMs: 300,
  flows: [flow],
  onEvent: (event) => {
    if (event.type === 'run.started') process.stdout.write(JSON.stringify({ runId: event.runId }) + '\n');
  },
});
let summary;
if (config.mode === 'start') {
  summary = await runtime.start(flow, { input: { a: 2, b: 3 }, model });
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
