import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../acceptance/build.js';
import { openaiChunks, type Turn } from '../../src/testing/fake-model/wire.js';
import { World, builtinFlow, cliEnv, ensureBuilt } from './helpers/cli.js';

/**
 * A streaming model's text shows on stderr while it is written, as a line of its own (`  model ✎ …`)
 * that the progress lines around it do not break, in a terminal and in plain stderr. The stand-in is
 * an OpenAI Chat Completions server that streams the first words of its answer, then holds the rest
 * back until the test has seen those words in the CLI's output: the text is shown before the model
 * call ends. The CLI runs as a subprocess (in a pseudo-terminal through util-linux `script` for the
 * TTY case).
 */

const TEXT = 'Looking at the list now.';
const KEY = 'sk-live-text-test';

/** A gated streaming server: turn 1 streams its role and first two text pieces, then waits for `release`. */
async function gatedProvider(): Promise<{ url: string; release: () => void; close: () => Promise<void> }> {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const turns: Turn[] = [
    { text: TEXT, calls: [{ id: 'call_1', name: 'builtin_node_finish', args: '{"summary":"done"}' }] },
  ];
  let index = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${KEY}` || req.url !== '/v1/chat/completions') {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
        return;
      }
      const turn = turns[index++] ?? { text: 'no more turns' };
      const events = openaiChunks(turn).map(
        (e) => `data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`,
      );
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(events.slice(0, 3).join(''));
      void released.then(() => res.end(events.slice(3).join('')));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    release: () => release(),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Runs the CLI (through `script` when `tty`), calls `onSeen` once `seen` is in its output, resolves at exit. */
function runUntil(
  w: World,
  args: string[],
  env: Record<string, string>,
  tty: boolean,
  seen: string,
  onSeen: () => void,
): Promise<{ code: number; output: string; seenBeforeExit: boolean }> {
  const argv = [CLI, ...args, '--db', w.dbUrl];
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const child = tty
    ? spawn('/usr/bin/script', ['-qec', [NODE, ...argv].map(quote).join(' '), '/dev/null'], {
        cwd: w.dir,
        env: cliEnv(env),
        stdio: ['pipe', 'pipe', 'pipe'],
      })
    : spawn(NODE, argv, { cwd: w.dir, env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    let seenBeforeExit = false;
    const onData = (chunk: string) => {
      output += chunk;
      if (!seenBeforeExit && output.includes(seen)) {
        seenBeforeExit = true;
        onSeen();
      }
    };
    child.stdout?.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin?.destroy();
      resolve({ code: code ?? -1, output, seenBeforeExit });
    });
  });
}

describe('cli: a streaming model’s text, live', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it.each([
    ['plain stderr', false],
    ['a terminal', true],
  ])('%s: the first words show before the model call ends, on a line of their own', async (_name, tty) => {
    const provider = await gatedProvider();
    try {
      const flow = w.write('flow.yaml', builtinFlow());
      const env = {
        OPENAI_API_KEY: KEY,
        OPENAI_BASE_URL: provider.url,
        AGENT_RUNTIME_MODEL_STREAM: '1',
        AGENT_RUNTIME_MODEL_MAX_RETRIES: '0',
      };
      const r = await runUntil(
        w,
        ['run', flow, '--input', 'x', '--model', 'openai:gpt-test'],
        env,
        tty,
        'model ✎ Looking at the',
        provider.release,
      );
      expect(r.code, r.output).toBe(0);
      // Seen while the stand-in still held the rest of the answer back: the run could not have ended.
      expect(r.seenBeforeExit).toBe(true);
      // eslint-disable-next-line no-control-regex -- the spinner's clear-line sequence
      const text = r.output.replace(/\r\x1b\[K|\r\n/g, (m) => (m === '\r\n' ? '\n' : ''));
      const lines = text.split('\n');
      const streamed = lines.findIndex((l) => l === `  model ✎ ${TEXT}`);
      const response = lines.findIndex((l) => l === '  model → builtin_node_finish');
      expect(streamed, text).toBeGreaterThan(lines.findIndex((l) => l === '  round 1'));
      expect(response, text).toBe(streamed + 1);
      expect(text).toContain('run completed');
    } finally {
      await provider.close();
    }
  });
});
