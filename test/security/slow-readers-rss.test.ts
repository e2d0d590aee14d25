import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spawnCli } from '../cli/helpers/cli.js';
import { watch, type Proc } from '../race/harness.js';
import { tempDir } from '../server/helpers.js';
import { openRawStream, type RawStream } from './sse-socket.js';

/**
 * Finding 3 of issue 27: each `model.delta` carries the whole text so far and was queued per stream
 * with no limit, so 16 paused readers took a server from 378 MB to 2.9 GB. Measured here from outside
 * on a real `serve` process (VmRSS in /proc/PID/status) with a streaming OpenAI-compatible provider
 * stand-in: 16 paused readers of one run must keep the server within +200 MB.
 */

const READERS = 16;
const CHUNK = 'x'.repeat(1024);
const STREAM_MS = 8_000;
const LIMIT_MB = 200;

/** A chat-completions stand-in whose first answer streams text (1 KB every 5 ms) until released. */
function provider(): { server: Server; requested: Promise<void>; start: () => void } {
  let requests = 0;
  let requested!: () => void;
  let start!: () => void;
  const started = new Promise<void>((resolve) => (start = resolve));
  const first = new Promise<void>((resolve) => (requested = resolve));
  const chunk = (delta: unknown, finish: string | null = null): string =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (requests === 1) requested();
      void (requests === 1 ? streamText(res) : finish(res));
    });
  });
  async function streamText(res: ServerResponse): Promise<void> {
    await started;
    res.write(chunk({ role: 'assistant', content: '' }));
    const end = Date.now() + STREAM_MS;
    while (Date.now() < end) {
      res.write(chunk({ content: CHUNK }));
      await new Promise((r) => setTimeout(r, 5));
    }
    finish(res);
  }
  function finish(res: ServerResponse): void {
    const call = {
      index: 0,
      id: 'call_1',
      type: 'function',
      function: { name: 'builtin_node_finish', arguments: '{"summary":"done"}' },
    };
    res.write(chunk({ tool_calls: [call] }));
    res.write(chunk({}, 'tool_calls'));
    res.end('data: [DONE]\n\n');
  }
  return { server, requested: first, start };
}

/** The resident set of a process, in MB. */
function rssMb(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) / 1024;
}

let fake: ReturnType<typeof provider>;
let serve: Proc;
let url: string;

beforeAll(async () => {
  ensureBuilt();
  fake = provider();
  await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
  const port = (fake.server.address() as AddressInfo).port;
  const dir = await tempDir({
    'flows/talk.yaml': 'id: talk\nlocale: en\nmodel: fake:m\nnodes: [{ id: main }]\n',
  });
  serve = watch(
    spawnCli(['serve', '--port', '0', '--flows', `${dir}/flows`, '--db', `sqlite:${dir}/runtime.db`], {
      cwd: dir,
      env: {
        AGENT_RUNTIME_PROVIDER_FAKE_BASE_URL: `http://127.0.0.1:${port}/v1`,
        AGENT_RUNTIME_MODEL_STREAM: '1',
      },
    }),
  );
  url = (await serve.line(/^http:\/\/127\.0\.0\.1:\d+/)).trim();
}, 300_000);
afterAll(async () => {
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  fake?.server.closeAllConnections();
  await new Promise((resolve) => fake?.server.close(resolve));
});

describe('paused readers of a streaming run', () => {
  it(`keep the server within +${LIMIT_MB} MB`, async () => {
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ flowId: 'talk', input: 'talk a lot' }),
    });
    expect(started.status).toBeLessThan(300);
    const { runId } = (await started.json()) as { runId: string };
    await fake.requested;
    const readers: RawStream[] = [];
    for (let i = 0; i < READERS; i += 1) {
      const reader = await openRawStream(url, `/v1/runs/${runId}/events`, {});
      expect(reader.status).toBe(200);
      reader.pause();
      readers.push(reader);
    }
    const pid = serve.child.pid as number;
    const base = rssMb(pid);
    fake.start();
    let peak = base;
    const end = Date.now() + STREAM_MS + 2_000;
    while (Date.now() < end && peak - base <= LIMIT_MB) {
      await new Promise((r) => setTimeout(r, 100));
      peak = Math.max(peak, rssMb(pid));
    }
    for (const reader of readers) reader.close();
    console.log(`slow readers: server RSS ${base.toFixed(0)} MB → peak ${peak.toFixed(0)} MB`);
    expect(peak - base).toBeLessThanOrEqual(LIMIT_MB);
    // The run itself went on: a reader that reads gets its end.
    const done = await openRawStream(url, `/v1/runs/${runId}/events`, {});
    await done.ended;
    expect(done.messages.at(-1)?.data).toContain('"run.completed"');
  }, 120_000);
});
