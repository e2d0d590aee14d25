/**
 * Parallel branches, joins and maps on PostgreSQL: in process on PGlite, and through the queue with a
 * worker on the real server (skipped when it does not answer).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { silentLogger } from '../../src/log/logger.js';
import { scriptedModel } from '../../src/model/scripted.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { RunQueue } from '../../src/worker/queue.js';
import { startWorker, type WorkerHandle } from '../../src/worker/start.js';
import {
  forkJoinFlow,
  forkJoinTurns,
  mapFlow,
  mapTurns,
  maxOverlap,
  slowTool,
  type SlowCall,
} from '../graph/parallel-fixture.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const dir = mkdtempSync(join(tmpdir(), 'parallel-pg-'));
afterAll(async () => {
  if (available) await schemas.dropAll();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('parallel branches on PostgreSQL (PGlite)', () => {
  let db: PGlite;
  let runtime: Runtime;
  const calls: SlowCall[] = [];
  beforeAll(async () => {
    db = await PGlite.create();
    runtime = createRuntime({
      store: await createPostgresStore({ pglite: db }, { schema: 'parallel' }),
      tools: [slowTool(calls, 300)],
      logger: false,
    });
  }, 120_000);
  afterAll(async () => {
    await runtime.close();
    await db.close();
  });

  it('runs a fork and a join with overlapping branch calls, and a map within its concurrency', async () => {
    const fork = await runtime.start(await loadFlow(forkJoinFlow(), { knownTools: ['slow'] }), {
      input: { a: 4, b: 5 },
      model: scriptedModel({ turns: forkJoinTurns(4, 5) }),
    });
    expect(fork.status).toBe('completed');
    expect(fork.outputs.sum).toEqual({ total: 9 });
    expect(maxOverlap(calls)).toBe(2);
    calls.length = 0;
    const mapped = await runtime.start(await loadFlow(mapFlow(2), { knownTools: ['slow'] }), {
      input: { lines: [1, 2, 3] },
      model: scriptedModel({ turns: mapTurns([1, 2, 3]) }),
    });
    expect(mapped.status).toBe('completed');
    expect(mapped.outputs.total).toEqual({ total: 6 });
    expect(maxOverlap(calls)).toBe(2);
  });
});

describe.runIf(available)('parallel branches driven by a worker (PostgreSQL server)', () => {
  let queue: RunQueue;
  let client: Runtime;
  let handle: WorkerHandle | null = null;
  const calls: SlowCall[] = [];
  let url: string;
  beforeAll(async () => {
    url = schemas.urlFor(schemas.next('p'));
    queue = await RunQueue.open({ url, supervise: false });
    client = createRuntime({ store: url, enqueue: queue.enqueue, logger: false, leaseMs: 800 });
  });
  afterAll(async () => {
    await handle?.stop(1000);
    await client.close();
    await queue.close();
  });

  it('a queued run of model nodes fans out, joins once and completes', async () => {
    const flow = await loadFlow(
      {
        id: 'fork-join-models',
        locale: 'en',
        nodes: [
          { id: 'start' },
          { id: 'left', tools: ['slow'], outputs: { value: { required: true, sources: ['model'] } } },
          { id: 'right', tools: ['slow'], outputs: { value: { required: true, sources: ['model'] } } },
          { id: 'sum', outputs: { total: { required: true, sources: ['model'] } } },
        ],
        edges: [
          { from: 'start', to: ['left', 'right'] },
          { from: 'left', to: 'sum' },
          { from: 'right', to: 'sum' },
        ],
      },
      { knownTools: ['slow'] },
    );
    const finish = { tool: 'builtin_node_finish', args: { summary: 'done' } };
    const file = join(dir, 'turns.json');
    const set = (key: string, value: number) => ({
      tool: 'builtin_output_set',
      args: { key, value, sourceType: 'model' },
    });
    writeFileSync(
      file,
      JSON.stringify({
        turns: [
          { node: 'start', calls: [finish] },
          ...forkJoinTurns(2, 3),
          { node: 'sum', calls: [set('total', 5), finish] },
        ],
      }),
    );
    const started = await client.start(flow, { input: { text: 'add' }, model: `scripted:${file}` });
    expect(started.status).toBe('running');
    handle = await startWorker({
      db: url,
      tools: [slowTool(calls)],
      leaseMs: 800,
      sweepMs: 200,
      pollingIntervalSeconds: 0.5,
      logger: silentLogger,
    });
    const deadline = Date.now() + 20_000;
    let summary = await client.status(started.runId);
    while (summary.status === 'running' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      summary = await client.status(started.runId);
    }
    expect(summary.status).toBe('completed');
    expect(summary.outputs.sum).toEqual({ total: 5 });
    expect(maxOverlap(calls)).toBe(2);
    const store = await client.db();
    const sums = (await store.events(started.runId)).filter(
      (e) => e.type === 'node.started' && e.nodeId === 'sum',
    );
    expect(sums).toHaveLength(1);
  });
});
