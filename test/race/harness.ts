/**
 * The race suite's shared parts (docs/durability.md, "Cancel and shutdown racing a write"): a seeded
 * random source, a world per trial (a folder with the race-cloud server's data and a SQLite store),
 * the trigger "the write is in flight" read from the store, and the checks made after every trial.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';
import { fingerprint } from '../../src/domain/fingerprint.js';
import type { RunRecord, Store, StoredEvent } from '../../src/store/store.js';
import { idempotencyKey } from '../../src/tools/guards/keys.js';

/** The fixtures: race-cloud.js, flow.yaml, turns.yaml. */
export const FIXTURES = resolve(import.meta.dirname, 'fixtures');
export const FLOW = join(FIXTURES, 'flow.yaml');

/** Trials per path: env RACE_TRIALS (the longer run: 50), else `quick` (the seeded set of `npm test`). */
export function trials(quick: number): number {
  const n = Number(process.env.RACE_TRIALS);
  return Number.isInteger(n) && n > 0 ? n : quick;
}

/** The seed: env RACE_SEED, else a fixed one (so `npm test` is repeatable). */
export const SEED = Number(process.env.RACE_SEED ?? 16016);

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A whole number in [min, max] from `next`. */
export function between(next: () => number, min: number, max: number): number {
  return min + Math.floor(next() * (max - min + 1));
}

/** One trial's folder: the server's data (its write log) and the store. */
export interface World {
  dir: string;
  db: string;
}

/** A fresh trial folder under `root`, with the write latency the server applies. */
export function world(root: string, writeMs: number): World {
  const dir = mkdtempSync(join(root, 't-'));
  writeFileSync(join(dir, 'delay-ms'), String(writeMs));
  return { dir, db: `sqlite:${join(dir, 'runtime.db')}` };
}

/** A root folder for a test file's trials. */
export function rootDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `race-${name}-`));
}

/** The writes the server executed (its log), as `{name, key}`. */
export function executedWrites(dir: string): { name: string; key: string | null }[] {
  const file = join(dir, 'writes.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { name: string; key: string | null });
}

/** Polls the store until `test` holds for the run (or `timeoutMs` passes: then it throws). */
export async function until(
  store: Store,
  runId: string,
  test: (record: RunRecord) => boolean,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await store.getRun(runId);
    if (record && test(record)) return;
    if (Date.now() > deadline)
      throw new Error(
        `run ${runId}: the awaited state did not come within ${timeoutMs} ms (${record?.status})`,
      );
    await new Promise((r) => setTimeout(r, 3));
  }
}

/**
 * The trigger "the approved write is in flight" (its mark committed), or already past it (the run
 * waits for the next approval, or ended).
 */
export const inFlight = (record: RunRecord): boolean => {
  if (record.state.run.inFlight.length > 0) return true;
  if (record.status === 'suspended') return pendingName(record) === 'b';
  return record.status !== 'running';
};

/** The trigger "the approval was taken" (the run left its first suspension). */
export const resumed = (record: RunRecord): boolean =>
  record.status !== 'suspended' || pendingName(record) === 'b';

function pendingName(record: RunRecord): unknown {
  return (record.suspension as { pending?: { args?: { name?: unknown } } } | null)?.pending?.args?.name;
}

/** What one trial came to, for the suite's totals. */
export interface TrialResult {
  executed: number;
  recordedDirectly: number;
  recordedByLookBack: number;
  status: string;
}

/**
 * The checks after every trial: every write the server executed for this run has exactly one
 * `tool.invoked` with `executed: true` and one evidence record (its own, or its look-back's), no
 * write ran twice, no write is recorded that did not run, and no in-flight mark is left behind.
 * `cancelled`: the run ended cancelled, with `run.cancelled` its last event.
 */
