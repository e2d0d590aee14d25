/** A streaming model's answer reaches an SSE client while it is written, before the turn completes. */
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { aiSdkModel } from '../../src/model/ai-sdk/adapter.js';
import type { AiSdkLanguageModel } from '../../src/model/ai-sdk/language-model.js';
import { defineTool } from '../../src/tools/tool.js';
import type { LiveDelta, TraceEvent } from '../../web/src/api.js';
import { followEvents } from '../../web/src/sse.js';
import { TOKENS, openEvents, startServer, type SseMessage, type TestServer } from '../server/helpers.js';

/** A promise with its resolve function. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const usage = { inputTokens: { total: 5 }, outputTokens: { total: 7 } };

/**
 * An AI SDK (v3) language model whose first streamed turn waits at `gates` (so the test decides when it
 * goes on), writing text and then a `lookup` call; its second turn finishes the node.
 */
function streamingModel(gates: {
  connected: Promise<void>;
  textSeen: Promise<void>;
  callSeen: Promise<void>;
}): AiSdkLanguageModel {
  let calls = 0;
  const first = async (c: ReadableStreamDefaultController<unknown>) => {
    await gates.connected;
    c.enqueue({ type: 'stream-start', warnings: [] });
    c.enqueue({ type: 'text-start', id: 't1' });
    c.enqueue({ type: 'text-delta', id: 't1', delta: 'Looking ' });
    await gates.textSeen;
    c.enqueue({ type: 'text-delta', id: 't1', delta: 'it up' });
    c.enqueue({ type: 'text-end', id: 't1' });
    c.enqueue({ type: 'tool-input-start', id: 'c1', toolName: 'lookup' });
    c.enqueue({ type: 'tool-input-delta', id: 'c1', delta: '{"id":' });
    await gates.callSeen;
    c.enqueue({ type: 'tool-input-delta', id: 'c1', delta: '1}' });
    c.enqueue({ type: 'tool-input-end', id: 'c1' });
    c.enqueue({ type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{"id":1}' });
    c.enqueue({ type: 'finish', finishReason: 'tool-calls', usage });
    c.close();
  };
  const second = (c: ReadableStreamDefaultController<unknown>) => {
    c.enqueue({
      type: 'tool-call',
      toolCallId: 'c2',
      toolName: 'builtin_node_finish',
      input: '{"summary":"found"}',
    });
    c.enqueue({ type: 'finish', finishReason: 'tool-calls', usage });
    c.close();
  };
  return {
    specificationVersion: 'v3',
    provider: 'fake.chat',
    modelId: 'streamer',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('this model only streams')),
    doStream: () => {
      calls += 1;
      const write = calls === 1 ? first : second;
      return Promise.resolve({ stream: new ReadableStream({ start: (c) => void write(c) }) });
    },
  } as unknown as AiSdkLanguageModel;
}

let server: TestServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** A server whose runtime drives a run of the streaming model; the model waits at the returned gates. */
async function liveRun() {
  const lookup = defineTool<{ id: number }>({
    name: 'lookup',
    description: 'Find an item',
    inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
    execute: ({ id }) => ({ id, name: `item-${id}` }),
  });
  server = await startServer({ runtime: { tools: [lookup] } });
  const gates = { connected: gate(), textSeen: gate(), callSeen: gate() };
  const model = aiSdkModel(
    streamingModel({
      connected: gates.connected.wait,
      textSeen: gates.textSeen.wait,
      callSeen: gates.callSeen.wait,
    }),
    { stream: true, maxRetries: 0 },
  );
  const flow = await loadFlow(
    { id: 'live', locale: 'en', nodes: [{ id: 'main', instructions: 'Find item 1.', tools: ['lookup'] }] },
    { knownTools: ['lookup'] },
  );
  const accepted = gate();
  let runId = '';
  const finished = server.runtime.start(flow, {
    model,
    input: { text: 'find 1' },
    onAccepted: (summary) => {
      runId = summary.runId;
      accepted.open();
    },
  });
  await accepted.wait;
  return { server, runId, finished, gates };
}

/** Opens the gates as the follower sees the stream: connected, then the text, then the call being formed. */
function watch(gates: Awaited<ReturnType<typeof liveRun>>['gates'], event: Record<string, unknown>): void {
  // The stream follows the run once it has replayed `run.started`: the model may begin writing.
  if (event.type === 'run.started') gates.connected.open();
  if (event.type === 'model.delta' && event.text === 'Looking ') gates.textSeen.open();
  const calls = event.toolCalls as { tool: string; args: string }[] | undefined;
  if (event.type === 'model.delta' && calls?.[0]?.args === '{"id":') gates.callSeen.open();
}

describe('live model deltas', () => {
  it('reach an SSE client while the turn is written, without ids, and are not persisted', async () => {
    const { server, runId, finished, gates } = await liveRun();
    const sse = await openEvents(server.url, runId, { token: TOKENS.viewer });
    const seen: { message: SseMessage; event: Record<string, unknown> }[] = [];
    for (;;) {
      const message = await sse.next();
      if (message === null) break;
      if (message.data === undefined) continue;
      const event = JSON.parse(message.data) as Record<string, unknown>;
      seen.push({ message, event });
      watch(gates, event);
      if (event.type === 'run.completed') break;
    }
    sse.close();
    expect((await finished).status).toBe('completed');

    const types = seen.map((s) => s.event.type);
    const firstResponse = types.indexOf('model.response');
    const deltas = seen.filter((s) => s.event.type === 'model.delta');
    // The test's gates held the turn until these deltas had arrived: they came before it completed.
    expect(deltas[0]?.event).toMatchObject({
      runId,
      nodeId: 'main',
      round: 1,
      text: 'Looking ',
      toolCalls: [],
    });
    expect(deltas.map((d) => d.event.toolCalls)).toContainEqual([
      { callId: 'c1', tool: 'lookup', args: '{"id":' },
    ]);
    expect(types.indexOf('model.delta')).toBeLessThan(firstResponse);
    expect(seen[firstResponse]?.event).toMatchObject({
      text: 'Looking it up',
      toolCalls: [{ callId: 'c1', tool: 'lookup' }],
    });
    for (const d of deltas) expect(d.message.id).toBeUndefined();
    for (const s of seen.filter((s) => s.event.type !== 'model.delta'))
      expect(s.message.id).toBe(String(s.event.seq));

    const stored = [];
    for await (const event of server.runtime.events(runId, { follow: false })) stored.push(event.type);
    expect(stored).not.toContain('model.delta');
    expect(stored).toContain('model.response');
  });

  it("reach the console's follower as deltas, apart from the trace events it folds", async () => {
    const { server, runId, finished, gates } = await liveRun();
    const events: TraceEvent[] = [];
    const deltas: LiveDelta[] = [];
    const controller = new AbortController();
    await followEvents({
      runId,
      token: TOKENS.viewer,
      base: server.url,
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        watch(gates, event);
      },
      onDelta: (delta) => {
        deltas.push(delta);
        watch(gates, delta as unknown as Record<string, unknown>);
      },
      onState: () => undefined,
    });
    expect((await finished).status).toBe('completed');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.type)).not.toContain('model.delta');
    expect(deltas[0]).toMatchObject({ type: 'model.delta', nodeId: 'main', text: 'Looking ' });
  });
});
