import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createProviderRegistry } from '../../src/model/providers.js';
import { createRuntime } from '../../src/runtime/create.js';
import type { StoredEvent } from '../../src/store/store.js';
import { defineTool } from '../../src/tools/tool.js';
import type { Turn } from '../../src/testing/fake-model/wire.js';
import { providerSetup } from '../providers/play.js';
import { startStrictFake, type FakeKind, type Play } from '../../src/testing/fake-model/server.js';

/**
 * The requests a long run sends stay the same, byte for byte, whatever the conversation's
 * implementation: a 150-round run (big results stubbed and folded into a digest by compaction,
 * failed calls, skipped calls, a round without a call) through a strict provider stand-in over HTTP,
 * each request body hashed and compared with the hashes recorded from an earlier implementation
 * (test/fixtures/request-stability.json; `RECORD_REQUESTS=1` writes it anew — only when a request is
 * meant to change).
 */

const FIXTURE = new URL('../fixtures/request-stability.json', import.meta.url);
const ROUNDS = 150;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const page = defineTool<{ page: number }>({
  name: 'fetch_page',
  description: 'Reads one page of the order log',
  inputSchema: { type: 'object', properties: { page: { type: 'number' } }, required: ['page'] },
  execute: ({ page: n }) => ({
    page: n,
    rows: Array.from({ length: 24 }, (_, i) => `page ${n} row ${i}: order ${(n * 7919 + i) % 10007}`),
  }),
});

const broken = defineTool<{ n: number }>({
  name: 'audit_check',
  description: 'Checks one audit entry',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execute: ({ n }) => {
    throw new Error(`audit entry ${n} is locked`);
  },
});

const call = (n: number, k: number, name: string, args: unknown) => ({
  id: `call_${n}_${k}`,
  name,
  args: JSON.stringify(args),
});

/** Round i's answer: mostly one page read; every 10th a failing call that skips the read after it; one round of text only. */
const play: Play = (index) => {
  const n = index + 1;
  const usage = { input: 0, output: 0 };
  if (n === ROUNDS)
    return { calls: [call(n, 1, 'builtin_node_finish', { summary: 'read every page' })], usage };
  if (n === 25) return { text: 'Thinking about the next page.', usage } satisfies Turn;
  if (n % 10 === 0)
    return {
      calls: [call(n, 1, 'audit_check', { n }), call(n, 2, 'fetch_page', { page: n })],
      usage,
    };
  return {
    text: n % 7 === 0 ? `Page ${n} next.` : '',
    calls: [call(n, 1, 'fetch_page', { page: n })],
    usage,
  };
};

async function requestHashes(
  kind: FakeKind,
  locale: 'en' | 'zh-CN',
): Promise<{ hashes: string[]; compactions: number }> {
  const fake = await startStrictFake(kind, play, `sk-${kind}-test`, { reportInput: true });
  cleanups.push(() => fake.close());
  const { model, env } = providerSetup(kind, fake.url, fake.key, false);
  const runtime = createRuntime({
    store: 'memory',
    tools: [page, broken],
    logger: false,
    providers: createProviderRegistry({ env }),
  });
  cleanups.push(() => runtime.close());
  const flow = await loadFlow(
    {
      id: 'long-read',
      locale,
      model,
      limits: { maxRounds: ROUNDS + 5, maxStalls: 5, contextTokens: 12_000 },
      nodes: [
        {
          id: 'read',
          instructions: 'Read the order log page by page.',
          tools: ['fetch_page', 'audit_check'],
        },
      ],
    },
    { knownTools: ['fetch_page', 'audit_check'] },
  );
  const run = await runtime.start(flow, { input: { text: 'Read all pages.' } });
  expect(fake.refusals()).toEqual([]);
  expect(run.status).toBe('completed');
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(run.runId, { follow: false })) events.push(event);
  // The fixed prefix (system prompt and tools) is byte-stable across rounds: it changes once at most,
  // when the first compaction offers builtin_evidence_read.
  const prefixes = fake.requests.map((r) => {
    const body = JSON.parse(r.text) as { system?: unknown; tools?: unknown; messages: { role: string }[] };
    return JSON.stringify([body.system, body.messages.filter((m) => m.role === 'system'), body.tools]);
  });
  expect(prefixes.filter((p, i) => i > 0 && p !== prefixes[i - 1]).length).toBeLessThanOrEqual(1);
  return {
    hashes: fake.requests.map((r) => createHash('sha256').update(r.text).digest('hex').slice(0, 16)),
    compactions: events.filter((e) => e.type === 'context.compacted').length,
  };
}

describe('requests of a long run', () => {
  it('stay byte-identical to the recorded ones (anthropic en, openai zh-CN)', async () => {
    const recorded: Record<string, string[]> = process.env.RECORD_REQUESTS
      ? {}
      : (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, string[]>);
    const seen: Record<string, string[]> = {};
    for (const [kind, locale] of [
      ['anthropic', 'en'],
      ['openai', 'zh-CN'],
    ] as const) {
      const { hashes, compactions } = await requestHashes(kind, locale);
      expect(hashes).toHaveLength(ROUNDS);
      // The run is long enough to compact several times (stubs and digests both).
      expect(compactions).toBeGreaterThanOrEqual(3);
      seen[`${kind}-${locale}`] = hashes;
    }
    if (process.env.RECORD_REQUESTS) writeFileSync(FIXTURE, `${JSON.stringify(seen, null, 2)}\n`);
    else expect(seen).toEqual(recorded);
  }, 60_000);
});
