import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../../src/flow/load.js';
import {
  createProviderRegistry,
  type Env,
  type ProviderRegistryOptions,
} from '../../../src/model/providers.js';
import { createRuntime, type Runtime } from '../../../src/runtime/create.js';
import type { StoredEvent } from '../../../src/store/store.js';
import { defineTool } from '../../../src/tools/tool.js';
import { startFakeProvider, type FakeProvider, type Reply } from './fake-provider.js';
import { reply, type Turn, type WireFormat } from '../../../src/testing/fake-model/wire.js';
import { RunError } from '../../../src/domain/run-error.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The local tools of the test flow; `orders` counts real executions of the write. */
function shopTools() {
  const orders: unknown[] = [];
  const lookup = defineTool<{ id: number }>({
    name: 'item_lookup',
    description: 'Find an item by id',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    execute: ({ id }) => ({ id, name: `item-${id}`, price: 5 }),
  });
  const create = defineTool<{ itemId: number; quantity?: number }>({
    name: 'order_create',
    description: 'Create an order',
    write: true,
    inputSchema: {
      type: 'object',
      properties: { itemId: { type: 'number' }, quantity: { type: 'integer' } },
      required: ['itemId'],
    },
    execute: (args) => {
      orders.push(args);
      return { orderId: `o-${orders.length}` };
    },
  });
  return { tools: [lookup, create], orders };
}

function flowObject(model: string, providers?: Record<string, unknown>) {
  return {
    id: 'orders',
    locale: 'en',
    model,
    ...(providers ? { providers } : {}),
    nodes: [
      {
        id: 'order',
        instructions: 'Create the order the user asks for.',
        tools: ['item_lookup', 'order_create'],
        outputs: { orderId: { required: true, sources: ['evidence'], from: ['order_create'] } },
      },
    ],
  };
}

interface Setup {
  runtime: Runtime;
  server: FakeProvider;
  orders: unknown[];
  flow: Awaited<ReturnType<typeof loadFlow>>;
}

/** A fake provider answering `replies`, a runtime whose registry reaches it, and the loaded flow. */
async function setup(
  format: WireFormat | 'qwen',
  replies: Reply[],
  extra: { env?: Env; registry?: ProviderRegistryOptions } = {},
): Promise<Setup> {
  const server = await startFakeProvider(replies);
  cleanups.push(() => server.close());
  const stream = format.endsWith('-sse') ? { AGENT_RUNTIME_MODEL_STREAM: '1' } : {};
  const { model, env, providers } =
    format === 'qwen'
      ? {
          model: 'qwen:qwen-max',
          env: { DASHSCOPE_API_KEY: 'sk-qwen' },
          providers: {
            qwen: { type: 'openai-compatible', baseURL: server.url(), apiKeyEnv: 'DASHSCOPE_API_KEY' },
          },
        }
      : format.startsWith('openai')
        ? {
            model: 'openai:test-model',
            env: { OPENAI_API_KEY: 'sk-openai', OPENAI_BASE_URL: server.url() },
            providers: undefined,
          }
        : {
            model: 'anthropic:test-model',
            env: { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: server.url() },
            providers: undefined,
          };
  const flow = await loadFlow(flowObject(model, providers), { knownTools: ['item_lookup', 'order_create'] });
  const { tools, orders } = shopTools();
  const registry = createProviderRegistry({
    env: { ...env, ...stream, ...extra.env },
    ...(flow.flow.providers ? { flowProviders: flow.flow.providers } : {}),
    ...extra.registry,
  });
  const runtime = createRuntime({ store: 'memory', tools, logger: false, providers: registry });
  cleanups.push(() => runtime.close());
  return { runtime, server, orders, flow };
}

async function trace(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(runId, { follow: false })) events.push(event);
  return events;
}

const call = (id: string, name: string, args: unknown): NonNullable<Turn['calls']>[number] => ({
  id,
  name,
  args: typeof args === 'string' ? args : JSON.stringify(args),
});

