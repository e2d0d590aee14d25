import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open.js';
import { REPO_ROOT, ensureBuilt, runCli, spawnCli } from '../cli/helpers/cli.js';
import { watch } from '../race/harness.js';
import { tempDir } from '../server/helpers.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';

/**
 * Issue 27, seen under chaos: a `serve` stopped with SIGTERM kept the leases of the runs it drove, so
 * another process could take them only once the lease expired; and the read that the shutdown cut was
 * logged as `FAILED TOOL_TIMEOUT evidence=ev_1`, an evidence never stored. Now a graceful stop gives the
 * leases up (another process resumes the run at once, here with a 60 s lease) and logs the cut read as
 * interrupted by shutdown. Two processes on one store: `serve`, then `agent-runtime resume`.
 */

const FIXTURE = join(REPO_ROOT, 'test/security/fixtures/hold-read.js');
const LEASE_MS = '60000';
const pool = new SchemaPool();
let pg = false;

beforeAll(async () => {
  ensureBuilt();
  pg = await pgAvailable(PG_URL);
}, 300_000);
afterAll(async () => {
  if (pg) await pool.dropAll();
});

async function world(): Promise<string> {
  return tempDir({
    'flow.yaml': `id: hold
locale: en
model: scripted:./turns.yaml
mcpServers:
  slow: { command: node, args: [${JSON.stringify(FIXTURE)}] }
limits: { toolTimeoutMs: 120000 }
nodes: [{ id: main, tools: [hold_read] }]
`,
    'turns.yaml': `turns:
  - { calls: [{ tool: hold_read, args: {} }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`,
    hold: '',
  });
}

/** Resolves once `check` holds, polling until a deadline. */
async function until(check: () => boolean, what: string, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Asserts what a gracefully stopped process logged: the cut read as interrupted, its lease given up. */
function checkStopLog(lines: string[], runId: string): void {
  const log = lines.join('\n');
  expect(log).toMatch(/TOOL interrupted tool=hold_read reason="interrupted by shutdown" recorded=false/);
  expect(log).not.toMatch(/TOOL invoked tool=hold_read/);
  expect(log).not.toMatch(/evidence=ev_/);
  expect(log).toContain(`RUN lease released at shutdown runId=${runId}`);
}

/** Counts the calls the MCP server received (one line each). */
function calls(dir: string): number {
  const file = join(dir, 'calls.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
}

/**
 * `serve` starts the run, whose read holds; SIGTERM; then (`worker`: PostgreSQL) a worker takes it at
 * once, its read holds again, SIGTERM; then `agent-runtime resume` takes it at once and completes it.
 */
async function trial(db: string, withWorker = false): Promise<void> {
  const dir = await world();
  const env = { AGENT_RUNTIME_LEASE_MS: LEASE_MS };
  const serve = watch(spawnCli(['serve', '--port', '0', '--flows', dir, '--db', db], { cwd: dir, env }));
  const url = (await serve.line(/^http:\/\/127\.0\.0\.1:\d+/)).trim();
  const started = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ flowId: 'hold', input: 'x' }),
  });
  expect(started.status).toBeLessThan(300);
  const { runId } = (await started.json()) as { runId: string };
  await until(() => calls(dir) === 1, 'the read to start');
  serve.child.kill('SIGTERM');
  expect(await serve.exited).toBe(0);
  checkStopLog(serve.lines, runId);

  if (withWorker) {
    const worker = watch(spawnCli(['worker', '--db', db], { cwd: dir, env }));
    await until(() => calls(dir) === 2, 'the worker to take the run and read');
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    checkStopLog(worker.lines, runId);
  }

  const store = await openStore(db);
  try {
    const left = await store.getRun(runId);
    expect(left?.status).toBe('running');
    expect(left?.leaseExpiresAt ?? 0).toBeLessThanOrEqual(Date.now());
    // Another process takes the run at once (the lease would have held it for a minute).
    rmSync(join(dir, 'hold'));
    const resumed = await runCli(['resume', runId, '--db', db, '--json'], { cwd: dir, env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((resumed.json as { status: string }).status).toBe('completed');
    expect(calls(dir)).toBe(withWorker ? 3 : 2);
    // The cut reads left nothing behind: the one recorded read is the one made by the last process.
    const reads = (await store.events(runId, 0)).filter(
      (e) => e.type === 'tool.invoked' && (e as { tool?: string }).tool === 'hold_read',
    );
    expect(reads.map((e) => (e as { evidenceId?: string }).evidenceId)).toEqual(['ev_1']);
  } finally {
    await store.close();
  }
}

describe('SIGTERM of serve', () => {
  it('gives up its leases and logs the cut read as interrupted (SQLite)', async () => {
    const dir = await tempDir();
    await trial(`sqlite:${join(dir, 'runtime.db')}`);
  }, 120_000);

  it('gives up its leases and logs the cut read as interrupted (PostgreSQL)', async (ctx) => {
    if (!pg) ctx.skip();
    await trial(pool.urlFor(pool.next('stop')));
  }, 120_000);

  it('and so does a worker after it (PostgreSQL)', async (ctx) => {
    if (!pg) ctx.skip();
    await trial(pool.urlFor(pool.next('worker')), true);
  }, 180_000);
});
