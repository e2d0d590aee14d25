import { isAbsolute, resolve } from 'node:path';
import { loadScriptedModel } from './scripted.js';
import type { ModelClient } from './model.js';

/** A model as a caller may give it: a `<provider>:<model id>` string or a model object. */
export type ModelSpec = string | ModelClient;

/** True for a ModelClient object. */
export function isModelClient(value: unknown): value is ModelClient {
  return typeof value === 'object' && value !== null && typeof (value as ModelClient).call === 'function';
}

/**
 * Makes a `scripted:` path absolute against `baseDir` (SPEC §10: the run persists its model with the
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
    throw new Error(`model ${JSON.stringify(spec)} is not of the form <provider>:<model id> (e.g. openai:gpt-4.1, scripted:turns.yaml)`);
  }
  return { provider: spec.slice(0, at), modelId: spec.slice(at + 1) };
}

/** Resolves a model string to a client (scripted files here; provider models through the provider registry). */
export function resolveModel(spec: ModelSpec, providers?: (provider: string, modelId: string) => ModelClient): ModelClient {
  if (isModelClient(spec)) return spec;
  const { provider, modelId } = parseModelName(spec);
  if (provider === 'scripted') return loadScriptedModel(modelId);
  if (!providers) {
    throw new Error(`model ${spec}: provider models (${provider}) are not available in this build; use a scripted: model`);
  }
  return providers(provider, modelId);
}
