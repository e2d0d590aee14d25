import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, NODE, REPO_ROOT } from '../acceptance/build.js';
import { tempDir } from '../runtime/helpers.js';

const run = promisify(execFile);
const CHILD = join(REPO_ROOT, 'test/crash/code-node-child.mjs');

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

describe('a code node killed with SIGKILL', () => {
  it('is resumed by a fresh runtime, completes, and no tool call it or an earlier node made runs again', async () => {
    const dir = tempDir('code-crash-');
    const db = join(dir, 'runs.db');
    const log = join(dir, 'executed.jsonl');
    const killed = await child({ mode: 'start', db, log, crash: true });
    expect(killed.signal).toBe('SIGKILL');
    const runId = killed.lines.find((l) => typeof l.runId === 'string')?.runId;
    expect(typeof runId).toBe('string');
    const executed = () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => (JSON.parse(l) as { args: { item: string } }).args.item)
        : [];
    // plan's call, look's call and sum's call all ran before the kill inside sum.
    expect(executed()).toEqual(['fig', 'banana', 'kiwi']);

    const resumed = await child({ mode: 'resume', db, log, runId });
    expect(resumed.signal).toBeNull();
    const summary = resumed.lines.find((l) => 'summary' in l)?.summary as {
      status: string;
      outputs: Record<string, Record<string, unknown>>;
    };
    expect(summary.status).toBe('completed');
    expect(summary.outputs.sum).toEqual({ total: 30 + 60 + 40 });
    expect(executed()).toEqual(['fig', 'banana', 'kiwi']);
  });
});
