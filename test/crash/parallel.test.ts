import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, NODE, REPO_ROOT } from '../acceptance/build.js';
import { tempDir } from '../runtime/helpers.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
afterAll(async () => {
  if (available) await schemas.dropAll();
});

const run = promisify(execFile);
const CHILD = join(REPO_ROOT, 'test/crash/parallel-child.mjs');

interface Child {
  signal: string | null;
  lines: Record<string, unknown>[];
}

async function child(config: Record<string, unknown>): Promise<Child> {
  try {
    const { stdout } = await run(NODE, [CHILD, JSON.stringify(config)]);
    return { signal: null, lines: parse(stdout) };
  } catch (error) {
    const failed = error as { signal?: string | null; stdout?: string; stderr?: string };
    if (failed.signal !== 'SIGKILL')
      throw new Error(`child failed: ${failed.stderr ?? ''}`, { cause: error });
    return { signal: failed.signal, lines: parse(failed.stdout ?? '') };
  }
}

function parse(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(() => ensureBuilt(), 300_000);

/**
 * Kills a run of plan → [left, right] → sum inside sum (SIGKILL, after both branches committed), then
 * resumes it with a fresh process on the same store: it completes with the sum, and neither branch's
 * 400 ms tool ran again.
 */
async function crashInsideJoin(store: string): Promise<void> {
  const dir = tempDir('parallel-crash-');
  const log = join(dir, 'executed.jsonl');
  const killed = await child({ mode: 'start', store, log, crash: true });
  expect(killed.signal).toBe('SIGKILL');
  const runId = killed.lines.find((l) => typeof l.runId === 'string')?.runId;
  expect(typeof runId).toBe('string');
  const executed = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { x: number; start: number; end: number })
      : [];
  const before = executed();
  expect(before.map((c) => c.x).sort()).toEqual([2, 3]);
  const [first, second] = [...before].sort((p, q) => p.start - q.start);
  expect(second?.start ?? Infinity).toBeLessThan(first?.end ?? 0); // the branches' calls overlapped

  const resumed = await child({ mode: 'resume', store, log, runId });
  expect(resumed.signal).toBeNull();
  const summary = resumed.lines.find((l) => 'summary' in l)?.summary as {
    status: string;
    outputs: Record<string, Record<string, unknown>>;
  };
  expect(summary.status).toBe('completed');
  expect(summary.outputs.sum).toEqual({ total: 5 });
  expect(executed()).toEqual(before);
}

describe('parallel branches killed with SIGKILL inside the join', () => {
  it('on SQLite: a fresh runtime resumes the run, completes it, and no branch tool runs again', async () => {
    await crashInsideJoin(`sqlite:${join(tempDir('parallel-db-'), 'runs.db')}`);
  });
});

describe.runIf(available)('parallel branches killed with SIGKILL inside the join (PostgreSQL server)', () => {
  it('a fresh runtime resumes the run, completes it, and no branch tool runs again', async () => {
    await crashInsideJoin(schemas.urlFor(schemas.next('crash')));
  });
});
