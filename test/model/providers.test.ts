import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  createProviderRegistry,
  modelOptionsFromEnv,
  providerEnvPrefix,
  resolveProviderSettings,
} from '../../src/model/providers.js';
import { isModelClient, resolveModel } from '../../src/model/resolve.js';
import type { ProviderConfig } from '../../src/domain/flow.js';
import { startFakeProvider, type FakeProvider } from './ai-sdk/fake-provider.js';
import { openaiCompletion } from '../../src/testing/fake-model/wire.js';
import { ModelError } from '../../src/model/errors.js';

const servers: FakeProvider[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const CONTEXT = { runId: 'run_1', nodeId: 'n', callIndex: 0 };
const REQUEST = { system: 's', messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
const QWEN: ProviderConfig = {
  type: 'openai-compatible',
  baseURL: 'https://dashscope.example/compatible-mode/v1/',
  apiKeyEnv: 'DASHSCOPE_API_KEY',
};

async function okServer(): Promise<FakeProvider> {
  const server = await startFakeProvider(() => ({
    json: openaiCompletion({ text: 'hello', usage: { input: 2, output: 1 } }),
  }));
  servers.push(server);
  return server;
}

describe('resolveProviderSettings', () => {
  it('has openai and anthropic built in, with their keys and overridable base URLs', () => {
    expect(resolveProviderSettings('openai', 'gpt-4.1', { OPENAI_API_KEY: 'sk-1' })).toEqual({
      name: 'openai',
      family: 'openai',
      baseURL: 'https://api.openai.com/v1',
      apiKey: 'sk-1',
      headers: {},
    });
    expect(
      resolveProviderSettings('anthropic', 'claude', {
        ANTHROPIC_API_KEY: 'sk-2',
        ANTHROPIC_BASE_URL: 'http://proxy.local/v1/',
      }),
    ).toEqual({
      name: 'anthropic',
      family: 'anthropic',
      baseURL: 'http://proxy.local/v1',
      apiKey: 'sk-2',
      headers: {},
    });
  });

  it('says which variable is missing for a built-in provider', () => {
    expect(() => resolveProviderSettings('openai', 'gpt-4.1', {})).toThrow(
      new ModelError('CONFIG', 'model openai:gpt-4.1: OPENAI_API_KEY is not set'),
    );
    expect(() => resolveProviderSettings('anthropic', 'claude', { ANTHROPIC_API_KEY: '  ' })).toThrow(
      /ANTHROPIC_API_KEY is not set/,
    );
  });

  it('takes a provider declared in the flow, with its key from apiKeyEnv', () => {
    expect(
      resolveProviderSettings(
        'qwen',
        'qwen-max',
        { DASHSCOPE_API_KEY: 'sk-q' },
        { qwen: { ...QWEN, headers: { 'X-Trace': '1' } } },
      ),
    ).toEqual({
      name: 'qwen',
      family: 'openai-compatible',
      baseURL: 'https://dashscope.example/compatible-mode/v1',
      apiKey: 'sk-q',
      headers: { 'X-Trace': '1' },
    });
  });

  it('names the flow setting when a declared key variable is not set', () => {
    expect(() => resolveProviderSettings('qwen', 'qwen-max', {}, { qwen: QWEN })).toThrow(
      new ModelError(
        'CONFIG',
        "model qwen:qwen-max: DASHSCOPE_API_KEY is not set (the flow's providers.qwen.apiKeyEnv)",
      ),
    );
  });

  it('lets the environment override a declared provider: base URL, and key when apiKeyEnv is unset', () => {
    const env = {
      AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL: 'http://mirror.local/v1',
      AGENT_RUNTIME_PROVIDER_QWEN_API_KEY: 'sk-env',
    };
    expect(resolveProviderSettings('qwen', 'qwen-max', env, { qwen: QWEN })).toMatchObject({
      baseURL: 'http://mirror.local/v1',
      apiKey: 'sk-env',
    });
  });

  it('declares a provider by environment alone; the key is optional (Ollama, vLLM)', () => {
    expect(
      resolveProviderSettings('ollama', 'qwen3', {
        AGENT_RUNTIME_PROVIDER_OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1',
      }),
    ).toEqual({
      name: 'ollama',
      family: 'openai-compatible',
      baseURL: 'http://127.0.0.1:11434/v1',
      headers: {},
    });
    expect(providerEnvPrefix('my-llm')).toBe('AGENT_RUNTIME_PROVIDER_MY_LLM');
    expect(
      resolveProviderSettings('deep-seek', 'deepseek-chat', {
        AGENT_RUNTIME_PROVIDER_DEEP_SEEK_BASE_URL: 'https://api.deepseek.com',
        AGENT_RUNTIME_PROVIDER_DEEP_SEEK_API_KEY: 'sk-d',
      }),
    ).toMatchObject({ baseURL: 'https://api.deepseek.com', apiKey: 'sk-d' });
  });

  it('explains how to declare an unknown provider', () => {
    expect(() => resolveProviderSettings('qwen', 'qwen-max', {})).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
    expect(() => resolveProviderSettings('qwen', 'qwen-max', {})).toThrow(
      /unknown provider "qwen": declare it in the flow's providers: .* or set AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL \(and AGENT_RUNTIME_PROVIDER_QWEN_API_KEY\)/,
    );
  });

  it('rejects a base URL that is not http(s)', () => {
    expect(() =>
      resolveProviderSettings('openai', 'gpt-4.1', {
        OPENAI_API_KEY: 'k',
        OPENAI_BASE_URL: 'api.openai.com',
      }),
    ).toThrow(/OPENAI_BASE_URL is not an http\(s\) URL/);
  });
});

describe('modelOptionsFromEnv', () => {
  it('reads timeout, retries and streaming', () => {
    expect(
      modelOptionsFromEnv({
        AGENT_RUNTIME_MODEL_TIMEOUT_MS: '5000',
        AGENT_RUNTIME_MODEL_MAX_RETRIES: '0',
        AGENT_RUNTIME_MODEL_STREAM: 'true',
      }),
    ).toEqual({
      timeoutMs: 5000,
      maxRetries: 0,
      stream: true,
    });
    expect(modelOptionsFromEnv({})).toEqual({});
  });

  it('rejects bad values with the variable named', () => {
    expect(() => modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_TIMEOUT_MS: '0' }, 'openai:x')).toThrow(
      new ModelError('CONFIG', 'openai:x: AGENT_RUNTIME_MODEL_TIMEOUT_MS must be an integer ≥ 1 (got "0")'),
    );
    expect(() => modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_MAX_RETRIES: 'two' })).toThrow(
      /AGENT_RUNTIME_MODEL_MAX_RETRIES/,
    );
    expect(() => modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_STREAM: 'yes' })).toThrow(
      /AGENT_RUNTIME_MODEL_STREAM/,
    );
  });
});

