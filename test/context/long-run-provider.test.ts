/**
 * Issue 20's "done when", through real provider paths: the node of 200 rounds over a tool returning
 * 20 KB per call with a 32k-token context budget runs in a child process (SQLite file, built package)
 * whose model is `anthropic:`, `openai:` or an OpenAI-compatible `qwen:` server through the provider registry and the AI SDK, against a
 * strict provider fake (test/providers/strict-fake.ts) in this process. The fake refuses what the real
 * API refuses, measures every request body on its own (`approximateTokens`: bytes of the JSON body / 3,
 * independent of the runtime's estimator) and reports that measure as the input tokens. Every request
 * must be accepted and within the budget; the node completes with an output citing the evidence of
 * round 3; and a run whose process is killed while a model call is in flight (SIGKILL from the fake,
 * with the request received and no answer sent), resumed by another process, sends byte-identical
 * request bodies to those of an uninterrupted run.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, NODE, REPO_ROOT } from '../acceptance/build.js';
import type { Turn } from '../../src/testing/fake-model/wire.js';
import { providerSetup } from '../providers/play.js';
import {
  startStrictFake,
  type FakeKind,
  type Play,
  type StrictFake,
} from '../../src/testing/fake-model/server.js';
import { tempDir } from '../runtime/helpers.js';

const CHILD = join(REPO_ROOT, 'test/context/long-run-provider-child.mjs');
const ROUNDS = 200;
const BUDGET = 32_000;
const CRASH_AT = 120;

type Json = Record<string, unknown>;

interface ChildResult {
  runId: string | null;
  signal: NodeJS.Signals | null;
  summary?: { status: string; outputs: Record<string, Record<string, unknown>>; message?: string };
  compacted: { before: number; after: number; round: number; budget: number }[];
}

const call = (n: number, name: string, args: unknown): Turn => ({
  calls: [{ id: `call_${n}`, name, args: JSON.stringify(args) }],
  usage: { input: 0, output: 20 },
});

/** The model's i-th answer: pages 1..197, then re-read round 3's marker, cite it, finish. */
function turn(i: number): Turn {
  const n = i + 1;
  if (n <= ROUNDS - 3) return call(n, 'fetch_page', { page: n });
  if (n === ROUNDS - 2) return call(n, 'builtin_evidence_read', { id: 'ev_3', path: 'marker' });
  if (n === ROUNDS - 1)
    return call(n, 'builtin_output_set', {
      key: 'marker',
      value: 'marker-3',
      sourceType: 'evidence',
      sourceRef: 'ev_3',
    });
  if (n === ROUNDS) return call(n, 'builtin_node_finish', { summary: 'read every page' });
  return { text: `the fake has no turn ${n}` };
}

/** Runs the child to its end; `onChild` gets the process (the crash play kills it). */
async function child(
  config: Json,
  onChild: (pid: ReturnType<typeof spawn>) => void = () => undefined,
): Promise<ChildResult> {
  const proc = spawn(NODE, [CHILD, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  onChild(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) =>
    proc.on('close', (c, s) => done([c, s])),
  );
  if (code !== 0 && signal === null) throw new Error(`child exited ${code}: ${stderr}`);
  const lines = stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);
  const started = lines.find((l) => typeof l.runId === 'string');
  const last = lines.find((l) => 'summary' in l) as Pick<ChildResult, 'summary' | 'compacted'> | undefined;
  return {
    runId: (started?.runId as string | undefined) ?? null,
    signal,
    ...(last?.summary ? { summary: last.summary } : {}),
    compacted: last?.compacted ?? [],
  };
}

/** The text of the tool result answering `callId`, whatever the wire format. */
function toolResult(kind: FakeKind, body: Json, callId: string): string | undefined {
  const messages = body.messages as Json[];
  if (kind !== 'anthropic')
    return messages.find((m) => m.role === 'tool' && m.tool_call_id === callId)?.content as string;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    const block = (message.content as Json[]).find(
      (b) => b.type === 'tool_result' && b.tool_use_id === callId,
    );
    if (!block) continue;
    if (typeof block.content === 'string') return block.content;
    return (block.content as { text: string }[]).map((b) => b.text).join('');
  }
  return undefined;
}

