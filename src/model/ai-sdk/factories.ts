import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';

/** The provider families the runtime knows (docs/models/README.md). */
export type ProviderFamily = 'openai' | 'anthropic' | 'openai-compatible';

/** Everything needed to reach one provider; built by `resolveProviderSettings` (src/model/providers.ts). */
export interface ProviderSettings {
  /** The provider name as used in model names (`qwen` in `qwen:qwen-max`). */
  name: string;
  family: ProviderFamily;
  /** The API root, e.g. `https://api.openai.com/v1` (the SDK appends `/chat/completions`, `/messages`). */
  baseURL: string;
  /** Absent for endpoints without authentication (Ollama, a local vLLM). */
  apiKey?: string;
  headers: Record<string, string>;
}

/** A `fetch` implementation (tests and proxies may pass their own). */
export type FetchFunction = typeof globalThis.fetch;

/**
 * The AI SDK language model for a provider and a model id: OpenAI through Chat Completions
 * (`/chat/completions`, which OpenAI-style gateways behind `OPENAI_BASE_URL` also speak), Anthropic
 * through Messages, anything else through the OpenAI-compatible Chat Completions provider (with usage
 * requested in streams).
 */
export function createLanguageModel(
  settings: ProviderSettings,
  modelId: string,
  fetch?: FetchFunction,
): LanguageModelV4 {
  const common = {
    baseURL: settings.baseURL,
    headers: settings.headers,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(fetch ? { fetch } : {}),
  };
  switch (settings.family) {
    case 'openai':
      return createOpenAI(common).chat(modelId);
    case 'anthropic':
      return createAnthropic(common).messages(modelId);
    case 'openai-compatible':
      return createOpenAICompatible({ ...common, name: settings.name, includeUsage: true }).chatModel(
        modelId,
      );
  }
}
