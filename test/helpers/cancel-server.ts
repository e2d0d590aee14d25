import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from './demo-server.js';

/** A real stateful Streamable HTTP server whose `wait` logs whether it was cancelled. */
export const CANCEL_SERVER = join(REPO_ROOT, 'test/mcp/fixtures/cancel-http-server.mjs');

export interface CancelServer {
  url: string;
  log: string;
  release: string;
  /** The server's log: one entry per started, cancelled or finished `wait`. */
  entries(): { event: string; requestId: unknown }[];
  stop(): void;
}

/** Starts the fixture server on a free port, logging to a file in `dir`. */
export async function startCancelServer(dir: string): Promise<CancelServer> {
  const log = join(dir, 'cancel.jsonl');
  const release = join(dir, 'release');
  const child: ChildProcess = spawn(process.execPath, [CANCEL_SERVER], {
    env: { ...process.env, CANCEL_LOG: log, WAIT_RELEASE: release },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    createInterface({ input: child.stdout! }).once('line', resolve);
  });
  return {
    url,
    log,
    release,
    entries: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter((l) => l !== '')
            .map((l) => JSON.parse(l) as { event: string; requestId: unknown })
        : [],
    stop: () => child.kill(),
  };
}

/** Polls `check` until it holds; fails after `ms`. */
export async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
