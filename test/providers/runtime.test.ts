import { afterEach, describe, expect, it } from 'vitest';
import { harness, ORDER_STORY, traceOf, type Harness } from './harness.js';
import type { FakeKind, Fault, SeenRequest } from '../../src/testing/fake-model/server.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});
async function start(...args: Parameters<typeof harness>): Promise<Harness> {
  const h = await harness(...args);
  open.push(h);
  return h;
}

const KINDS: FakeKind[] = ['anthropic', 'openai', 'qwen'];

/** The system prompt a request carried, whatever the wire format. */
function systemOf(request: SeenRequest): unknown {
  if (request.body.system !== undefined) return request.body.system;
  return (request.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'system');
}

/** The text of a request's last message (Anthropic: its last text block). */
function lastText(request: SeenRequest): string {
  const last = (request.body.messages as { content: unknown }[]).at(-1)!;
  if (typeof last.content === 'string') return last.content;
  const texts = (last.content as { type: string; text?: string }[]).filter((b) => b.type === 'text');
  return texts.at(-1)?.text ?? '';
}

describe.each(
  KINDS.flatMap((kind) => [
    { kind, stream: false },
    { kind, stream: true },
  ]),
)('a whole run through $kind (stream: $stream)', ({ kind, stream }) => {
  it('suspends, is approved, completes; every request accepted; stable system prompt and tools; cache reads in usage', async () => {
    const h = await start(kind, (i) => ORDER_STORY[i] ?? { text: 'no more turns' }, { stream });
    const first = await h.runtime.start(h.flow, { input: { text: 'Order 2 of item 7' } });
    expect(first).toMatchObject({ status: 'suspended', suspension: { kind: 'APPROVAL' } });
    const done = await h.runtime.approve(first.runId, { comment: 'ok' });
    expect(done).toMatchObject({ status: 'completed', outputs: { order: { orderId: 'o-1' } } });
    expect(h.orders).toEqual([{ itemId: 7, quantity: 2 }]);

    expect(h.fake.refusals()).toEqual([]);
    expect(h.fake.requests).toHaveLength(5);
    // The system prompt and the tool list are byte-identical on every round of the node.
    const systems = new Set(h.fake.requests.map((r) => JSON.stringify(systemOf(r))));
    const tools = new Set(h.fake.requests.map((r) => JSON.stringify(r.body.tools)));
    expect(systems.size).toBe(1);
    expect(tools.size).toBe(1);
    expect(JSON.stringify(systemOf(h.fake.requests[0]!))).not.toContain('Order 2 of item 7');
    // The run input is the first user message; the phase hint the newest user-side content.
    const firstMessage = (h.fake.requests[0]!.body.messages as { role: string; content: unknown }[]).find(
      (m) => m.role !== 'system',
    );
    expect(firstMessage?.role).toBe('user');
    expect(JSON.stringify(firstMessage?.content)).toContain('Order 2 of item 7');
    for (const request of h.fake.requests)
      expect(lastText(request)).toBe('Required outputs not written yet: orderId');

    // The provider reported cache reads from round 2 on; the run's usage sums them.
    expect(done.usage.cacheReadTokens).toBeGreaterThan(0);
    expect(done.usage.inputTokens).toBeGreaterThan(1500);
    if (kind === 'anthropic') {
      const body = h.fake.requests[0]!.body as {
        system: { cache_control?: unknown }[];
        tools: { cache_control?: unknown }[];
      };
      expect(body.system.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(body.tools.at(-1)?.cache_control).toEqual({ type: 'ephemeral' });
      expect(done.usage.cacheWriteTokens).toBeGreaterThan(0);
    }
    const usages = (await traceOf(h.runtime, first.runId))
      .filter((e) => e.type === 'model.response')
      .map((e) => e.usage as { cacheReadTokens?: number });
    expect(usages[0]!.cacheReadTokens).toBeUndefined();
    expect(usages[1]!.cacheReadTokens).toBeGreaterThan(0);
  });
});

describe('prompt caching off', () => {
  it('AGENT_RUNTIME_MODEL_PROMPT_CACHE=0 sends no cache_control to Anthropic, and no cache counts appear', async () => {
    const h = await start('anthropic', (i) => ORDER_STORY[i] ?? { text: 'no more turns' }, {
      env: { AGENT_RUNTIME_MODEL_PROMPT_CACHE: '0' },
    });
    const first = await h.runtime.start(h.flow, { input: { text: 'Order 2 of item 7' } });
    const done = await h.runtime.approve(first.runId, {});
    expect(done.status).toBe('completed');
    expect(JSON.stringify(h.fake.requests.map((r) => r.body))).not.toContain('cache_control');
    expect(done.usage.cacheReadTokens).toBeUndefined();
    expect(h.fake.refusals()).toEqual([]);
  });
});

const FAULTS: { fault: Fault; message: RegExp; attempts: number }[] = [
  {
    fault: 'unauthorized',
    message: /HTTP 401 Unauthorized: (Incorrect API key provided|invalid x-api-key)$/,
    attempts: 1,
  },
  {
    fault: 'rate-limit',
    message: /HTTP 429 Too Many Requests \(3 attempts\)$/,
    attempts: 3,
  },
  { fault: 'server-error', message: /HTTP 5(00|29) .+ \(3 attempts\)$/, attempts: 3 },
  { fault: 'malformed', message: /HTTP 200: the provider's answer could not be read$/, attempts: 1 },
  { fault: 'hang', message: /timed out after 300 ms \(3 attempts\)$/, attempts: 3 },
];

describe.each(KINDS)('provider failures through %s', (kind) => {
  it.each(FAULTS)(
    '$fault: MODEL_FAILED naming the provider after the documented retries',
    async ({ fault, message, attempts }) => {
      const waits: number[] = [];
      const clock = { sleep: (ms: number) => Promise.resolve(void waits.push(ms)), random: () => 1 };
      const h = await start(kind, () => ({ fault, retryAfter: 5 }), {
        env: { AGENT_RUNTIME_MODEL_TIMEOUT_MS: '300' },
        model: { clock },
      });
      const summary = await h.runtime.start(h.flow, { input: { text: 'Order 2 of item 7' } });
      const model = { anthropic: 'anthropic:claude-test', openai: 'openai:gpt-test', qwen: 'qwen:qwen-test' }[
        kind
      ];
      expect(summary).toMatchObject({ status: 'failed', reason: 'MODEL_FAILED', failedNode: 'order' });
      expect(summary.message?.startsWith(`${model}: `)).toBe(true);
      expect(summary.message).toMatch(message);
      expect(summary.message).not.toContain(h.fake.key);
      expect(h.fake.requests).toHaveLength(attempts);
      if (fault === 'rate-limit') expect(waits).toEqual([5000, 5000]);
      expect(h.fake.refusals()).toEqual([]);
    },
  );
});