/** The approval story: look up, write (gated), ask approval, [person approves], write, output + finish. */
const STORY: Turn[] = [
  { text: 'Let me look the item up.', calls: [call('call_1', 'item_lookup', { id: 7 })] },
  { calls: [call('call_2', 'order_create', { itemId: 7, quantity: 2 })] },
  {
    calls: [call('call_3', 'builtin_node_approval', { tool: 'order_create', summary: 'Order 2 of item 7' })],
  },
  { calls: [call('call_4', 'order_create', { itemId: 7, quantity: 2 })] },
  {
    text: 'Done.',
    calls: [
      call('call_5', 'builtin_output_set', {
        key: 'orderId',
        value: 'o-1',
        sourceType: 'evidence',
        sourceRef: 'ev_2',
      }),
      call('call_6', 'builtin_node_finish', { summary: 'Ordered 2 of item 7.' }),
    ],
  },
].map((turn, i) => ({ ...turn, usage: { input: 100 * (i + 1), output: 10 * (i + 1) } }));

/** A message of an OpenAI or Anthropic request body, as far as the tests read it. */
interface WireMessage {
  role: string;
  tool_call_id?: string;
  content?: string | { type: string; id?: string; tool_use_id?: string; content?: unknown }[] | null;
  tool_calls?: { id: string }[];
}

/** The tool results (call id → text) and assistant tool calls a request carried, whatever the wire format. */
function conversationOf(body: { messages: WireMessage[] }): {
  results: Map<string, string>;
  calls: string[];
} {
  const results = new Map<string, string>();
  const calls: string[] = [];
  for (const message of body.messages) {
    if (message.role === 'tool' && typeof message.content === 'string')
      results.set(message.tool_call_id!, message.content);
    for (const c of message.tool_calls ?? []) calls.push(c.id);
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type === 'tool_result')
        results.set(
          part.tool_use_id!,
          typeof part.content === 'string' ? part.content : JSON.stringify(part.content),
        );
      if (part.type === 'tool_use') calls.push(part.id!);
    }
  }
  return { results, calls };
}

describe.each(['openai-json', 'openai-sse', 'anthropic-json', 'anthropic-sse', 'qwen'] as const)(
  'a full run on %s',
  (format) => {
    it('runs several rounds, suspends for approval, resumes, completes, and sums usage', async () => {
      const wire = format === 'qwen' ? 'openai-json' : format;
      const { runtime, server, orders, flow } = await setup(
        format,
        STORY.map((turn) => reply(wire, turn)),
      );

      const first = await runtime.start(flow, { input: { text: 'Order 2 of item 7' } });
      expect(first.status).toBe('suspended');
      expect(first.suspension).toMatchObject({
        kind: 'APPROVAL',
        pending: { tool: 'order_create', args: { itemId: 7, quantity: 2 } },
      });
      expect(orders).toEqual([]);

      const done = await runtime.approve(first.runId, { comment: 'ok' });
      expect(done).toMatchObject({ status: 'completed', outputs: { order: { orderId: 'o-1' } } });
      expect(done.usage).toEqual({ inputTokens: 1500, outputTokens: 150, totalTokens: 1650 });
      expect(orders).toEqual([{ itemId: 7, quantity: 2 }]);

      const events = await trace(runtime, first.runId);
      const responses = events.filter((e) => e.type === 'model.response');
      expect(responses.map((e) => e.usage)).toEqual(
        STORY.map((t) => ({
          inputTokens: t.usage!.input,
          outputTokens: t.usage!.output,
          totalTokens: t.usage!.input + t.usage!.output,
        })),
      );
      expect(responses[4]!.toolCalls).toEqual([
        { callId: 'call_5', tool: 'builtin_output_set' },
        { callId: 'call_6', tool: 'builtin_node_finish' },
      ]);
      const invoked = events.filter((e) => e.type === 'tool.invoked');
      expect(invoked.map((e) => [e.callId, e.outcome, e.errorCode])).toEqual([
        ['call_1', 'SUCCESS', null],
        ['call_2', 'DEFERRED', 'APPROVAL_REQUIRED'],
        ['call_3', 'SUCCESS', null],
        ['call_4', 'SUCCESS', null],
        ['call_5', 'SUCCESS', null],
        ['call_6', 'SUCCESS', null],
      ]);

      // Every round sent the tools with their schemas and the whole conversation back, ids intact.
      expect(server.requests).toHaveLength(5);
      const tools = server.requests[0]!.body.tools as { name?: string; function?: { name: string } }[];
      const names = tools.map((t) => t.name ?? t.function?.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'item_lookup',
          'order_create',
          'builtin_node_finish',
          'builtin_node_approval',
        ]),
      );
      const last = conversationOf(server.requests[4]!.body);
      expect(last.calls).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
      expect([...last.results.keys()]).toEqual(['call_1', 'call_2', 'call_3', 'call_4']);
      expect(last.results.get('call_2')).toContain('builtin_node_approval');
      expect(last.results.get('call_4')).toContain('ev_2');
    });
  },
);

