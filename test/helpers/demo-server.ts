import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { StdioServerConfig } from '../../src/domain/flow.js';

/** The repository root and the demo server's entry point. */
export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const DEMO_SERVER = join(REPO_ROOT, 'examples/demo-cloud/server.js');

const dataDirs: string[] = [];
process.once('exit', () => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

/** A fresh, empty data folder for one demo server (state.json is seeded on first use); removed when the test process exits. */
export function demoDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'demo-cloud-test-'));
  dataDirs.push(dir);
  return dir;
}

/** Options for a demo server under test. */
export interface DemoOptions {
  /** Reuse a data folder (e.g. to restart a server on the same state); default a fresh one. */
  dataDir?: string;
  /** Deduplicate writes by `_meta.idempotencyKey`. */
  dedupe?: boolean;
}

/** A flow-style stdio server entry for the demo server, with its own fresh data folder. */
export function demoStdioConfig(options: DemoOptions = {}): { config: StdioServerConfig; dataDir: string } {
  const dataDir = options.dataDir ?? demoDataDir();
  const env: Record<string, string> = { DEMO_CLOUD_DATA: dataDir };
  if (options.dedupe) env.DEMO_CLOUD_DEDUPE = '1';
  return { config: { command: 'node', args: [DEMO_SERVER], env }, dataDir };
}

/** A demo server running in Streamable HTTP mode on a loopback port. */
export interface DemoHttpServer {
  url: string;
  port: number;
  dataDir: string;
  pid: number;
  /** Resolves with the exit code once the process has exited (for whatever reason). */
  exited: Promise<number | null>;
  /** Ends the server (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts the demo server with `--http` on `port` (default: a random free one) and waits for its URL. */
export async function startDemoHttp(options: DemoOptions & { port?: number } = {}): Promise<DemoHttpServer> {
  const dataDir = options.dataDir ?? demoDataDir();
  const args = [DEMO_SERVER, '--http', '--port', String(options.port ?? 0)];
  if (options.dedupe) args.push('--dedupe');
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DEMO_CLOUD_DATA: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => stderr.push(chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`demo server did not start: ${stderr.join('')}`)), 15_000);
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      done(line.trim());
    });
    void exited.then((code) => fail(new Error(`demo server exited with ${code}: ${stderr.join('')}`)));
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), 3_000);
    await exited;
    clearTimeout(kill);
  };
  return { url, port: Number(new URL(url).port), dataDir, pid: child.pid!, exited, stop };
}

/** One executed write of the demo server (`writes.jsonl`). */
export interface WriteLogEntry {
  ts: string;
  pid: number;
  tool: string;
  args: Record<string, unknown>;
  idempotencyKey: string | null;
  reply: { code: number | string; message: string; data?: unknown };
}

/** The demo server's write log: every write it executed, in order. */
export function readWriteLog(dataDir: string): WriteLogEntry[] {
  return readJsonLines(join(dataDir, 'writes.jsonl')) as WriteLogEntry[];
}

/** The calls the demo server saw cancelled (`cancelled.jsonl`). */
export function readCancellations(dataDir: string): { tool: string; afterMs: number; reason: string }[] {
  return readJsonLines(join(dataDir, 'cancelled.jsonl')) as {
    tool: string;
    afterMs: number;
    reason: string;
  }[];
}

function readJsonLines(file: string): unknown[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Waits (polling) until the process is gone; false if it still runs after `timeoutMs`. */
export async function waitForExit(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((done) => setTimeout(done, 25));
  }
  return true;
}

/** A loopback port nothing listens on (bound once, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((done, fail) => server.close((error) => (error ? fail(error) : done())));
  return port;
}
