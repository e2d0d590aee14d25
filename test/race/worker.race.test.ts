/**
 * SIGTERM of a worker on PostgreSQL racing an approved write (a real worker process per trial, the
 * queue, a real MCP server): the write in flight is waited for and recorded before the worker leaves;
 * another worker then takes the run over without repeating it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  openApprover,
  spawnWorker,
  stopChild,
  type Approver,
  type Child,
} from '../../bench/scale-harness.js';
import { loadFlow } from '../../src/flow/load.js';
import type { Store } from '../../src/store/store.js';
import { ensureBuilt } from '../acceptance/build.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';
import {
  SEED,
  FLOW,
  between,
  checkTrial,
  inFlight,
  random,
  resumed,
  rootDir,
  tally,
  trials,
  until,
  world,
} from './harness.js';

const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const root = rootDir('worker');
const shared = world(root, 0).dir;
process.env.RACE_DATA = shared; // inherited by the workers and their MCP servers
const totals: Record<string, number> = {};
const children: Child[] = [];
let approver: Approver | null = null;
let db = '';

beforeAll(async () => {
  if (!available) return;
  ensureBuilt();
  db = schemas.urlFor(schemas.next('race'));
  approver = await openApprover(db);
}, 180_000);
afterAll(async () => {
  await Promise.all(children.map(stopChild));
  await approver?.close();
  if (available) await schemas.dropAll();
  console.log(`race SIGTERM worker: ${JSON.stringify(totals)}`);
  rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe.skipIf(!available)(
  'SIGTERM of a worker (PostgreSQL) while an approved write may be in flight',
  () => {
    const n = trials(3);
    it.each(Array.from({ length: n }, (_, i) => i))(
      'trial %i',
      async (i) => {
        const next = random(SEED * 5000 + i);
        // One data folder for the file (the write log is matched to runs by idempotency key): a worker
        // of an earlier trial that is still alive cannot log a write where no trial looks.
        const w = { dir: shared, db };
        writeFileSync(join(shared, 'delay-ms'), String(between(next, 0, 150)));
        const stopAfterMs = between(next, 0, 80);
        const atMark = next() < 0.7;
        const a = approver as Approver;
        const store: Store = await a.runtime.db();
        const worker = spawnWorker({ db, concurrency: 2, leaseMs: 300, label: `worker-${i}` });
        children.push(worker);
        let second: Child | null = null;
        try {
          await worker.waitFor(/WORKER started/);
          const first = await a.runtime.start(await loadFlow(FLOW), { input: { text: 'go' } });
          await until(store, first.runId, (r) => r.status === 'suspended', 60_000);
          const waiting = await a.runtime.status(first.runId);
          await a.runtime.approve(first.runId, { expect: waiting.suspension?.pending.id as string });
          await until(store, first.runId, atMark ? inFlight : resumed, 60_000);
          await new Promise((r) => setTimeout(r, stopAfterMs));
          worker.process.kill('SIGTERM');
          expect(await worker.exited).toBe(0);
          tally(totals, await checkTrial(store, first.runId, w.dir, ['running', 'suspended']));

          // Another worker takes over a run left running and goes on without repeating the write.
          second = spawnWorker({ db, concurrency: 2, leaseMs: 300, label: `worker-${i}b` });
          children.push(second);
          await until(store, first.runId, (r) => r.status === 'suspended', 60_000);
          await stopChild(second);
          await checkTrial(store, first.runId, w.dir, ['suspended']);
        } finally {
          // A failed trial leaves no worker behind to drive the next trial's run.
          for (const child of [worker, second])
            if (child && child.process.exitCode === null) child.process.kill('SIGKILL');
        }
      },
      120_000,
    );
  },
);
