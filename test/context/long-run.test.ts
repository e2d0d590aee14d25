/**
 * Issue 20's "done when": a node of 200 rounds over a tool returning 20 KB per call, with a context
 * budget of 32k tokens. Every request the model receives is measured (the child's meter uses the
 * runtime's own estimator, src/loop/context-budget.ts); the node completes with an output citing the
 * evidence of round 3 (re-read with builtin_evidence_read after compaction); and a run crashed in
 * the middle and resumed by another process sends byte-identical requests to an uninterrupted run.
 * Every run is a real child process on a real SQLite file, through the built package.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, NODE, REPO_ROOT } from '../acceptance/build.js';
import { tempDir } from '../runtime/helpers.js';

const run = promisify(execFile);
const CHILD = join(REPO_ROOT, 'test/context/long-run-child.mjs');
const BUDGET = 32_000;
const CRASH_AT = 120;

interface Recorded {
  callIndex: number;
  tokens: number;
  request: string;
}

interface ChildResult {
  runId: string;
  code: number;
  summary?: {
    status: string;
    outputs: Record<string, Record<string, unknown>>;
    reason?: string;
    message?: string;
  };
  compacted: { before: number; after: number; round: number; budget: number }[];
  requests: Recorded[];
}

async function child(config: Record<string, unknown>): Promise<ChildResult> {
  const out = join(tempDir('long-run-'), 'requests.jsonl');
  let stdout: string;
  let code = 0;
  try {
    ({ stdout } = await run(NODE, [CHILD, JSON.stringify({ ...config, out })], { maxBuffer: 1 << 26 }));
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    code = failed.code;
    stdout = failed.stdout ?? '';
    if (code !== 7) throw new Error(`child exited ${code}: ${failed.stderr ?? ''}`, { cause: error });
  }
  const lines = stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const started = lines.find((l) => typeof l.runId === 'string');
  const last = lines.find((l) => 'summary' in l) as Pick<ChildResult, 'summary' | 'compacted'> | undefined;
  const requests = readFileSync(out, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Recorded);
  return {
    runId: (started?.runId as string | undefined) ?? (config.runId as string),
    code,
    ...(last?.summary ? { summary: last.summary } : {}),
    compacted: last?.compacted ?? [],
    requests,
  };
}

describe('long runs stay inside the context budget (issue 20)', () => {
  let clean: ChildResult;
  let crashed: ChildResult;
  let resumed: ChildResult;

  beforeAll(async () => {
    ensureBuilt();
    const dir = tempDir('long-run-db-');
    clean = await child({ db: join(dir, 'clean.db'), mode: 'start' });
    crashed = await child({ db: join(dir, 'crashed.db'), mode: 'start', crashAt: CRASH_AT });
    resumed = await child({ db: join(dir, 'crashed.db'), mode: 'resume', runId: crashed.runId });
  }, 600_000);

  it('completes 200 rounds with every request within the 32k-token budget', () => {
    expect(clean.summary?.status).toBe('completed');
    expect(clean.requests).toHaveLength(200);
    const largest = Math.max(...clean.requests.map((r) => r.tokens));
    expect(largest).toBeLessThanOrEqual(BUDGET);
    // Without compaction the conversation would have grown far past the budget (20 KB a round).
    expect(clean.compacted.length).toBeGreaterThan(0);
    for (const c of clean.compacted) {
      expect(c.before).toBeGreaterThan(BUDGET);
      expect(c.after).toBeLessThanOrEqual(BUDGET);
      expect(c.budget).toBe(BUDGET);
    }
  });

  it('completes with an output citing the evidence of round 3, re-read after compaction', () => {
    expect(clean.summary?.outputs).toEqual({ read: { marker: 'marker-3' } });
    const last = JSON.parse(clean.requests.at(-1)?.request ?? '{}') as {
      messages: { role: string; content?: string }[];
      tools: { name: string }[];
      maxOutputTokens?: number;
    };
    // Round 3's own result is long gone from the conversation; builtin_evidence_read brought back its marker.
    expect(last.tools.map((t) => t.name)).toContain('builtin_evidence_read');
    const read = last.messages.filter((m) => m.role === 'tool' && m.content?.includes('(evidence: ev_3)'));
    expect(read.at(-1)?.content).toContain('\nmarker-3');
    expect(last.messages.some((m) => m.content?.includes('page 3 row 0'))).toBe(false);
    expect(last.maxOutputTokens).toBe(1024);
  });

  it('a run crashed mid-way and resumed in another process sends byte-identical requests', () => {
    expect(crashed.code).toBe(7);
    expect(resumed.summary?.status).toBe('completed');
    expect(resumed.summary?.outputs).toEqual(clean.summary?.outputs);
    const byIndex = new Map(clean.requests.map((r) => [r.callIndex, r.request]));
    const sent = [...crashed.requests, ...resumed.requests];
    // The crashed call is asked again by the resumed process.
    expect(sent.map((r) => r.callIndex)).toEqual([
      ...Array.from({ length: CRASH_AT + 1 }, (_, i) => i),
      ...Array.from({ length: 200 - CRASH_AT }, (_, i) => CRASH_AT + i),
    ]);
    for (const r of sent) expect(r.request === byIndex.get(r.callIndex), `request ${r.callIndex}`).toBe(true);
    expect(resumed.compacted.map((c) => [c.round, c.before, c.after])).toEqual(
      clean.compacted.map((c) => [c.round, c.before, c.after]),
    );
  });
});
