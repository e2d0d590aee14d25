import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnCli } from '../cli/helpers/cli.js';
import { watch, type Proc } from '../race/harness.js';
import { tempDir } from '../server/helpers.js';
import { QUICK_TURNS, SEC } from './helpers.js';

/** Tokens of the `serve` process: an admin and an operator of acme, an operator and a viewer of beta. */
const TOKENS = [
  { token: SEC.acmeAdmin, role: 'admin', tenant: 'acme', name: 'acme-admin' },
  { token: SEC.acmeOperator, role: 'operator', tenant: 'acme', name: 'acme-op' },
  { token: SEC.betaAdmin, role: 'admin', tenant: 'beta', name: 'beta-admin' },
  { token: SEC.betaOperator, role: 'operator', tenant: 'beta', name: 'beta-op' },
];

/** A real `serve` process (the built CLI) on a loopback port, with two tenants' tokens. */
export interface ServeProcess {
  readonly url: string;
  readonly dir: string;
  readonly proc: Proc;
  /** A request with `token`; `json` is sent as the body. */
  call(method: string, path: string, token: string, json?: unknown): Promise<Response>;
  /** The process's resident memory (bytes), from /proc. */
  rss(): number;
  stop(): Promise<void>;
}

/** Starts `serve --port 0 --tokens … --db <db> --scripted-models <dir>` (a temp SQLite file by default). */
export async function startServe(options: { db?: string; args?: string[] } = {}): Promise<ServeProcess> {
  const dir = await tempDir({ 'tokens.json': JSON.stringify(TOKENS), 'quick.yaml': QUICK_TURNS });
  const db = options.db ?? `sqlite:${join(dir, 'serve.db')}`;
  const args = ['serve', '--port', '0', '--tokens', join(dir, 'tokens.json'), '--db', db];
  const proc = watch(spawnCli([...args, '--scripted-models', dir, ...(options.args ?? [])], { cwd: dir }));
  const url = (await proc.line(/^http:\/\/127\.0\.0\.1:\d+/)).trim();
  return {
    url,
    dir,
    proc,
    call: (method, path, token, json) =>
      fetch(`${url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
      }),
    rss() {
      const status = readFileSync(`/proc/${String(proc.child.pid)}/status`, 'utf8');
      const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
      return Number(kb ?? 0) * 1024;
    },
    async stop() {
      if (proc.child.exitCode !== null) return;
      proc.child.kill('SIGTERM');
      await proc.exited;
    },
  };
}

/**
 * Runs `hostile` while another tenant asks `GET /v1/me` over and over: the hostile answer (status
 * and text) and the longest wait of the other tenant's requests (ms).
 */
export async function whileOtherTenantWaits(
  serve: ServeProcess,
  otherToken: string,
  hostile: () => Promise<Response>,
): Promise<{ status: number; text: string; longestWaitMs: number }> {
  let done = false;
  let longest = 0;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await serve.call('GET', '/v1/me', otherToken);
      await response.arrayBuffer();
      longest = Math.max(longest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const response = await hostile();
    const text = await response.text();
    return { status: response.status, text, longestWaitMs: longest };
  } finally {
    done = true;
    await probe;
  }
}