describe('createProviderRegistry', () => {
  it('serves an OpenAI-compatible provider declared per call (as the runtime passes the flow), with its headers', async () => {
    const server = await okServer();
    const resolve = createProviderRegistry({ env: { DASHSCOPE_API_KEY: 'sk-q' } });
    const client = resolve('qwen', 'qwen-max', {
      qwen: { ...QWEN, baseURL: server.url(), headers: { 'X-DashScope-Tag': 'test' } },
    });
    expect(client.id).toBe('qwen:qwen-max');
    expect(await client.call(REQUEST, CONTEXT)).toMatchObject({ ok: true, text: 'hello' });
    const sent = server.requests[0]!;
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.body.model).toBe('qwen-max');
    expect(sent.headers.authorization).toBe('Bearer sk-q');
    expect(sent.headers['x-dashscope-tag']).toBe('test');
  });

  it('sends no Authorization header to an endpoint without a key', async () => {
    const server = await okServer();
    const client = createProviderRegistry({ env: { AGENT_RUNTIME_PROVIDER_OLLAMA_BASE_URL: server.url() } })(
      'ollama',
      'qwen3:8b',
    );
    expect(await client.call(REQUEST, CONTEXT)).toMatchObject({ ok: true });
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('throws ModelConfigError at resolution, not at the first call', () => {
    expect(() => createProviderRegistry({ env: {} })('openai', 'gpt-4.1')).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
  });
});

describe('resolveModel', () => {
  it('wraps any AI SDK language model object and counts it as a model object', async () => {
    const server = await okServer();
    const languageModel = createOpenAICompatible({ name: 'local', baseURL: server.url() }).chatModel('m1');
    expect(isModelClient(languageModel)).toBe(true);
    expect(isModelClient('openai:gpt-4.1')).toBe(false);
    const client = resolveModel(languageModel);
    expect(client.id).toBe('local:m1');
    expect(await client.call(REQUEST, CONTEXT)).toMatchObject({
      ok: true,
      text: 'hello',
      usage: { totalTokens: 3 },
    });
  });

  it('resolves provider names through the environment by default', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    expect(() => resolveModel('openai:gpt-4.1')).toThrow(
      new ModelError('CONFIG', 'model openai:gpt-4.1: OPENAI_API_KEY is not set'),
    );
    vi.stubEnv('OPENAI_API_KEY', 'sk-x');
    expect(resolveModel('openai:gpt-4.1').id).toBe('openai:gpt-4.1');
  });

  it('passes the flow providers to the resolver', () => {
    vi.stubEnv('DASHSCOPE_API_KEY', 'sk-q');
    expect(resolveModel('qwen:qwen-max', undefined, { qwen: QWEN }).id).toBe('qwen:qwen-max');
    expect(() => resolveModel('qwen:qwen-max')).toThrow(/unknown provider "qwen"/);
  });
});