const fakes: StrictFake[] = [];
afterAll(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

beforeAll(() => ensureBuilt(), 600_000);

describe.each([
  { kind: 'anthropic' as const, stream: false },
  { kind: 'openai' as const, stream: true },
  { kind: 'qwen' as const, stream: false },
])('a 200-round node through $kind (stream: $stream) within a 32k context budget', ({ kind, stream }) => {
  let clean: { fake: StrictFake; result: ChildResult };
  let crash: { fake: StrictFake; first: ChildResult; resumed: ChildResult };

  /** A fake playing `turn`, and the child's configuration pointing at it. */
  async function fakeFor(play: Play, db: string): Promise<{ fake: StrictFake; config: Json }> {
    const fake = await startStrictFake(kind, play, undefined, { reportInput: true });
    fakes.push(fake);
    const { model, env } = providerSetup(kind, fake.url, fake.key, stream);
    return { fake, config: { db, model, env, mode: 'start' } };
  }

  beforeAll(async () => {
    const dir = tempDir('long-run-provider-');
    const a = await fakeFor((i) => turn(i), join(dir, 'clean.db'));
    clean = { fake: a.fake, result: await child(a.config) };

    let victim: ReturnType<typeof spawn> | null = null;
    let killed = false;
    const b = await fakeFor(
      (i) => {
        if (i !== CRASH_AT || killed) return turn(i);
        // The request has arrived; the process dies before any answer (the fake never answers it).
        killed = true;
        victim?.kill('SIGKILL');
        return { fault: 'hang' };
      },
      join(dir, 'crashed.db'),
    );
    const first = await child(b.config, (p) => (victim = p));
    const resumed = await child({ ...b.config, mode: 'resume', runId: first.runId });
    crash = { fake: b.fake, first, resumed };
  }, 600_000);

  it('every request is accepted by the strict fake and within the budget as the fake measures it', () => {
    const { fake, result } = clean;
    expect(result.summary?.status).toBe('completed');
    expect(fake.requests.filter((r) => r.refused !== null).map((r) => r.refused)).toEqual([]);
    expect(fake.requests).toHaveLength(ROUNDS);
    const largest = Math.max(...fake.requests.map((r) => r.inputTokens));
    expect(largest).toBeLessThanOrEqual(BUDGET);
    // Without compaction the conversation would have grown far past the budget (20 KB a round).
    expect(fake.requests.at(-1)!.text.length).toBeLessThan(ROUNDS * 20_000);
    expect(result.compacted.length).toBeGreaterThan(0);
    for (const c of result.compacted) {
      expect(c.before).toBeGreaterThan(BUDGET);
      expect(c.after).toBeLessThanOrEqual(BUDGET);
    }
  });

  it('completes with an output citing the evidence of round 3, re-read after compaction', () => {
    const { fake, result } = clean;
    expect(result.summary?.outputs).toEqual({ read: { marker: 'marker-3' } });
    const last = fake.requests.at(-1)!;
    const names = (last.body.tools as Json[]).map((t) => (t.name ?? (t.function as Json).name) as string);
    expect(names).toContain('builtin_evidence_read');
    // Round 3's own result is long gone from the conversation; builtin_evidence_read brought back its marker.
    const reread = toolResult(kind, last.body, `call_${ROUNDS - 2}`);
    expect(reread).toContain('(evidence: ev_3)');
    expect(reread).toContain('\nmarker-3');
    expect(last.text).not.toContain('page 3 row 0');
    expect(last.body.max_tokens ?? last.body.max_completion_tokens).toBe(1024);
  });

  it('a process killed mid-call, resumed by another process, sends byte-identical requests', () => {
    const { fake, first, resumed } = crash;
    expect(first.signal).toBe('SIGKILL');
    expect(first.summary).toBeUndefined();
    expect(resumed.summary?.status).toBe('completed');
    expect(resumed.summary?.outputs).toEqual(clean.result.summary?.outputs);
    expect(fake.requests.filter((r) => r.refused !== null)).toEqual([]);
    // Requests 0..CRASH_AT from the killed process (the last one unanswered), then CRASH_AT..199 again.
    expect(fake.requests).toHaveLength(ROUNDS + 1);
    const expected = [
      ...clean.fake.requests.slice(0, CRASH_AT + 1),
      ...clean.fake.requests.slice(CRASH_AT),
    ].map((r) => r.text);
    fake.requests.forEach((r, i) => expect(r.text === expected[i], `request ${i}`).toBe(true));
    expect(resumed.compacted.map((c) => [c.round, c.before, c.after])).toEqual(
      clean.result.compacted.map((c) => [c.round, c.before, c.after]),
    );
  });
});
