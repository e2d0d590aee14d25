/**
 * `npm run bench:tokens`: what a small task costs in tokens. A node looks up ten orders, one tool call
 * per round, then ends; the same task runs through the AI SDK's `generateText` loop with the same
 * tool. Both talk to OpenAI Chat Completions through the same provider package (`@ai-sdk/openai`),
 * whose `fetch` is replaced by a stand-in that records each request body and answers with the next
 * scripted turn — so both sides are serialised by the same code, and every byte sent is counted. Each
 * request body is counted in o200k tokens (the GPT-4o family's encoding) and in bytes; the fixed part
 * of a request (system prompt and tool definitions) is shown apart, since it is sent every round.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, jsonSchema, tool } from 'ai';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { createProviderRegistry, createRuntime, defineTool } from '../src/index.js';

const CALLS = 10;
const INSTRUCTIONS = 'Look up each order the user names and report its status.';
const INPUT = `Look up orders ${Array.from({ length: CALLS }, (_, i) => 101 + i).join(', ')} and tell me their status.`;
const TOOL = {
  name: 'lookup_order',
  description: 'Looks up one order by its id: status, item and quantity',
  inputSchema: {
    type: 'object' as const,
    properties: { id: { type: 'number' as const, description: 'The order id' } },
    required: ['id'],
  },
};
const order = (id: number) => ({
  id,
  status: id % 3 === 0 ? 'shipped' : 'open',
  item: `item-${id % 7}`,
  qty: 1 + (id % 4),
});

/** One scripted answer: tool calls, or a closing text. */
type Turn = { calls: { name: string; args: unknown }[] } | { text: string };

/** A `fetch` that records each Chat Completions request body and answers with turn i. */
function recordingFetch(turns: (index: number) => Turn): { fetch: typeof fetch; bodies: string[] } {
  const bodies: string[] = [];
  const answer = (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof init?.body !== 'string') return Promise.reject(new Error('expected a JSON request body'));
    const index = bodies.push(init.body) - 1;
    const turn = turns(index);
    const message =
      'text' in turn
        ? { role: 'assistant', content: turn.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: turn.calls.map((c, i) => ({
              id: `call_${index + 1}_${i + 1}`,
              type: 'function',
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          };
    const body = {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      created: 0,
      model: 'gpt-bench',
      choices: [{ index: 0, message, finish_reason: 'text' in turn ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    };
    return Promise.resolve(
      new Response(JSON.stringify(body), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      }),
    );
  };
  return { fetch: answer, bodies };
}

const lookupCall = (index: number) => ({ calls: [{ name: TOOL.name, args: { id: 101 + index } }] });

/** The runtime: one node with the tool, ended by builtin_node_finish after the ten calls. */
async function runtimeRequests(): Promise<string[]> {
  const { fetch, bodies } = recordingFetch((i) =>
    i < CALLS
      ? lookupCall(i)
      : { calls: [{ name: 'builtin_node_finish', args: { summary: 'Reported all ten.' } }] },
  );
  const env = { OPENAI_API_KEY: 'sk-bench', AGENT_RUNTIME_MODEL_MAX_RETRIES: '0' };
  const lookup = defineTool<{ id: number }>({ ...TOOL, write: false, execute: ({ id }) => order(id) });
  const runtime = createRuntime({
    store: 'memory',
    tools: [lookup],
    logger: false,
    env,
    providers: createProviderRegistry({ env, fetch }),
  });
  try {
    const flow = {
      id: 'orders',
      locale: 'en' as const,
      model: 'openai:gpt-bench',
      nodes: [{ id: 'lookup', instructions: INSTRUCTIONS, tools: [TOOL.name] }],
    };
    const run = await runtime.start(flow, { input: { text: INPUT } });
    if (run.status !== 'completed')
      throw new Error(`the runtime's run ended ${run.status}: ${run.message ?? ''}`);
  } finally {
    await runtime.close();
  }
  return bodies;
}

/** The AI SDK: `generateText` with the same tool, the instructions as its system prompt, ended by a text answer. */
async function aiSdkRequests(): Promise<string[]> {
  const { fetch, bodies } = recordingFetch((i) =>
    i < CALLS ? lookupCall(i) : { text: 'All ten reported.' },
  );
  const model = createOpenAI({ apiKey: 'sk-bench', fetch }).chat('gpt-bench');
  await generateText({
    model,
    system: INSTRUCTIONS,
    prompt: INPUT,
    tools: {
      [TOOL.name]: tool({
        description: TOOL.description,
        inputSchema: jsonSchema<{ id: number }>(TOOL.inputSchema),
        execute: ({ id }) => Promise.resolve(order(id)),
      }),
    },
    stopWhen: isStepCount(CALLS + 2),
  });
  return bodies;
}

/** The fixed part of a request: everything but the conversation (system message and tools). */
function fixedPart(body: string): string {
  const parsed = JSON.parse(body) as { messages: { role: string }[]; tools?: unknown };
  return JSON.stringify({
    system: parsed.messages.filter((m) => m.role === 'system'),
    tools: parsed.tools ?? [],
  });
}

interface Count {
  requests: number;
  tokens: number;
  bytes: number;
  fixedTokens: number;
  fixedBytes: number;
}

function count(bodies: string[]): Count {
  const first = bodies[0];
  if (first === undefined) throw new Error('no request was sent');
  const fixed = fixedPart(first);
  return {
    requests: bodies.length,
    tokens: bodies.reduce((sum, b) => sum + countTokens(b), 0),
    bytes: bodies.reduce((sum, b) => sum + Buffer.byteLength(b), 0),
    fixedTokens: countTokens(fixed),
    fixedBytes: Buffer.byteLength(fixed),
  };
}

async function main(): Promise<void> {
  const ours = count(await runtimeRequests());
  const sdk = count(await aiSdkRequests());
  const row = (name: string, c: Count) =>
    `| ${name} | ${c.requests} | ${c.tokens} | ${c.bytes} | ${c.fixedTokens} | ${c.fixedBytes} |`;
  process.stdout.write(
    [
      `Tokens (o200k) of every request body for a ${CALLS}-call lookup task (OpenAI Chat Completions):`,
      '',
      '| loop | requests | tokens | bytes | fixed part per request (tokens) | (bytes) |',
      '|---|---|---|---|---|---|',
      row('agent runtime', ours),
      row('AI SDK generateText', sdk),
      '',
      `agent runtime / AI SDK: ${(ours.tokens / sdk.tokens).toFixed(2)}× tokens (target ≤ 1.5×)`,
      '',
    ].join('\n'),
  );
  if (process.env.BENCH_SHOW_REQUESTS) process.stdout.write(`${(await runtimeRequests()).at(-1)}\n`);
}

await main();