describe.each(['openai-json', 'openai-sse'] as const)('tool-call arguments on %s', (format) => {
  it('reach the pipeline as the model wrote them: ARG_JSON_INVALID and ARG_REJECTED come from our guards', async () => {
    const turns: Turn[] = [
      { calls: [call('call_1', 'item_lookup', '{"id": 7,')] },
      { calls: [call('call_2', 'item_lookup', { id: 'seven' })] },
      { calls: [call('call_3', 'builtin_node_fail', { reason: 'I cannot form the arguments.' })] },
    ];
    const { runtime, server, flow } = await setup(
      format,
      turns.map((t) => reply(format, { ...t, usage: { input: 10, output: 1 } })),
    );
    const summary = await runtime.start(flow, { input: { text: 'Order item 7' } });
    expect(summary).toMatchObject({ status: 'failed', reason: 'FAILED_BY_MODEL' });
    const invoked = (await trace(runtime, summary.runId)).filter((e) => e.type === 'tool.invoked');
    expect(invoked.map((e) => [e.callId, e.outcome, e.errorCode, e.args])).toEqual([
      ['call_1', 'REJECTED', 'ARG_JSON_INVALID', '{"id": 7,'],
      ['call_2', 'REJECTED', 'ARG_REJECTED', { id: 'seven' }],
      ['call_3', 'SUCCESS', null, { reason: 'I cannot form the arguments.' }],
    ]);
    const second = conversationOf(server.requests[1]!.body);
    expect(second.results.get('call_1')).toMatch(/REJECTED/);
  });
});

describe('model failures through the runtime', () => {
  it('retries a 429 and goes on', async () => {
    const waits: number[] = [];
    const clock = { sleep: (ms: number) => Promise.resolve(void waits.push(ms)), random: () => 1 };
    const finish = {
      calls: [call('call_1', 'builtin_node_fail', { reason: 'nothing to do' })],
      usage: { input: 7, output: 3 },
    };
    const { runtime, server, flow } = await setup(
      'openai-json',
      [
        { status: 429, headers: { 'retry-after': '1' }, json: { error: { message: 'Rate limit reached' } } },
        reply('openai-json', finish),
      ],
      { registry: { model: { clock } } },
    );
    const summary = await runtime.start(flow, { input: { text: 'hi' } });
    expect(summary).toMatchObject({
      status: 'failed',
      reason: 'FAILED_BY_MODEL',
      usage: { totalTokens: 10 },
    });
    expect(server.requests).toHaveLength(2);
    expect(waits).toEqual([1000]);
  });

  it('ends the node with MODEL_FAILED and a readable message when the model times out', async () => {
    const { runtime, flow } = await setup('openai-json', [{ hang: true }], {
      env: { AGENT_RUNTIME_MODEL_TIMEOUT_MS: '150', AGENT_RUNTIME_MODEL_MAX_RETRIES: '0' },
    });
    const summary = await runtime.start(flow, { input: { text: 'hi' } });
    expect(summary).toMatchObject({
      status: 'failed',
      reason: 'MODEL_FAILED',
      failedNode: 'order',
      message: 'openai:test-model: timed out after 150 ms',
    });
    expect(summary.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
  });

  it('refuses to start, before any run exists, when the key is missing', async () => {
    const flow = await loadFlow(flowObject('anthropic:claude-sonnet-4-5'), {
      knownTools: ['item_lookup', 'order_create'],
    });
    const runtime = createRuntime({
      store: 'memory',
      tools: shopTools().tools,
      logger: false,
      providers: createProviderRegistry({ env: {} }),
    });
    cleanups.push(() => runtime.close());
    await expect(runtime.start(flow, { input: { text: 'hi' } })).rejects.toThrow(
      new RunError('REQUEST_INVALID', 'model anthropic:claude-sonnet-4-5: ANTHROPIC_API_KEY is not set'),
    );
    expect(await runtime.list()).toEqual([]);
  });
});
