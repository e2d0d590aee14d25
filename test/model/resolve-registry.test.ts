import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../src/domain/flow.js';
import { ModelError } from '../../src/model/errors.js';
import type { ModelClient } from '../../src/model/model.js';
import {
  createProviderRegistry,
  modelOptionsFromEnv,
  providerEnvPrefix,
  resolveProviderSettings,
  type FlowProviders,
  type ProviderResolver,
} from '../../src/model/providers.js';
import { absolutizeModel, isModelClient, parseModelName, resolveModel } from '../../src/model/resolve.js';
import { scriptedModel } from '../../src/model/scripted.js';

/**
 * Model selection without any network: model names, `scripted:` paths, what counts as a model object,
 * which resolver a name goes to, provider settings from the flow and the environment, adapter tuning,
 * and what a provider's failure shows (a `fetch` in this process answers for the provider).
 */

const REQUEST = { system: 's', messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
const CONTEXT = { runId: 'run_1', nodeId: 'n', callIndex: 0 };

describe('parseModelName', () => {
  it('splits at the first colon: the model id may hold more', () => {
    expect(parseModelName('openai:gpt-4.1')).toEqual({ provider: 'openai', modelId: 'gpt-4.1' });
    expect(parseModelName('ollama:qwen3:8b')).toEqual({ provider: 'ollama', modelId: 'qwen3:8b' });
    expect(parseModelName('scripted:C:\\turns.yaml')).toEqual({
      provider: 'scripted',
      modelId: 'C:\\turns.yaml',
    });
  });

  it('refuses a name without a provider or a model id, quoting it', () => {
    for (const spec of ['gpt-4.1', ':gpt', 'openai:', '', ':'])
      expect(() => parseModelName(spec)).toThrow(
        `model ${JSON.stringify(spec)} is not of the form <provider>:<model id> (e.g. openai:gpt-4.1, scripted:turns.yaml)`,
      );
  });
});

describe('absolutizeModel', () => {
  it('resolves a relative scripted: path against the folder and leaves everything else', () => {
    expect(absolutizeModel('scripted:./turns.yaml', '/flows/a')).toBe(
      `scripted:${resolve('/flows/a', 'turns.yaml')}`,
    );
    expect(absolutizeModel('scripted:../t.yaml', '/flows/a')).toBe(`scripted:${resolve('/flows', 't.yaml')}`);
    expect(absolutizeModel('scripted:/abs/t.yaml', '/flows/a')).toBe('scripted:/abs/t.yaml');
    expect(absolutizeModel('openai:gpt-4.1', '/flows/a')).toBe('openai:gpt-4.1');
    expect(absolutizeModel('ollama:./x', '/flows/a')).toBe('ollama:./x');
  });
});

describe('isModelClient', () => {
  it('is true for an object with call() or an AI SDK language model, false for names and other values', () => {
    expect(isModelClient(scriptedModel({ turns: [] }))).toBe(true);
    expect(isModelClient({ id: 'x', call: () => Promise.resolve({ ok: false, message: '' }) })).toBe(true);
    const language = (specificationVersion: string) => ({
      specificationVersion,
      provider: 'p',
      modelId: 'm',
      doGenerate: () => undefined,
      doStream: () => undefined,
    });
    for (const version of ['v2', 'v3', 'v4']) expect(isModelClient(language(version))).toBe(true);
    expect(isModelClient(language('v1'))).toBe(false);
    expect(isModelClient({ ...language('v2'), doStream: 'no' })).toBe(false);
    for (const value of ['openai:gpt-4.1', null, undefined, 3, { call: 'not a function' }, []])
      expect(isModelClient(value)).toBe(false);
  });
});

describe('resolveModel', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('uses a ModelClient as is', () => {
    const client = scriptedModel({ turns: [] });
    expect(resolveModel(client)).toBe(client);
  });

  it('loads scripted:<file> itself, within the size cap, never asking the providers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'resolve-'));
    dirs.push(dir);
    const file = join(dir, 't.yaml');
    writeFileSync(file, 'turns:\n  - text: from the file\n');
    const never: ProviderResolver = () => {
      throw new Error('asked the providers');
    };
    const client = resolveModel(`scripted:${file}`, never);
    expect(client.id).toBe(`scripted:${file}`);
    const answer = await client.call(REQUEST, CONTEXT);
    expect(answer.ok && answer.text).toBe('from the file');
    expect(() => resolveModel(`scripted:${file}`, never, undefined, 8)).toThrow(
      /^cannot read scripted model file /,
    );
  });

  it('gives any other name to the resolver with the flow providers; a bad name fails first', () => {
    const asked: unknown[][] = [];
    const mine: ModelClient = scriptedModel({ turns: [] }, 'resolved');
    const resolver: ProviderResolver = (...args) => {
      asked.push(args);
      return mine;
    };
    const providers: FlowProviders = { qwen: { type: 'openai-compatible', baseURL: 'https://q.example/v1' } };
    expect(resolveModel('qwen:qwen-max', resolver, providers)).toBe(mine);
    expect(resolveModel('openai:gpt-4.1:mini', resolver)).toBe(mine);
    expect(asked).toEqual([
      ['qwen', 'qwen-max', providers],
      ['openai', 'gpt-4.1:mini', undefined],
    ]);
    expect(() => resolveModel('nocolon', resolver)).toThrow(/is not of the form <provider>:<model id>/);
    expect(asked).toHaveLength(2);
  });
});

