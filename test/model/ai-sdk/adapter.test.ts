import { afterEach, describe, expect, it } from 'vitest';
import { aiSdkModel } from '../../../src/model/ai-sdk/adapter.js';
import { createLanguageModel, type ProviderFamily } from '../../../src/model/ai-sdk/factories.js';
import type { ConversationMessage, ModelRequest } from '../../../src/model/model.js';
import { startFakeProvider, type FakeProvider, type Reply } from './fake-provider.js';
import { reply, type WireFormat } from '../../../src/testing/fake-model/wire.js';

const servers: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(replies: Reply[]): Promise<FakeProvider> {
  const server = await startFakeProvider(replies);
  servers.push(server);
  return server;
}

const CONTEXT = { runId: 'run_1', nodeId: 'n', callIndex: 0 };
const LOOKUP = {
  name: 'lookup',
  description: 'Find an item',
  inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
};
const HISTORY: ConversationMessage[] = [
  { role: 'user', content: 'find item 7' },
  {
    role: 'assistant',
    text: 'Looking.',
    toolCalls: [{ callId: 'call_a', tool: 'lookup', rawArgs: '{"id":7}' }],
  },
  { role: 'tool', callId: 'call_a', tool: 'lookup', content: 'SUCCESS evidence: ev_1 {"id":7}' },
];

function request(messages: ConversationMessage[] = HISTORY): ModelRequest {
  return { system: 'You are careful.', messages, tools: [LOOKUP] };
}

function model(family: ProviderFamily, server: FakeProvider, stream: boolean) {
  const lm = createLanguageModel(
    { name: family, family, baseURL: server.url(), apiKey: 'sk-test-secret', headers: {} },
    'test-model',
  );
  return aiSdkModel(lm, { stream, maxRetries: 0, timeoutMs: 5_000 });
}

const FORMATS: { format: WireFormat; family: ProviderFamily; stream: boolean }[] = [
  { format: 'openai-json', family: 'openai', stream: false },
  { format: 'openai-sse', family: 'openai', stream: true },
  { format: 'anthropic-json', family: 'anthropic', stream: false },
  { format: 'anthropic-sse', family: 'anthropic', stream: true },
];

describe.each(FORMATS)('aiSdkModel over $format', ({ format, family, stream }) => {
  it('returns text, tool calls with their ids and raw argument strings, and usage', async () => {
    const args = '{"id": 8, "note": "两个"}';
    const server = await fake([
      reply(format, {
        text: 'Now item 8.',
        calls: [{ id: 'call_b', name: 'lookup', args }],
        usage: { input: 120, output: 30 },
      }),
    ]);
    const result = await model(family, server, stream).call(request(), CONTEXT);
    expect(result).toEqual({
      ok: true,
      text: 'Now item 8.',
      toolCalls: [
        {
          callId: 'call_b',
          tool: 'lookup',
          rawArgs: family === 'anthropic' && !stream ? JSON.stringify(JSON.parse(args)) : args,
        },
      ],
      usage: { inputTokens: 120, outputTokens: 30, totalTokens: 150 },
    });
  });

  it('sends the system prompt, the tools with their JSON Schemas and the conversation with call ids', async () => {
    const server = await fake([reply(format, { text: 'ok', usage: { input: 1, output: 1 } })]);
    await model(family, server, stream).call(request(), CONTEXT);
    const body = server.requests[0]!.body;
    expect(server.requests[0]!.path).toBe(family === 'openai' ? '/v1/chat/completions' : '/v1/messages');
    if (family === 'openai') {
      expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-secret');
      expect(body.tools).toEqual([
        {
          type: 'function',
          function: { name: 'lookup', description: 'Find an item', parameters: LOOKUP.inputSchema },
        },
      ]);
      expect(body.messages).toEqual([
        { role: 'system', content: 'You are careful.' },
        { role: 'user', content: 'find item 7' },
        {
          role: 'assistant',
          content: 'Looking.',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'lookup', arguments: '{"id":7}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'SUCCESS evidence: ev_1 {"id":7}' },
      ]);
    } else {
      expect(server.requests[0]!.headers['x-api-key']).toBe('sk-test-secret');
      // Prompt caching is on by default: breakpoints on the system prompt and the (last) tool.
      expect(body.system).toEqual([
        { type: 'text', text: 'You are careful.', cache_control: { type: 'ephemeral' } },
      ]);
      expect(body.tools).toMatchObject([
        {
          name: 'lookup',
          description: 'Find an item',
          input_schema: LOOKUP.inputSchema,
          cache_control: { type: 'ephemeral' },
        },
      ]);
      expect(body.messages).toEqual([
        { role: 'user', content: [{ type: 'text', text: 'find item 7' }] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'call_a', name: 'lookup', input: { id: 7 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_a', content: 'SUCCESS evidence: ev_1 {"id":7}' },
          ],
        },
      ]);
    }
  });

  it('hands a malformed argument string to the caller as sent', async () => {
    if (format === 'anthropic-json') return; // Anthropic's non-streamed tool_use input is always a JSON object
    const server = await fake([
      reply(format, {
        calls: [{ id: 'call_c', name: 'lookup', args: '{"id": 7,' }],
        usage: { input: 5, output: 5 },
      }),
    ]);
    const result = await model(family, server, stream).call(
      request([{ role: 'user', content: 'x' }]),
      CONTEXT,
    );
    expect(result.ok && result.toolCalls).toEqual([
      { callId: 'call_c', tool: 'lookup', rawArgs: '{"id": 7,' },
    ]);
  });
});
