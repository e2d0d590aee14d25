import { deepFreeze } from '../domain/frozen.js';
import { LRUCache } from 'lru-cache';
import { loadFlow, type LoadedFlow, type LoadFlowOptions } from './load.js';

/**
 * Flows given to `start` as objects, loaded once per content: the flow is parsed, validated and its
 * schemas and expressions checked the first time, and every later start of the same content (the
 * same JSON text) reuses the loaded flow, across runs and runtimes. The cache is bounded by bytes
 * (the JSON text of its keys, FLOW_CACHE_BYTES in all), so it never grows without end. A flow that
 * names delegate flow files is loaded afresh every time (those files may change on disk), and so is
 * one whose content is not plain JSON data (a code flow with zod output schemas): a key from its
 * JSON text would not say all of it.
 */

/** What the cached flows' keys may take in all (UTF-16 code units count as 2 bytes). */
export const FLOW_CACHE_BYTES = 8 * 1024 * 1024;

const cache = new LRUCache<string, LoadedFlow>({
  maxSize: FLOW_CACHE_BYTES,
  sizeCalculation: (_value, key) => Math.max(1, key.length * 2),
});

/**
 * `loadFlow(source, options)`, from the cache when the same content was loaded before. `options` may
 * only cap the files read (`maxFileBytes`): those are a flow's delegates, and such a flow is never cached.
 */
export async function loadFlowOnce(
  source: object,
  options: Pick<LoadFlowOptions, 'maxFileBytes'> = {},
): Promise<LoadedFlow> {
  const key = contentKey(source);
  if (key === null) return loadFlow(source, options);
  const known = cache.get(key);
  if (known) return known;
  const loaded = await loadFlow(source, options);
  // Shared by every run of this content: frozen, so that no run can change another's flow.
  cache.set(key, deepFreeze(loaded));
  return loaded;
}

/** The cache key of a flow object: its JSON text, or null when that would not say all of it. */
function contentKey(source: object): string | null {
  let plain = true;
  let text: string;
  try {
    text = JSON.stringify(source, (key, value: unknown) => {
      if (key === 'delegates') plain = false;
      if (value !== null && typeof value === 'object') {
        const proto = Object.getPrototypeOf(value) as unknown;
        if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) plain = false;
      } else if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
        plain = false;
      }
      return value;
    });
  } catch {
    return null;
  }
  // Where relative paths resolve (the current directory) is part of what a load means.
  return plain && typeof text === 'string' ? `${process.cwd()}\n${text}` : null;
}
