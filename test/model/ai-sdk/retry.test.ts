import { afterEach, describe, expect, it, vi } from 'vitest';
import { aiSdkModel, type AiSdkModelOptions } from '../../../src/model/ai-sdk/adapter.js';
import { retryAfter } from '../../../src/model/ai-sdk/errors.js';
import { createLanguageModel, type ProviderFamily } from '../../../src/model/ai-sdk/factories.js';
import { realClock, retryDelay, type RetryClock } from '../../../src/model/ai-sdk/retry.js';
import type { ModelRequest } from '../../../src/model/model.js';
import { createProviderRegistry } from '../../../src/model/providers.js';
import { closedPort } from '../../helpers/demo-server.js';
import { startFakeProvider, type FakeProvider, type RecordedRequest, type Reply } from './fake-provider.js';
import { openaiChunks, openaiCompletion, anthropicMessage } from '../../../src/testing/fake-model/wire.js';

const servers: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function fake(replies: Reply[] | ((r: RecordedRequest, i: number) => Reply)): Promise<FakeProvider> {
  const server = await startFakeProvider(replies);
  servers.push(server);
  return server;
}

/** A clock whose sleeps return at once and are recorded; jitter off (random = 1). */
function recordingClock(): RetryClock & { waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: (ms) => Promise.resolve(void waits.push(ms)), random: () => 1 };
}

const CONTEXT = { runId: 'run_1', nodeId: 'n', callIndex: 0 };
const REQUEST: ModelRequest = { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [] };
const OK: Reply = { json: openaiCompletion({ text: 'hello', usage: { input: 3, output: 2 } }) };

function model(baseURL: string, options: AiSdkModelOptions, family: ProviderFamily = 'openai') {
  const lm = createLanguageModel(
    { name: family, family, baseURL, apiKey: 'sk-test-secret-123', headers: {} },
    'test-model',
  );
  return aiSdkModel(lm, { maxRetries: 2, timeoutMs: 5_000, ...options });
}