describe('resolveProviderSettings: beyond the basics', () => {
  const QWEN: ProviderConfig = { type: 'openai-compatible', baseURL: 'https://q.example/v1///' };

  it("a flow's declaration wins over the built-in provider of the same name", () => {
    // The built-in key is not taken for a declared `openai`.
    expect(() =>
      resolveProviderSettings(
        'openai',
        'gpt-4.1',
        { OPENAI_API_KEY: 'sk-builtin' },
        { openai: { ...QWEN, apiKeyEnv: 'MY_KEY' } },
      ),
    ).toThrow("model openai:gpt-4.1: MY_KEY is not set (the flow's providers.openai.apiKeyEnv)");
    expect(
      resolveProviderSettings(
        'openai',
        'gpt-4.1',
        { MY_KEY: 'sk-mine', OPENAI_API_KEY: 'sk-builtin' },
        { openai: { ...QWEN, apiKeyEnv: 'MY_KEY' } },
      ),
    ).toEqual({
      name: 'openai',
      family: 'openai-compatible',
      baseURL: 'https://q.example/v1',
      apiKey: 'sk-mine',
      headers: {},
    });
  });

  it('a declaration without apiKeyEnv needs no key, and takes AGENT_RUNTIME_PROVIDER_<NAME>_API_KEY when set', () => {
    expect(resolveProviderSettings('qwen', 'm', {}, { qwen: QWEN })).toEqual({
      name: 'qwen',
      family: 'openai-compatible',
      baseURL: 'https://q.example/v1',
      headers: {},
    });
    expect(
      resolveProviderSettings('qwen', 'm', { AGENT_RUNTIME_PROVIDER_QWEN_API_KEY: ' sk-e ' }, { qwen: QWEN })
        .apiKey,
    ).toBe('sk-e');
  });

  it('apiKeyEnv unset or blank falls back to the provider variable, else names the flow setting', () => {
    const declared = { qwen: { ...QWEN, apiKeyEnv: 'DASH_KEY' } };
    expect(
      resolveProviderSettings(
        'qwen',
        'm',
        { DASH_KEY: '   ', AGENT_RUNTIME_PROVIDER_QWEN_API_KEY: 'sk-p' },
        declared,
      ).apiKey,
    ).toBe('sk-p');
    expect(() => resolveProviderSettings('qwen', 'm', { DASH_KEY: '   ' }, declared)).toThrow(
      new ModelError('CONFIG', "model qwen:m: DASH_KEY is not set (the flow's providers.qwen.apiKeyEnv)"),
    );
  });

  it('checks an overriding base URL of a declared provider, naming the variable', () => {
    expect(() =>
      resolveProviderSettings(
        'qwen',
        'm',
        { AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL: 'ftp://mirror/v1' },
        { qwen: QWEN },
      ),
    ).toThrow(
      new ModelError(
        'CONFIG',
        'model qwen:m: AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL is not an http(s) URL: "ftp://mirror/v1"',
      ),
    );
    expect(
      resolveProviderSettings(
        'qwen',
        'm',
        { AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL: '  HTTP://mirror.local/v1//  ' },
        { qwen: QWEN },
      ).baseURL,
    ).toBe('HTTP://mirror.local/v1');
    expect(
      resolveProviderSettings('qwen', 'm', { AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL: '   ' }, { qwen: QWEN })
        .baseURL,
    ).toBe('https://q.example/v1');
  });

  it('built-ins: a blank base URL variable is no override; the key is trimmed', () => {
    expect(
      resolveProviderSettings('anthropic', 'c', { ANTHROPIC_API_KEY: ' sk-a ', ANTHROPIC_BASE_URL: '' }),
    ).toEqual({
      name: 'anthropic',
      family: 'anthropic',
      baseURL: 'https://api.anthropic.com/v1',
      apiKey: 'sk-a',
      headers: {},
    });
  });

  it('a provider named like an Object property is unknown unless declared', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty'])
      expect(() => resolveProviderSettings(name, 'm', {}, {})).toThrow(
        expect.objectContaining({ code: 'CONFIG' }),
      );
    expect(() => resolveProviderSettings('constructor', 'm', {})).toThrow(/unknown provider "constructor"/);
  });

  it('providerEnvPrefix: upper case, anything but letters and digits as _', () => {
    expect(providerEnvPrefix('qwen')).toBe('AGENT_RUNTIME_PROVIDER_QWEN');
    expect(providerEnvPrefix('my.llm-2')).toBe('AGENT_RUNTIME_PROVIDER_MY_LLM_2');
    expect(providerEnvPrefix('Vllm_Local')).toBe('AGENT_RUNTIME_PROVIDER_VLLM_LOCAL');
  });
});

