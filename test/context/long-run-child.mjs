// A child process of long-run.test.ts: starts or resumes the 200-round run of issue 20 on a SQLite
// file, through the built package (dist/), recording every request the model receives as one JSON
// line {callIndex, tokens, request}. With `crashAt` it exits abruptly when that model call comes,
// before answering it, like a process killed mid-run. Prints the run summary as JSON on stdout.
import { appendFileSync } from 'node:fs';
import { createRuntime, defineTool, loadFlow, RunError, scriptedModel } from '../../dist/src/index.js';
import { estimateRequest } from '../../dist/src/loop/context-budget.js';

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

const turns = [];
for (let i = 1; i <= ROUNDS - 3; i += 1) turns.push({ calls: [{ tool: 'fetch_page', args: { page: i } }] });
turns.push({ calls: [{ tool: 'builtin_evidence_read', args: { id: 'ev_3', path: 'marker' } }] });
turns.push({
  calls: [
    {
      tool: 'builtin_output_set',
      args: { key: 'marker', value: 'marker-3', sourceType: 'evidence', sourceRef: 'ev_3' },
    },
  ],
});
turns.push({ calls: [{ tool: 'builtin_node_finish', args: { summary: 'read every page' } }] });
const inner = scriptedModel({ turns }, 'scripted:long-run');

/** The scripted model behind a meter: records each request and reports its estimate as input tokens. */
const model = {
  id: 'scripted:long-run',
  async call(request, context) {
    const sent = {
      system: request.system,
      messages: request.messages,
      tools: request.tools,
      maxOutputTokens: request.maxOutputTokens,
    };
    const tokens = estimateRequest(request);
    appendFileSync(
      config.out,
      JSON.stringify({ callIndex: context.callIndex, tokens, request: JSON.stringify(sent) }) + '\n',
    );
    if (context.callIndex === config.crashAt) process.exit(7);
    const answer = await inner.call(request, context);
    return answer.ok
      ? { ...answer, usage: { inputTokens: tokens, outputTokens: 20, totalTokens: tokens + 20 } }
      : answer;
  },
};

const flow = await loadFlow(
  {
    id: 'long-run',
    locale: 'en',
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
  onEvent: (event) => {
    if (event.type === 'run.started') process.stdout.write(JSON.stringify({ runId: event.runId }) + '\n');
  },
});
let summary;
if (config.mode === 'start') {
  summary = await runtime.start(flow, { input: { text: 'summarise the order log' }, model });
} else {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      summary = await runtime.resume(config.runId, { model });
      break;
    } catch (error) {
      // The crashed process's lease has not expired yet.
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
