/**
 * The queue machinery in process, on the real server (skipped when it does not answer): queue mode
 * hands runs to the queue instead of driving them, a worker drives them under a lease, an approval
 * enqueues the continuation, a live lease elsewhere is respected and an expired one taken over.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWorkerCommand } from '../../src/cli/worker.js';
import { UsageError } from '../../src/cli/args.js';
import { loadFlowText, type LoadedFlow } from '../../src/flow/load.js';
import { createStderrLogger, silentLogger, type Logger } from '../../src/log/logger.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import type { RunSummary } from '../../src/records/summary.js';
import { defineTool } from '../../src/tools/tool.js';
import { RunQueue } from '../../src/worker/queue.js';
import { startWorker, type WorkerHandle } from '../../src/worker/start.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const dir = mkdtempSync(join(tmpdir(), 'worker-'));
afterAll(async () => {
  if (available) await schemas.dropAll();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

const booked: string[] = [];
const tools = [
  defineTool<{ item: string }>({
    name: 'book',
    description: 'Book an item',
    write: true,
    inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    execute: ({ item }, ctx) => (booked.push(`${item}:${ctx.idempotencyKey ?? ''}`), { booked: item }),
  }),
];

let flow: LoadedFlow;
beforeAll(async () => {
  flow = await loadFlowText(
    `id: booking
version: 1
locale: en
nodes:
  - id: book
    instructions: Book what the user asks for.
    tools: [book]
`,
    { knownTools: ['book'] },
  );
});

/** A scripted model file: book (stopped for approval), ask, book again, finish — or just finish. */
function script(name: string, approval: boolean): string {
  const book = { tool: 'book', args: { item: name } };
  const turns = approval
    ? [
        { calls: [book] },
        { calls: [{ tool: 'builtin_node_approval', args: { tool: 'book', summary: `book ${name}` } }] },
        { calls: [book] },
        { calls: [{ tool: 'builtin_node_finish', args: { summary: 'booked' } }] },
      ]
    : [{ calls: [{ tool: 'builtin_node_finish', args: { summary: 'nothing to do' } }] }];
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify({ turns }));
  return `scripted:${file}`;
}

/** Waits until `check` gives a value, polling. */
async function until<T>(check: () => Promise<T | null | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The log lines a logger received. */
function capture(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { lines, logger: createStderrLogger({ level: 'debug', write: (line) => lines.push(line) }) };
}

describe.runIf(available)('queue mode and RunWorker', () => {
  let db: string;
  let queue: RunQueue;
  let client: Runtime;
  let handle: WorkerHandle | null = null;
  const log = capture();

  beforeAll(async () => {
    db = schemas.urlFor(schemas.next('w'));
    queue = await RunQueue.open({ url: db, supervise: false });
    client = createRuntime({ store: db, enqueue: queue.enqueue, logger: false, leaseMs: 800 });
  });
  afterAll(async () => {
    await handle?.stop(1000);
    await client.close();
    await queue.close();
  });

  const status = (runId: string, wanted: RunSummary['status']) =>
    until(async () => {
      const s = await client.status(runId);
      return s.status === wanted ? s : null;
    });

  it('hands a started run to the queue unleased; a worker drives it; an approval queues the rest', async () => {
    const started = await client.start(flow, {
      input: { text: 'book a table' },
      model: script('table', true),
    });
    expect(started.status).toBe('running');
    const store = await client.db();
    expect(await store.getRun(started.runId)).toMatchObject({ leaseOwner: null, leaseExpiresAt: null });
    expect(await queue.waiting(started.runId)).toBe(1);
    await queue.enqueue(started.runId);
    expect(await queue.waiting(started.runId)).toBe(1);

    handle = await startWorker({
      db,
      tools,
      leaseMs: 800,
      sweepMs: 200,
      pollingIntervalSeconds: 0.5,
      logger: log.logger,
    });
    const suspended = await status(started.runId, 'suspended');
    expect(suspended.suspension?.kind).toBe('APPROVAL');

    const approved = await client.approve(started.runId, { comment: 'ok' });
    expect(approved.status).toBe('running');
    expect(await store.getRun(started.runId)).toMatchObject({ leaseOwner: null });
    await status(started.runId, 'completed');
    expect(booked.filter((b) => b.startsWith('table:'))).toHaveLength(1);
    expect(
      (await store.events(started.runId)).filter((e) => e.type === 'run.resumed').map((e) => e.kind),
    ).toEqual(['APPROVAL']);
    const drives = () =>
      log.lines.filter((l) => l.includes(started.runId) && l.includes('WORKER run.driven'));
    await until(() => Promise.resolve(drives().length === 2 ? true : null));
    expect(drives().map((l) => /status=(\w+)/.exec(l)?.[1])).toEqual(['suspended', 'completed']);
  });

  it('leaves a run to the live lease of another driver, and takes it over once that lease expires', async () => {
    const store = await client.db();
    // Started by a queue-mode runtime that queues nothing, so no worker sees it before the lease is taken.
    const holder = createRuntime({ store, enqueue: () => Promise.resolve(), logger: false });
    const started = await holder.start(flow, { input: { text: 'nothing' }, model: script('idle', false) });
    const expiresAt = Date.now() + 1500;
    expect(await store.acquireLease(started.runId, 'rt_elsewhere', expiresAt, Date.now())).not.toBeNull();
    await queue.enqueue(started.runId);
    await until(() =>
      Promise.resolve(
        log.lines.some((l) => l.includes(started.runId) && l.includes('WORKER run.skipped')) ? true : null,
      ),
    );
    expect(await store.getRun(started.runId)).toMatchObject({
      status: 'running',
      leaseOwner: 'rt_elsewhere',
    });

    await status(started.runId, 'completed');
    const events = await store.events(started.runId);
    const takeover = events.find((e) => e.type === 'run.resumed');
    expect(takeover).toMatchObject({ kind: 'RECOVERY' });
    expect(Date.parse(takeover!.ts)).toBeGreaterThanOrEqual(expiresAt);
  });

  it('drives a run only while it is running and not driven elsewhere', async () => {
    const done = (await client.list({ status: 'completed' }))[0]!;
    await expect(handle!.runtime.drive(done.runId)).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
  });
});

describe('agent-runtime worker', () => {
  const io = { stopped: () => Promise.resolve(), logger: silentLogger };
  it('needs a PostgreSQL store and sane flags', async () => {
    await expect(runWorkerCommand(['--db', 'sqlite:x.db'], io)).rejects.toThrow(/needs a PostgreSQL store/);
    await expect(runWorkerCommand(['--db', 'memory'], io)).rejects.toBeInstanceOf(UsageError);
    await expect(runWorkerCommand(['--db', 'postgres://h/db', '--concurrency', '0'], io)).rejects.toThrow(
      /--concurrency must be a whole number/,
    );
  });
});