describe('retries', () => {
  it('retries a 429 after the retry-after the provider asked for, then succeeds', async () => {
    const clock = recordingClock();
    const server = await fake([
      { status: 429, headers: { 'retry-after': '2' }, json: { error: { message: 'Rate limit reached' } } },
      OK,
    ]);
    const result = await model(server.url(), { clock }).call(REQUEST, CONTEXT);
    expect(result).toMatchObject({
      ok: true,
      text: 'hello',
      usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
    });
    expect(server.requests).toHaveLength(2);
    expect(clock.waits).toEqual([2000]);
  });

  it('honours retry-after-ms, and caps any wait at maxRetryDelayMs', async () => {
    const clock = recordingClock();
    const server = await fake([
      { status: 429, headers: { 'retry-after-ms': '1500' }, json: { error: { message: 'slow down' } } },
      { status: 429, headers: { 'retry-after': '3600' }, json: { error: { message: 'slow down' } } },
      OK,
    ]);
    const result = await model(server.url(), { clock, maxRetryDelayMs: 30_000 }).call(REQUEST, CONTEXT);
    expect(result.ok).toBe(true);
    expect(clock.waits).toEqual([1500, 30_000]);
  });

  it('gives up after maxRetries on 5xx with exponential backoff and says how often it tried', async () => {
    const clock = recordingClock();
    const busy: Reply = { status: 503, json: { error: { message: 'The server is overloaded' } } };
    const server = await fake([busy, busy, busy, OK]);
    const result = await model(server.url(), { clock }).call(REQUEST, CONTEXT);
    expect(result).toEqual({
      ok: false,
      message: 'openai:test-model: HTTP 503 Service Unavailable (3 attempts)',
      detail: 'openai:test-model: HTTP 503 The server is overloaded (3 attempts)',
    });
    expect(clock.waits).toEqual([1000, 2000]);
  });

  it('retries an Anthropic 529 overloaded_error', async () => {
    const clock = recordingClock();
    const server = await fake([
      { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      { json: anthropicMessage({ text: 'fine', usage: { input: 4, output: 1 } }) },
    ]);
    const result = await model(server.url(), { clock }, 'anthropic').call(REQUEST, CONTEXT);
    expect(result).toMatchObject({ ok: true, text: 'fine', usage: { totalTokens: 5 } });
    expect(clock.waits).toEqual([1000]);
  });

  it('does not retry a 401, and never shows the key even when the provider echoes it', async () => {
    const clock = recordingClock();
    const server = await fake([
      {
        status: 401,
        json: {
          error: { message: 'Incorrect API key provided: sk-test-secret-123', type: 'invalid_request_error' },
        },
      },
    ]);
    const env = { OPENAI_API_KEY: 'sk-test-secret-123', OPENAI_BASE_URL: server.url() };
    const result = await createProviderRegistry({ env, model: { clock } })('openai', 'test-model').call(
      REQUEST,
      CONTEXT,
    );
    expect(result).toEqual({
      ok: false,
      message: 'openai:test-model: HTTP 401 Unauthorized: Incorrect API key provided: ***',
      detail: 'openai:test-model: HTTP 401 Incorrect API key provided: ***',
    });
    expect(server.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('retries a refused connection and reports it readably', async () => {
    const clock = recordingClock();
    const port = await closedPort();
    const result = await model(`http://127.0.0.1:${port}/v1`, { clock, maxRetries: 1 }).call(
      REQUEST,
      CONTEXT,
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toBe(
      'openai:test-model: the provider could not be reached (ECONNREFUSED) (2 attempts)',
    );
    expect(!result.ok && result.detail).toMatch(
      /^openai:test-model: Cannot connect to API: .*ECONNREFUSED.* \(2 attempts\)$/,
    );
    expect(clock.waits).toEqual([1000]);
  });

  it('retries a connection closed without an answer', async () => {
    const clock = recordingClock();
    const server = await fake([{ destroy: true }, OK]);
    const result = await model(server.url(), { clock }).call(REQUEST, CONTEXT);
    expect(result).toMatchObject({ ok: true, text: 'hello' });
    expect(server.requests).toHaveLength(2);
  });
});

describe('timeouts and cancellation', () => {
  it('times out an attempt that gets no answer, retries it, then fails readably', async () => {
    const clock = recordingClock();
    const server = await fake([{ hang: true }, { hang: true }]);
    const result = await model(server.url(), { clock, timeoutMs: 150, maxRetries: 1 }).call(REQUEST, CONTEXT);
    expect(result).toEqual({ ok: false, message: 'openai:test-model: timed out after 150 ms (2 attempts)' });
    expect(server.requests).toHaveLength(2);
  });

  it('times out a stream that stops in the middle', async () => {
    const server = await fake([
      { sse: openaiChunks({ text: 'a long answer', usage: { input: 1, output: 1 } }), hangAfter: 2 },
    ]);
    const result = await model(server.url(), { stream: true, timeoutMs: 150, maxRetries: 0 }).call(
      REQUEST,
      CONTEXT,
    );
    expect(result).toEqual({ ok: false, message: 'openai:test-model: timed out after 150 ms' });
  });

  it('stops at once, without retrying, when the request is cancelled', async () => {
    const controller = new AbortController();
    const clock = recordingClock();
    const server = await fake(() => {
      setImmediate(() => controller.abort());
      return { hang: true };
    });
    const started = Date.now();
    const result = await model(server.url(), { clock, timeoutMs: 10_000 }).call(
      { ...REQUEST, signal: controller.signal },
      CONTEXT,
    );
    expect(result).toEqual({ ok: false, message: 'openai:test-model: cancelled' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(server.requests).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('abandons a language model that ignores its abort signal', async () => {
    const never = {
      specificationVersion: 'v4' as const,
      provider: 'custom.chat',
      modelId: 'stuck',
      supportedUrls: {},
      doGenerate: () => new Promise<never>(() => undefined),
      doStream: () => new Promise<never>(() => undefined),
    };
    const result = await aiSdkModel(never, { timeoutMs: 50, maxRetries: 0 }).call(REQUEST, CONTEXT);
    expect(result).toEqual({ ok: false, message: 'custom:stuck: timed out after 50 ms' });
  });
});

describe('retry helpers', () => {
  it('reads retry-after as seconds, as an HTTP date, and retry-after-ms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfter({ 'retry-after': '7' }, now)).toBe(7000);
    expect(retryAfter({ 'Retry-After': 'Wed, 01 Jan 2025 00:00:05 GMT' }, now)).toBe(5000);
    expect(retryAfter({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfter({ 'retry-after': 'soon' }, now)).toBeNull();
    expect(retryAfter(undefined, now)).toBeNull();
  });

  it('backs off exponentially with jitter, never below retry-after nor above the cap', () => {
    const policy = { timeoutMs: 1, maxRetries: 5, initialDelayMs: 1000, maxDelayMs: 10_000 };
    expect([1, 2, 3, 4, 5].map((n) => retryDelay(n, null, policy, 1))).toEqual([
      1000, 2000, 4000, 8000, 10_000,
    ]);
    expect(retryDelay(1, null, policy, 0)).toBe(500);
    expect(retryDelay(1, 3000, policy, 0)).toBe(3000);
    expect(retryDelay(1, 60_000, policy, 0)).toBe(10_000);
  });

  it('the real clock sleeps on timers and wakes early on abort', async () => {
    vi.useFakeTimers();
    try {
      let woke = false;
      const sleeping = realClock.sleep(1000).then(() => (woke = true));
      await vi.advanceTimersByTimeAsync(999);
      expect(woke).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      await sleeping;
      expect(woke).toBe(true);
      const controller = new AbortController();
      const aborted = realClock.sleep(60_000, controller.signal);
      controller.abort();
      await aborted;
    } finally {
      vi.useRealTimers();
    }
  });
});
