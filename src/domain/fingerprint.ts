import { hash } from 'node:crypto';

/** JSON with object keys sorted at every level, so key order and whitespace never matter. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    // What JSON.stringify would write for it (a Date: its ISO string), as the value is sent.
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return sortKeys(toJSON.call(value));
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/** The identity of a call: tool name plus canonical arguments, hashed (`web_site_create#3f2a…`). */
export function fingerprint(tool: string, args: unknown): string {
  const digest = hash('sha256', canonicalJson(args), 'hex').slice(0, 24);
  return `${tool}#${digest}`;
}
