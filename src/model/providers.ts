import type { ProviderConfig } from '../domain/flow.js';
import { aiSdkModel, type AiSdkModelOptions } from './ai-sdk/adapter.js';
import { createLanguageModel, type FetchFunction, type ProviderSettings } from './ai-sdk/factories.js';
import { ModelError } from './errors.js';
import type { ModelClient } from './model.js';

/** An environment to read keys and settings from (default `process.env`). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A flow's `providers:` section (docs/flows.md). */
export type FlowProviders = Readonly<Record<string, ProviderConfig>>;

/**
 * Resolves `<provider>:<model id>` to a client. The runtime passes the flow's `providers:` as the
 * third argument; a resolver may throw (e.g. ModelError CONFIG) and the run then does not start.
 */
export type ProviderResolver = (
  provider: string,
  modelId: string,
  flowProviders?: FlowProviders,
) => ModelClient;

/** Options of `createProviderRegistry`. */
export interface ProviderRegistryOptions {
  /** Where keys and settings come from (default `process.env`). */
  env?: Env;
  /** Providers declared by a flow; merged under those the runtime passes per call. */
  flowProviders?: FlowProviders;
  /** Adapter options; they take precedence over the AGENT_RUNTIME_MODEL_* environment settings. */
  model?: AiSdkModelOptions;
  /** A `fetch` for every provider (tests, proxies). */
  fetch?: FetchFunction;
}

const OPENAI_URL = 'https://api.openai.com/v1';
const ANTHROPIC_URL = 'https://api.anthropic.com/v1';

/**
 * Model selection (docs/models/README.md) on the AI SDK. `openai` and `anthropic` exist without declaration
 * (OPENAI_API_KEY / ANTHROPIC_API_KEY required; OPENAI_BASE_URL / ANTHROPIC_BASE_URL override the
 * API root, which includes `/v1`). Any other name is an OpenAI-compatible endpoint declared in the
 * flow's `providers:` or by AGENT_RUNTIME_PROVIDER_<NAME>_BASE_URL (and _API_KEY). The returned
 * resolver throws ModelError CONFIG for an unknown provider or a missing key, so the error comes
 * before the run starts. Adapter tuning from the environment: AGENT_RUNTIME_MODEL_TIMEOUT_MS,
 * AGENT_RUNTIME_MODEL_MAX_RETRIES, AGENT_RUNTIME_MODEL_STREAM (`1`/`true`), AGENT_RUNTIME_MODEL_PROMPT_CACHE
 * (`0`/`false` turns Anthropic cache breakpoints off).
 */
export function createProviderRegistry(options: ProviderRegistryOptions = {}): ProviderResolver {
  const env = options.env ?? process.env;
  return (provider, modelId, flowProviders) => {
    const declared = { ...options.flowProviders, ...flowProviders };
    const settings = resolveProviderSettings(provider, modelId, env, declared);
    const tuning = { ...modelOptionsFromEnv(env, `${provider}:${modelId}`), ...options.model };
    const secrets = [settings.apiKey, ...secretHeaderValues(settings.headers)].filter(
      (s): s is string => s !== undefined,
    );
    return aiSdkModel(createLanguageModel(settings, modelId, options.fetch), {
      ...tuning,
      id: `${provider}:${modelId}`,
      secrets: [...secrets, ...(tuning.secrets ?? [])],
    });
  };
}

/**
 * How to reach a provider (docs/models/README.md), or a ModelError CONFIG saying what is missing. A flow declaration
 * wins over the built-in `openai` / `anthropic`; for a declared provider AGENT_RUNTIME_PROVIDER_<NAME>_BASE_URL
 * overrides its `baseURL`, and the key is `apiKeyEnv`'s variable, else AGENT_RUNTIME_PROVIDER_<NAME>_API_KEY.
 */
export function resolveProviderSettings(
  provider: string,
  modelId: string,
  env: Env,
  declared: FlowProviders = {},
): ProviderSettings {
  const model = `model ${provider}:${modelId}`;
  const prefix = providerEnvPrefix(provider);
  const flowConfig = Object.hasOwn(declared, provider) ? declared[provider] : undefined;
  if (flowConfig) {
    const keyVars = [...(flowConfig.apiKeyEnv ? [flowConfig.apiKeyEnv] : []), `${prefix}_API_KEY`];
    const apiKey = firstSet(env, keyVars);
    if (flowConfig.apiKeyEnv && apiKey === undefined) {
      throw new ModelError(
        'CONFIG',
        `${model}: ${flowConfig.apiKeyEnv} is not set (the flow's providers.${provider}.apiKeyEnv)`,
      );
    }
    const baseURL = checkedUrl(model, `${prefix}_BASE_URL`, env[`${prefix}_BASE_URL`]) ?? flowConfig.baseURL;
    return compatible(provider, baseURL.replace(/\/+$/, ''), apiKey, flowConfig.headers ?? {});
  }
  if (provider === 'openai' || provider === 'anthropic') return builtIn(provider, model, env);
  const baseURL = checkedUrl(model, `${prefix}_BASE_URL`, env[`${prefix}_BASE_URL`]);
  if (baseURL === undefined) {
    throw new ModelError(
      'CONFIG',
      `${model}: unknown provider "${provider}": declare it in the flow's providers: ` +
        `(${provider}: { type: openai-compatible, baseURL: …, apiKeyEnv: … }) or set ${prefix}_BASE_URL (and ${prefix}_API_KEY); ` +
        'openai and anthropic are built in',
    );
  }
  return compatible(provider, baseURL, firstSet(env, [`${prefix}_API_KEY`]), {});
}

