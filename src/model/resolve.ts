import { isAbsolute, resolve } from 'node:path';
import { aiSdkModel } from './ai-sdk/adapter.js';
import { isLanguageModel, type AiSdkLanguageModel } from './ai-sdk/language-model.js';
import { loadScriptedModel } from './scripted.js';
import type { ModelClient } from './model.js';
import { createProviderRegistry, type FlowProviders, type ProviderResolver } from './providers.js';

/** A model as a caller may give it: a `<provider>:<model id>` string, a ModelClient or an AI SDK language model. */
export type ModelSpec = string | ModelClient | AiSdkLanguageModel;

/** True for a model object: a ModelClient or an AI SDK language model (README.md), i.e. not a model name. */
export function isModelClient(value: unknown): value is ModelClient | AiSdkLanguageModel {
  if (isLanguageModel(value)) return true;
  return typeof value === 'object' && value !== null && typeof (value as ModelClient).call === 'function';
}

/**
 * Makes a `scripted:` path absolute against `baseDir` (docs/cli.md: the run persists its model with the
 * path resolved against the current directory, or the flow's folder for a flow's own `model:`).
 */
export function absolutizeModel(spec: string, baseDir: string): string {
  if (!spec.startsWith('scripted:')) return spec;
  const file = spec.slice('scripted:'.length);
  return `scripted:${isAbsolute(file) ? file : resolve(baseDir, file)}`;
}

/** Splits `<provider>:<model id>`; throws a readable error for anything else. */
export function parseModelName(spec: string): { provider: string; modelId: string } {
  const at = spec.indexOf(':');
  if (at <= 0 || at === spec.length - 1) {
    throw new Error(
      `model ${JSON.stringify(spec)} is not of the form <provider>:<model id> (e.g. openai:gpt-4.1, scripted:turns.yaml)`,
    );
  }
  return { provider: spec.slice(0, at), modelId: spec.slice(at + 1) };
}

/**
 * Resolves a model to a client: an AI SDK language model is wrapped by `aiSdkModel`, a ModelClient is
 * used as is, `scripted:<file>` loads the file (at most `maxFileBytes`, default from the process's
 * environment), and any other `<provider>:<model id>` goes to `providers` (default:
 * `createProviderRegistry()` over `process.env`) with the flow's `providers:`. Throws a readable error
 * (e.g. ModelError CONFIG for a missing key) so that a run does not start.
 */
export function resolveModel(
  spec: ModelSpec,
  providers?: ProviderResolver,
  flowProviders?: FlowProviders,
  maxFileBytes?: number,
): ModelClient {
  if (isLanguageModel(spec)) return aiSdkModel(spec);
  if (typeof spec !== 'string') return spec;
  const { provider, modelId } = parseModelName(spec);
  if (provider === 'scripted') return loadScriptedModel(modelId, maxFileBytes);
  return (providers ?? createProviderRegistry())(provider, modelId, flowProviders);
}