export async function checkTrial(
  store: Store,
  runId: string,
  dir: string,
  expectStatus: string[],
): Promise<TrialResult> {
  const record = await store.getRun(runId);
  if (!record) throw new Error(`run ${runId} is missing`);
  const events = await store.events(runId);
  const evidence = await store.evidence(runId);
  const result: TrialResult = {
    executed: 0,
    recordedDirectly: 0,
    recordedByLookBack: 0,
    status: record.status,
  };
  const writes = executedWrites(dir);
  for (const name of ['a', 'b']) {
    const key = idempotencyKey(runId, fingerprint('site_create', { name }));
    const executed = writes.filter((w) => w.key === key);
    expect(executed.length, `write ${name} executed more than once`).toBeLessThanOrEqual(1);
    const invoked = events.filter(
      (e) => isInvoked(e, 'site_create', name) && e.executed === true && e.lookBack === false,
    );
    expect(invoked.length, `write ${name}: executed ${executed.length}×, recorded ${invoked.length}×`).toBe(
      executed.length,
    );
    const own = evidence.filter((r) => r.tool === 'site_create' && r.args.name === name);
    const looked = evidence.filter((r) => r.tool === 'site_find' && r.args.name === name);
    expect(own.length + looked.length, `write ${name}: evidence records`).toBe(executed.length);
    result.executed += executed.length;
    result.recordedDirectly += own.length;
    result.recordedByLookBack += looked.length;
  }
  expect(record.state.run.inFlight, 'in-flight marks left').toEqual([]);
  expect(expectStatus, `status of ${runId}`).toContain(record.status);
  if (record.status === 'cancelled') {
    expect(events.at(-1)?.type).toBe('run.cancelled');
    expect(events.filter((e) => e.type === 'run.cancelled')).toHaveLength(1);
  }
  return result;
}

function isInvoked(
  e: StoredEvent,
  tool: string,
  name: string,
): e is StoredEvent & { executed: boolean; lookBack: boolean } {
  const args = (e as { args?: { name?: unknown } }).args;
  return e.type === 'tool.invoked' && (e as { tool?: string }).tool === tool && args?.name === name;
}

/** Adds a trial's result to the totals printed at the end of a file (for docs/durability.md). */
export function tally(totals: Record<string, number>, r: TrialResult): void {
  totals.trials = (totals.trials ?? 0) + 1;
  totals.executed = (totals.executed ?? 0) + r.executed;
  totals.recordedDirectly = (totals.recordedDirectly ?? 0) + r.recordedDirectly;
  totals.recordedByLookBack = (totals.recordedByLookBack ?? 0) + r.recordedByLookBack;
  totals[`status_${r.status}`] = (totals[`status_${r.status}`] ?? 0) + 1;
}

/** Waits until the run's lease has expired (its holder stopped; a takeover may start). */
export async function leaseExpired(store: Store, runId: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await store.getRun(runId);
    if (!record || record.leaseExpiresAt === null || record.leaseExpiresAt <= Date.now()) return;
    if (Date.now() > deadline)
      throw new Error(`run ${runId}: its lease did not expire within ${timeoutMs} ms`);
    await new Promise((r) =>
      setTimeout(r, Math.max(1, Math.min(50, (record.leaseExpiresAt ?? 0) - Date.now()))),
    );
  }
}

/** A flows folder for `serve`: the race flow with absolute paths to its model and server. */
export function flowsDir(root: string): string {
  const dir = mkdtempSync(join(root, 'flows-'));
  const text = readFileSync(FLOW, 'utf8')
    .replace('scripted:./turns.yaml', `scripted:${join(FIXTURES, 'turns.yaml')}`)
    .replace('[./race-cloud.js]', `[${JSON.stringify(join(FIXTURES, 'race-cloud.js'))}]`);
  writeFileSync(join(dir, 'flow.yaml'), text);
  return dir;
}

/** A child process with its output lines and its exit. */
export interface Proc {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** The first line matching `pattern` (rejects when the process exits first or after 30 s). */
  line(pattern: RegExp): Promise<string>;
}

/** Watches a spawned process's output lines. */
export function watch(child: ChildProcess): Proc {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; done: (line: string) => void }[] = [];
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (l) => {
      lines.push(l);
      for (const w of waiters.filter((x) => x.pattern.test(l))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.done(l);
      }
    });
  }
  return {
    child,
    lines,
    exited,
    line(pattern) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line ${pattern}:\n${lines.join('\n')}`)), 30_000);
        waiters.push({ pattern, done: (l) => (clearTimeout(timer), resolveLine(l)) });
        void exited.then((code) =>
          reject(new Error(`exited (${code}) before ${pattern}:\n${lines.join('\n')}`)),
        );
      });
    },
  };
}

/** JSON over HTTP against `serve` (no tokens: loopback, every caller is admin). */
export async function api(
  url: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
