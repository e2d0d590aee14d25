import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/log/logger.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { reached, tempDir } from '../server/helpers.js';
import { SEC, startTarget, type Target } from './helpers.js';
import { openRawStream, type WireMessage } from './sse-socket.js';
import { followEvents } from '../../web/src/sse.js';

/**
 * Finding 3 of issue 27: each event stream queued every message for a reader that did not read, with
 * no limit. Now a stream has a bounded queue (src/server/sse-queue.ts): a reader that takes nothing
 * for `stallMs` while events wait is cut with an SSE `error` event, and resumes with Last-Event-ID
 * without losing an event. (The memory bound of 16 paused readers of a streaming model is measured on
 * a `serve` process in slow-readers-rss.test.ts.)
 */

/** About 10 MB of committed events: more than the loopback socket buffers of one paused reader hold. */
const TURNS = 10;
const CALLS = 8;
const BLOB = 120 * 1024;

function turnsYaml(): string {
  const lines = ['turns:', '  - { calls: [{ tool: builtin_node_follow_up, args: { question: go? } }] }'];
  for (let t = 0; t < TURNS; t += 1) {
    const calls = Array.from({ length: CALLS }, (_, c) => `{ tool: blob, args: { n: ${t * CALLS + c} } }`);
    lines.push(`  - { calls: [${calls.join(', ')}] }`);
  }
  lines.push('  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }');
  return `${lines.join('\n')}\n`;
}

const blob = defineTool<{ n: number }>({
  name: 'blob',
  description: 'A big read',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execute: ({ n }) => ({ n, text: String(n % 10).repeat(BLOB) }),
}) as LocalTool;

const log = new MemoryLogger();
let t: Target;

beforeAll(async () => {
  const flowsDir = await tempDir({
    'blobs.yaml': `id: blobs\nlocale: en\nmodel: scripted:./turns.yaml\nlimits: { maxRounds: 40 }\nnodes: [{ id: main, tools: [blob] }]\n`,
    'turns.yaml': turnsYaml(),
  });
  t = await startTarget({
    flowsDir,
    runtime: { tools: [blob], traceResultBytes: 256 * 1024 },
    server: { logger: log, streamQueue: { maxBytes: 256 * 1024, maxEntries: 16, stallMs: 1000 } },
  });
});
afterAll(async () => {
  await t.stop();
});

/** Resolves once `check` holds, polling until a deadline. */
async function until(check: () => boolean, what: string, deadlineMs = 60_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function seqsOf(messages: WireMessage[]): number[] {
  return messages.filter((m) => m.id !== undefined).map((m) => Number(m.id));
}

describe('a reader that does not keep up', () => {
  it('is cut with an SSE error event, and resuming with Last-Event-ID gets every event', async () => {
    const started = await t.call('POST', '/v1/runs', {
      token: SEC.operator,
      json: { flowId: 'blobs', input: 'x' },
    });
    const { runId } = (await started.json()) as { runId: string };
    await reached(t.runtime, runId, 'run.suspended');
    const headers = { authorization: `Bearer ${SEC.viewer}` };
    const slow = await openRawStream(t.url, `/v1/runs/${runId}/events`, headers);
    expect(slow.status).toBe(200);
    slow.pause();
    const answered = await t.call('POST', `/v1/runs/${runId}/answer`, {
      token: SEC.operator,
      json: { text: 'yes' },
    });
    expect(answered.status).toBe(200);
    await until(() => log.find('HTTP event stream cut: the reader is too slow').length > 0, 'the cut');
    slow.resume();
    await slow.ended;
    const error = slow.messages.find((m) => m.event === 'error');
    expect(error, 'the error event').toBeDefined();
    const body = JSON.parse(error?.data ?? '{}') as { error: { code: string }; lastEventId: number };
    expect(body.error.code).toBe('STREAM_TOO_SLOW');
    const first = seqsOf(slow.messages);
    expect(body.lastEventId).toBe(first.at(-1));
    expect(first.length).toBeGreaterThan(0);

    await reached(t.runtime, runId, 'run.completed');
    const rest = await openRawStream(t.url, `/v1/runs/${runId}/events`, {
      ...headers,
      'last-event-id': String(body.lastEventId),
    });
    await rest.ended;
    const all = [...first, ...seqsOf(rest.messages)];
    const stored = (await (await t.runtime.db()).events(runId, 0)).map((e) => e.seq);
    expect(all).toEqual(stored);
    expect(rest.messages.at(-1)?.data).toContain('"run.completed"');
  }, 120_000);
});

describe("the console's follower", () => {
  it('reconnects after a cut from the last event it got, with no gap or repeat', async () => {
    const event = (seq: number, type = 'node.started') =>
      `id: ${seq}\ndata: ${JSON.stringify({ type, seq, runId: 'run_x', ts: 't' })}\n\n`;
    const cut = `event: error\ndata: ${JSON.stringify({ error: { code: 'STREAM_TOO_SLOW', message: 'cut' }, lastEventId: 2 })}\n\n`;
    const bodies = [event(1) + event(2) + cut, event(3) + event(4, 'run.completed')];
    const asked: (string | null)[] = [];
    const fake = (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      asked.push(new Headers(init?.headers).get('last-event-id'));
      return Promise.resolve(
        new Response(bodies.shift() ?? '', { headers: { 'content-type': 'text/event-stream' } }),
      );
    };
    const seqs: number[] = [];
    await followEvents({
      runId: 'run_x',
      token: null,
      onEvent: (e) => seqs.push(e.seq),
      onState: () => undefined,
      signal: new AbortController().signal,
      backoff: () => 1,
      base: 'http://127.0.0.1:1',
      fetch: fake,
    });
    expect(seqs).toEqual([1, 2, 3, 4]);
    expect(asked).toEqual([null, '2']);
  });
});
