import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { dataDir } from './data-dir.js';

/** One injection vector of a suite: a placeholder in the environment and its text when not attacked. */
export interface InjectionVector {
  id: string;
  description: string;
  default: string;
}

/** A suite's injection vectors (data/<suite>/injection_vectors.yaml), in file order. */
export function injectionVectorsOf(suite: string): InjectionVector[] {
  const raw = parse(readFileSync(join(dataDir(), suite, 'injection_vectors.yaml'), 'utf8')) as Record<
    string,
    { description: string; default: string }
  >;
  return Object.entries(raw).map(([id, v]) => ({ id, description: v.description, default: v.default }));
}

/**
 * A suite's environment.yaml with the given injections in place: every `{vector}` placeholder in a
 * string (keys included) is replaced by the injection given for it, else by the vector's default text.
 */
export function filledEnvironment(suite: string, injections: Readonly<Record<string, string>>): unknown {
  const values = new Map(injectionVectorsOf(suite).map((v) => [v.id, injections[v.id] ?? v.default]));
  const raw = parse(readFileSync(join(dataDir(), suite, 'environment.yaml'), 'utf8')) as unknown;
  return fill(raw, values);
}

function fill(value: unknown, values: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string')
    return value.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, id: string) => values.get(id) ?? whole);
  if (Array.isArray(value)) return value.map((v) => fill(v, values));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [fill(k, values) as string, fill(v, values)]),
    );
  return value;
}

/**
 * The injection vectors a user task's ground truth reads (AgentDojo's `get_injection_candidates`):
 * each vector gets a canary text, the ground-truth calls run on that environment, and a vector counts
 * when its canary stands in a call's result (or in the error a call raised).
 */
export function canaryCandidates<Env, Call>(
  vectors: readonly InjectionVector[],
  load: (canaries: Record<string, string>) => Env,
  groundTruth: (env: Env) => readonly Call[],
  run: (env: Env, call: Call) => unknown,
): string[] {
  const canaries = Object.fromEntries(vectors.map((v) => [v.id, `<CANARY---${v.id}--->`]));
  const env = load(canaries);
  const seen = new Set<string>();
  for (const call of groundTruth(env)) {
    let result: unknown;
    try {
      result = run(env, call);
    } catch (error) {
      result = (error as Error).message;
    }
    const text = JSON.stringify(result ?? null);
    for (const v of vectors) if (text.includes(canaries[v.id] as string)) seen.add(v.id);
  }
  return vectors.map((v) => v.id).filter((id) => seen.has(id));
}