describe('modelOptionsFromEnv: flags and bounds', () => {
  it('reads the flags in any case and spacing; 0 and false turn a flag off', () => {
    expect(
      modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_STREAM: ' TRUE ', AGENT_RUNTIME_MODEL_PROMPT_CACHE: '0' }),
    ).toEqual({
      stream: true,
      promptCache: false,
    });
    expect(
      modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_STREAM: '1', AGENT_RUNTIME_MODEL_PROMPT_CACHE: 'False' }),
    ).toEqual({
      stream: true,
      promptCache: false,
    });
  });

  it('an empty value is unset', () => {
    expect(
      modelOptionsFromEnv({
        AGENT_RUNTIME_MODEL_TIMEOUT_MS: '',
        AGENT_RUNTIME_MODEL_MAX_RETRIES: '',
        AGENT_RUNTIME_MODEL_STREAM: '  ',
        AGENT_RUNTIME_MODEL_PROMPT_CACHE: '',
      }),
    ).toEqual({});
  });

  it('timeout at least 1, retries at least 0, integers; the message quotes the value as read', () => {
    expect(
      modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_TIMEOUT_MS: '1', AGENT_RUNTIME_MODEL_MAX_RETRIES: '0' }),
    ).toEqual({
      timeoutMs: 1,
      maxRetries: 0,
    });
    expect(() => modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_MAX_RETRIES: '-1' })).toThrow(
      new ModelError('CONFIG', 'model: AGENT_RUNTIME_MODEL_MAX_RETRIES must be an integer ≥ 0 (got "-1")'),
    );
    expect(() => modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_TIMEOUT_MS: '2.5' }, 'q:m')).toThrow(
      new ModelError('CONFIG', 'q:m: AGENT_RUNTIME_MODEL_TIMEOUT_MS must be an integer ≥ 1 (got "2.5")'),
    );
    expect(() => modelOptionsFromEnv({ AGENT_RUNTIME_MODEL_PROMPT_CACHE: 'Off' }, 'q:m')).toThrow(
      new ModelError(
        'CONFIG',
        'q:m: AGENT_RUNTIME_MODEL_PROMPT_CACHE must be 1, true, 0 or false (got "off")',
      ),
    );
  });
});

