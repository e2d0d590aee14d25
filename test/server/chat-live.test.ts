import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DefaultChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../src/model/providers.js';
import { openaiChunks, type Turn } from '../../src/testing/fake-model/wire.js';
import { toolKit } from '../runtime/helpers.js';
import { TOKENS, startServer, tempDir, type TestServer } from './helpers.js';

/**
 * The chat stream carries a streaming model's text while it is written: `text-delta` pieces, read
 * with the `ai` package's own transport and `readUIMessageStream`. The stand-in is an OpenAI Chat
 * Completions server that refuses a request without the key or without `stream: true`; its second
 * answer streams its first pieces, then holds the rest back until the test saw them in the UI message
 * (so they were shown before the model call ended). The text of the second round comes after the tool
 * part of the first.
 */

const KEY = 'sk-chat-live-test';
const FIRST = 'Let me look that up.';
const SECOND = 'item-7 owns the printer ticket, says the list.';
const FLOW = `id: ask
locale: en
model: openai:gpt-test
nodes:
  - { id: talk, answer: text, tools: [lookup] }
`;

interface Gated {
  url: string;
  release: () => void;
  refusals: string[];
  close: () => Promise<void>;
}

async function gatedProvider(turns: Turn[]): Promise<Gated> {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const refusals: string[] = [];
  let index = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}') as { stream?: unknown };
      const refused =
        req.headers.authorization !== `Bearer ${KEY}`
          ? 'bad key'
          : req.url !== '/v1/chat/completions'
            ? `bad path ${req.url}`
            : parsed.stream !== true
              ? 'not a stream request'
              : null;
      if (refused) {
        refusals.push(refused);
        res.writeHead(400, { 'content-type': 'application/json' }).end(`{"error":{"message":"${refused}"}}`);
        return;
      }
      const turn = turns[index] ?? { text: 'no more turns' };
      const gated = index === 1;
      index += 1;
      const events = openaiChunks(turn).map(
        (e) => `data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
      );
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if (!gated) {
        res.end(events.join(''));
        return;
      }
      res.write(events.slice(0, 3).join(''));
      void released.then(() => res.end(events.slice(3).join('')));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    release: () => release(),
    refusals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let t: TestServer;
let provider: Gated;
beforeAll(async () => {
  provider = await gatedProvider([
    {
      text: FIRST,
      calls: [{ id: 'call_1', name: 'lookup', args: '{"id":7}' }],
      usage: { input: 5, output: 5 },
    },
    { text: SECOND, usage: { input: 5, output: 5 } },
  ]);
  const flowsDir = await tempDir({ 'ask/flow.yaml': FLOW });
  t = await startServer({
    flowsDir,
    runtime: {
      store: 'memory',
      logger: false,
      tools: toolKit().tools,
      providers: createProviderRegistry({
        env: {
          OPENAI_API_KEY: KEY,
          OPENAI_BASE_URL: provider.url,
          AGENT_RUNTIME_MODEL_STREAM: '1',
          AGENT_RUNTIME_MODEL_MAX_RETRIES: '0',
        },
      }),
    },
  });
});
afterAll(async () => {
  await t.stop();
  await provider.close();
});

describe('POST /v1/threads/{threadId}/chat: live text', () => {
  it('streams the text piece by piece while the model writes it, after the tool part before it', async () => {
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${t.url}/v1/threads/L1/chat`,
      headers: { authorization: `Bearer ${TOKENS.operator}` },
      body: { flowId: 'ask' },
    });
    const stream = await transport.sendMessages({
      chatId: 'L1',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Who owns the printer ticket?' }] }],
      trigger: 'submit-message',
      messageId: undefined,
      abortSignal: undefined,
    });
    // Without live text the stand-in would wait forever: let it go after a while, so the test fails instead.
    const fallback = setTimeout(() => provider.release(), 15_000);
    const [forReader, forCount] = stream.tee();
    const chunks: UIMessageChunk[] = [];
    const counting = (async () => {
      for await (const chunk of forCount) chunks.push(chunk);
    })();
    let partial: string | null = null;
    let last: UIMessage | undefined;
    for await (const message of readUIMessageStream<UIMessage>({
      stream: forReader,
      terminateOnError: true,
    })) {
      last = message;
      const texts = message.parts.filter((p) => p.type === 'text').map((p) => p.text);
      const second = texts[1];
      if (partial === null && second !== undefined && second.length > 0) {
        // Seen while the stand-in still holds the rest back: the model call has not ended.
        partial = second;
        provider.release();
      }
    }
    await counting;
    clearTimeout(fallback);
    expect(partial).not.toBeNull();
    expect(SECOND.startsWith(partial as string)).toBe(true);
    expect((partial as string).length).toBeLessThan(SECOND.length);
    const parts = (last as UIMessage).parts.filter((p) => p.type !== 'step-start');
    expect(parts.map((p) => p.type)).toEqual(['text', 'dynamic-tool', 'text']);
    expect(parts[0]).toMatchObject({ text: FIRST, state: 'done' });
    expect(parts[1]).toMatchObject({ toolName: 'lookup', state: 'output-available' });
    expect(parts[2]).toMatchObject({ text: SECOND, state: 'done' });
    const secondId = chunks.find((c) => c.type === 'text-start' && c.id !== 'text_1') as { id: string };
    const pieces = chunks.filter((c) => c.type === 'text-delta' && c.id === secondId.id);
    expect(pieces.length).toBeGreaterThan(1);
    expect(chunks.filter((c) => c.type === 'text-start')).toHaveLength(2);
    expect(provider.refusals).toEqual([]);
  });
});
