import type {
  LanguageModelV2,
  LanguageModelV3,
  LanguageModelV4,
  LanguageModelV4CallOptions,
} from '@ai-sdk/provider';

/**
 * An AI SDK language model object (README.md: `model` accepts any): what `openai.chat('gpt-4.1')`,
 * `anthropic('claude-…')`, `createOpenAICompatible(…)(id)` or a community provider returns. The
 * current specification is v4 (AI SDK 7); v3 and v2 models are accepted too.
 */
export type AiSdkLanguageModel = LanguageModelV4 | LanguageModelV3 | LanguageModelV2;

/**
 * The part of a language model the adapter uses, read structurally: for text, client-side tool calls,
 * tool results and usage, v2, v3 and v4 call options and results have the same shape.
 */
export interface CallableLanguageModel {
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: LanguageModelV4CallOptions): PromiseLike<{ content: unknown[]; usage: unknown }>;
  doStream(options: LanguageModelV4CallOptions): PromiseLike<{ stream: ReadableStream<unknown> }>;
}

const VERSIONS = new Set(['v2', 'v3', 'v4']);

/** True for an AI SDK language model object (a `specificationVersion` we support and `doGenerate`/`doStream`). */
export function isLanguageModel(value: unknown): value is AiSdkLanguageModel {
  if (typeof value !== 'object' || value === null) return false;
  const model = value as Partial<Record<'specificationVersion' | 'doGenerate' | 'doStream', unknown>>;
  return (
    typeof model.specificationVersion === 'string' &&
    VERSIONS.has(model.specificationVersion) &&
    typeof model.doGenerate === 'function' &&
    typeof model.doStream === 'function'
  );
}

/** The model as the adapter calls it (see CallableLanguageModel for why one view fits all versions). */
export function callable(model: AiSdkLanguageModel): CallableLanguageModel {
  return model as unknown as CallableLanguageModel;
}