/** A provider answering in this process: every request is recorded and answered by `answer`. */
function fakeFetch(answer: (body: unknown, headers: Headers) => Response) {
  const seen: { url: string; headers: Headers; body: unknown }[] = [];
  const fetch = (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null;
    seen.push({ url, headers, body });
    return Promise.resolve(answer(body, headers));
  };
  return { fetch, seen };
}

describe('createProviderRegistry without a network', () => {
  const declared: FlowProviders = {
    corp: {
      type: 'openai-compatible',
      baseURL: 'https://llm.corp.example/v1',
      apiKeyEnv: 'CORP_KEY',
      headers: { 'X-Api-Key': 'hdr-secret-1', 'X-Auth-Token': 'hdr-secret-2', 'X-Team': 'team-blue' },
    },
  };

  it('redacts the key and credential-like header values from what a failure shows', async () => {
    const { fetch, seen } = fakeFetch(
      (_body, headers) =>
        new Response(
          JSON.stringify({
            error: {
              message: `bad credentials ${headers.get('authorization') ?? ''} ${headers.get('x-api-key') ?? ''} ${headers.get('x-auth-token') ?? ''} ${headers.get('x-team') ?? ''}`,
              type: 'invalid_request_error',
            },
          }),
          { status: 401, headers: { 'content-type': 'application/json' } },
        ),
    );
    const client = createProviderRegistry({
      env: { CORP_KEY: 'sk-corp-secret' },
      fetch,
      model: { maxRetries: 0 },
    })('corp', 'big', declared);
    expect(client.id).toBe('corp:big');
    const answer = await client.call(REQUEST, CONTEXT);
    expect(answer.ok).toBe(false);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('https://llm.corp.example/v1/chat/completions');
    expect(seen[0]?.headers.get('authorization')).toBe('Bearer sk-corp-secret');
    expect((seen[0]?.body as { model: string }).model).toBe('big');
    // The refusal's own sentence is shown (a 4xx), with the key and the credential-like header
    // values (…key…, …token…) masked; a header named otherwise is not a secret.
    expect(answer).toEqual({
      ok: false,
      message: 'corp:big: HTTP 401 Unauthorized: bad credentials Bearer *** *** *** team-blue',
      detail: 'corp:big: HTTP 401 bad credentials Bearer *** *** *** team-blue',
    });
  });

  it('declarations given to the registry are merged under those passed per call', async () => {
    const { fetch, seen } = fakeFetch(() => new Response('{}', { status: 500 }));
    const registry = createProviderRegistry({
      env: { CORP_KEY: 'k-1234' },
      fetch,
      model: { maxRetries: 0 },
      flowProviders: {
        corp: { type: 'openai-compatible', baseURL: 'https://registry.example/v1' },
        other: { type: 'openai-compatible', baseURL: 'https://other.example/v1' },
      },
    });
    await registry('corp', 'm', declared).call(REQUEST, CONTEXT);
    await registry('other', 'm').call(REQUEST, CONTEXT);
    expect(seen.map((s) => s.url)).toEqual([
      'https://llm.corp.example/v1/chat/completions',
      'https://other.example/v1/chat/completions',
    ]);
    expect(seen[1]?.headers.get('authorization')).toBeNull();
  });

  it('checks the adapter settings of the environment at resolution, naming the model', () => {
    const registry = createProviderRegistry({
      env: { CORP_KEY: 'k', AGENT_RUNTIME_MODEL_TIMEOUT_MS: 'soon' },
    });
    expect(() => registry('corp', 'm', declared)).toThrow(
      new ModelError('CONFIG', 'corp:m: AGENT_RUNTIME_MODEL_TIMEOUT_MS must be an integer ≥ 1 (got "soon")'),
    );
  });
});
