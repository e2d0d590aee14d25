// A child process of long-run-provider.test.ts: starts or resumes the 200-round run of issue 20 on a
// SQLite file, through the built package (dist/), with its model a real provider path (the provider
// registry, the AI SDK provider, HTTP) pointed at a strict provider fake that the test process runs.
// The model's turns come from the fake; this process only has the tool. Prints the run id when the
// run starts, and the run summary with the `context.compacted` events as JSON on stdout at the end.
import {
  createProviderRegistry,
  createRuntime,
  defineTool,
  loadFlow,
  RunError,
} from '../../dist/src/index.js';

const config = JSON.parse(process.argv[2]);
const ROUNDS = 200;
const RESULT_CHARS = 20_000;

/** 20 KB of deterministic text per page, with a marker the output cites. */
function page(n) {
  const rows = [];
  let size = 0;
  for (let i = 0; size < RESULT_CHARS; i += 1) {
    const row = `page ${n} row ${i}: order ${(n * 7919 + i * 104729) % 1000003} shipped`;
    rows.push(row);
    size += row.length + 4;
  }
  return { page: n, marker: `marker-${n}`, rows };
}

const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Reads one page of the order log',
  write: false,
  inputSchema: { type: 'object', properties: { page: { type: 'number' } }, required: ['page'] },
  execute: ({ page: n }) => page(n),
});

const flow = await loadFlow(
  {
    id: 'long-run',
    locale: 'en',
    model: config.model,
    limits: { maxRounds: ROUNDS, contextTokens: 32_000, maxOutputTokens: 1024 },
    nodes: [
      {
        id: 'read',
        instructions: 'Read every page of the order log, then write the marker of page 3.',
        tools: ['fetch_page'],
        outputs: { marker: { required: true, sources: ['evidence'], from: ['fetch_page'] } },
      },
    ],
  },
  { knownTools: ['fetch_page'] },
);

const runtime = createRuntime({
  store: `sqlite:${config.db}`,
  tools: [fetchPage],
  logger: false,
  leaseMs: 300,
  providers: createProviderRegistry({ env: config.env }),
  onEvent: (event) => {
    if (event.type === 'run.started') process.stdout.write(JSON.stringify({ runId: event.runId }) + '\n');
  },
});
let summary;
if (config.mode === 'start') {
  summary = await runtime.start(flow, { input: { text: 'summarise the order log' } });
} else {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      summary = await runtime.resume(config.runId);
      break;
    } catch (error) {
      // The killed process's lease has not expired yet.
      if (!(error instanceof RunError && error.code === 'RUN_CONFLICT') || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
const compacted = [];
for await (const event of runtime.events(summary.runId, { follow: false })) {
  if (event.type === 'context.compacted') compacted.push(event);
}
await runtime.close();
process.stdout.write(JSON.stringify({ summary, compacted }) + '\n');
