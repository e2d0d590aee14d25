import { getEventListeners } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { ticketTools } from '../server/fixtures.js';
import { openEvents, reached, tempDir } from '../server/helpers.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * Hole 6: each SSE stream polled the store every 250 ms, there was no cap per token, and each poll
 * added an abort listener. Now events are pushed from the runtime's hub, one shared poller per
 * runtime reads each followed run once per tick (for commits of other processes), and a token may
 * hold a limited number of streams.
 */

const ASK_TURNS = `turns:
  - { calls: [{ tool: builtin_node_follow_up, args: { question: Which printer? } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

/** Resolves once `check` holds, polling until a deadline. */
async function until(check: () => boolean, what: string, deadlineMs = 15_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A store that counts the reads followers and pollers make. */
function counting(store: Store): { store: Store; calls: { events: number; getRun: number } } {
  const calls = { events: 0, getRun: 0 };
  const proxy = new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (key === 'events' || key === 'getRun') calls[key] += 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

describe('event streams', () => {
  let t: Target;
  let runId: string;
  beforeAll(async () => {
    const tools = ticketTools();
    const flowsDir = await tempDir({
      'ask.yaml':
        'id: ask\nlocale: en\nmodel: scripted:./turns.yaml\nnodes: [{ id: main, tools: [ticket_list] }]\n',
      'turns.yaml': ASK_TURNS,
    });
    t = await startTarget({ flowsDir, runtime: { tools: tools.tools }, server: { maxStreamsPerToken: 2 } });
    const started = await t.call('POST', '/v1/runs', {
      token: SEC.operator,
      json: { flowId: 'ask', input: 'x' },
    });
    runId = ((await started.json()) as { runId: string }).runId;
    await reached(t.runtime, runId, 'run.suspended');
  });
  afterAll(async () => {
    await t.stop();
  });

  it('caps the streams one token holds open (429), per token', async () => {
    const first = await openEvents(t.url, runId, { token: SEC.viewer });
    const second = await openEvents(t.url, runId, { token: SEC.viewer });
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await fetch(`${t.url}/v1/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${SEC.viewer}` },
    });
    expect(await errorOf(third)).toMatchObject({ status: 429, code: 'TOO_MANY_STREAMS' });
    const other = await openEvents(t.url, runId, { token: SEC.operator });
    expect(other.status).toBe(200);
    other.close();
    first.close();
    let reopened = 0;
    const end = Date.now() + 10_000;
    while (reopened !== 200 && Date.now() < end) {
      const attempt = await fetch(`${t.url}/v1/runs/${runId}/events`, {
        headers: { authorization: `Bearer ${SEC.viewer}` },
      });
      reopened = attempt.status;
      await attempt.body?.cancel();
    }
    expect(reopened).toBe(200);
    second.close();
  });
});

describe('following without polling per stream', () => {
  let first: Runtime;
  let second: Runtime;
  let counted: { events: number; getRun: number };
  let turns: string;
  let dbUrl: string;
  const tools = ticketTools();

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sec-follow-'));
    turns = join(await tempDir({ 'turns.yaml': ASK_TURNS }), 'turns.yaml');
    dbUrl = `sqlite:${join(dir, 'runtime.db')}`;
    const wrapped = counting(await openStore(dbUrl));
    counted = wrapped.calls;
    first = createRuntime({ store: wrapped.store, tools: tools.tools, logger: false });
    second = createRuntime({ store: dbUrl, tools: tools.tools, logger: false });
  });
  afterAll(async () => {
    await first.close();
    await second.close();
  });

  it('reads each followed run once per tick however many follow it, adds no listeners, and sees other processes', async () => {
    const flow = { id: 'ask', locale: 'en' as const, nodes: [{ id: 'main', tools: ['ticket_list'] }] };
    const run = await first.start(flow, { input: { text: 'x' }, model: `scripted:${turns}` });
    expect(run.status).toBe('suspended');
    const controller = new AbortController();
    const seen: string[][] = [];
    const followers = Array.from({ length: 40 }, (_, i) => {
      seen[i] = [];
      return (async () => {
        for await (const event of first.events(run.runId, { signal: controller.signal }))
          seen[i]?.push(event.type);
      })();
    });
    await until(() => seen.every((s) => s.includes('run.suspended')), 'followers to replay');
    const listeners = getEventListeners(controller.signal, 'abort').length;
    const base = { ...counted };
    await until(() => counted.getRun - base.getRun >= 4, 'four poller ticks');
    expect(counted.events - base.events).toBe(0);
    expect(counted.getRun - base.getRun).toBeLessThan(8);
    expect(getEventListeners(controller.signal, 'abort').length).toBe(listeners);
    expect(listeners).toBeLessThanOrEqual(40);

    // Another process (a second runtime on the same file) answers: every follower sees it and the end.
    const answered = await second.answer(run.runId, 'the one on floor 2');
    expect(answered.status).toBe('completed');
    await Promise.all(followers);
    for (const types of seen) expect(types.slice(-2)).toEqual(['node.completed', 'run.completed']);
    expect(getEventListeners(controller.signal, 'abort').length).toBe(0);
  });
});