/** The environment prefix of a provider's settings: `qwen` → `AGENT_RUNTIME_PROVIDER_QWEN`, `my-llm` → `…_MY_LLM`. */
export function providerEnvPrefix(provider: string): string {
  return `AGENT_RUNTIME_PROVIDER_${provider.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** Adapter tuning from AGENT_RUNTIME_MODEL_TIMEOUT_MS / _MAX_RETRIES / _STREAM / _PROMPT_CACHE; throws ModelError CONFIG for bad values. */
export function modelOptionsFromEnv(env: Env, model = 'model'): AiSdkModelOptions {
  const options: AiSdkModelOptions = {};
  const timeout = env.AGENT_RUNTIME_MODEL_TIMEOUT_MS;
  if (timeout !== undefined && timeout !== '')
    options.timeoutMs = integer(model, 'AGENT_RUNTIME_MODEL_TIMEOUT_MS', timeout, 1);
  const retries = env.AGENT_RUNTIME_MODEL_MAX_RETRIES;
  if (retries !== undefined && retries !== '')
    options.maxRetries = integer(model, 'AGENT_RUNTIME_MODEL_MAX_RETRIES', retries, 0);
  const stream = flag(model, 'AGENT_RUNTIME_MODEL_STREAM', env);
  if (stream !== undefined) options.stream = stream;
  const cache = flag(model, 'AGENT_RUNTIME_MODEL_PROMPT_CACHE', env);
  if (cache !== undefined) options.promptCache = cache;
  return options;
}

function flag(model: string, variable: string, env: Env): boolean | undefined {
  const value = env[variable]?.trim().toLowerCase();
  if (value === undefined || value === '') return undefined;
  if (!['1', 'true', '0', 'false'].includes(value)) {
    throw new ModelError(
      'CONFIG',
      `${model}: ${variable} must be 1, true, 0 or false (got ${JSON.stringify(value)})`,
    );
  }
  return value === '1' || value === 'true';
}

function builtIn(provider: 'openai' | 'anthropic', model: string, env: Env): ProviderSettings {
  const keyVar = provider === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY';
  const urlVar = provider === 'openai' ? 'OPENAI_BASE_URL' : 'ANTHROPIC_BASE_URL';
  const apiKey = firstSet(env, [keyVar]);
  if (apiKey === undefined) throw new ModelError('CONFIG', `${model}: ${keyVar} is not set`);
  const baseURL =
    checkedUrl(model, urlVar, env[urlVar]) ?? (provider === 'openai' ? OPENAI_URL : ANTHROPIC_URL);
  return { name: provider, family: provider, baseURL, apiKey, headers: {} };
}

function compatible(
  name: string,
  baseURL: string,
  apiKey: string | undefined,
  headers: Record<string, string>,
): ProviderSettings {
  return { name, family: 'openai-compatible', baseURL, headers, ...(apiKey !== undefined ? { apiKey } : {}) };
}

/** Values of headers that look like credentials (authorization, …key…, …token…, …secret…). */
function secretHeaderValues(headers: Record<string, string>): string[] {
  return Object.entries(headers)
    .filter(([name]) => /authorization|key|token|secret/i.test(name))
    .map(([, value]) => value);
}

function firstSet(env: Env, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

function checkedUrl(model: string, variable: string, value: string | undefined): string | undefined {
  const url = value?.trim();
  if (!url) return undefined;
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    throw new ModelError('CONFIG', `${model}: ${variable} is not an http(s) URL: ${JSON.stringify(url)}`);
  }
  return url.replace(/\/+$/, '');
}

function integer(model: string, variable: string, raw: string, min: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new ModelError(
      'CONFIG',
      `${model}: ${variable} must be an integer ≥ ${min} (got ${JSON.stringify(raw)})`,
    );
  }
  return value;
}
