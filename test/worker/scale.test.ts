/**
 * Done-when of the HTTP API on the real server: three `agent-runtime worker` processes drive 300 runs with
 * approvals to completion; no run is driven by two workers at once (the event seqs each drive committed
 * partition every run's trace) and no write executes twice (the demo server's write log).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  approveUntilDone,
  demoWrites,
  driveLines,
  openApprover,
  scaleFlow,
  siteName,
  spawnWorker,
  startDemoServer,
  startRuns,
  stopChild,
  type Child,
} from '../../bench/scale-harness.js';
import { ensureBuilt } from '../acceptance/build.js';
import { PG_URL, SchemaPool, pgAvailable } from '../store/postgres-server.js';
import { expectPartitioned } from './checks.js';

const RUNS = Number(process.env.AGENT_RUNTIME_TEST_SCALE_RUNS ?? 300);
const available = await pgAvailable();
const schemas = new SchemaPool(PG_URL);
const dir = mkdtempSync(join(tmpdir(), 'scale-'));
const children: Child[] = [];
afterAll(async () => {
  await Promise.all(children.map(stopChild));
  if (available) await schemas.dropAll();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe.runIf(available)('three workers on one PostgreSQL', () => {
  it(
    `drive ${RUNS} runs with approvals to completion, each run by one worker at a time, each write once`,
    { timeout: 240_000 },
    async () => {
      ensureBuilt();
      const schema = schemas.next('scale');
      const db = schemas.urlFor(schema);
      const demo = await startDemoServer(join(dir, 'demo'));
      children.push(demo.child);
      const flow = await scaleFlow(demo.url);
      const approver = await openApprover(db);
      const workers = ['w1', 'w2', 'w3'].map((label) =>
        spawnWorker({ db, concurrency: 4, leaseMs: 3000, label }),
      );
      children.push(...workers);
      await Promise.all(workers.map((w) => w.waitFor(/WORKER started/)));

      const started = Date.now();
      const ids = await startRuns(approver, flow, dir, { from: 0, to: RUNS });
      const statuses = await approveUntilDone(approver, [...ids.values()], 200_000);
      const seconds = (Date.now() - started) / 1000;
      process.stderr.write(
        `scale: ${RUNS} runs in ${seconds.toFixed(1)} s (${(RUNS / seconds).toFixed(1)} runs/s)\n`,
      );

      expect([...statuses.values()].filter((s) => s !== 'completed')).toEqual([]);
      const store = await approver.runtime.db();
      for (const [n, runId] of ids) {
        const summary = await approver.runtime.status(runId);
        expect(summary.outputs).toEqual({ create: { name: siteName(n) } });
      }
      // Stopping lets every drive log its line (a run is completed in the store a moment before).
      expect(await Promise.all(workers.map(stopChild))).toEqual([0, 0, 0]);
      // One worker at a time: the blocks of seqs committed by each drive and by the approver partition
      // every run's trace (two drivers at once would interleave their seqs).
      const drives = workers.flatMap((w, i) => driveLines(w, `w${i + 1}`));
      await expectPartitioned(store, [...ids.values()], drives, approver.committed);
      expect(new Set(drives.map((d) => d.worker)).size).toBe(3);
      for (const w of workers) expect(w.lines.filter((l) => /WORKER run\.(lost|error)/.test(l))).toEqual([]);

      // Each approved write executed exactly once.
      const writes = demoWrites(join(dir, 'demo')).filter((w) => w.tool === 'web_site_create');
      expect(writes).toHaveLength(RUNS);
      expect(new Set(writes.map((w) => w.idempotencyKey)).size).toBe(RUNS);
      expect(new Set(writes.map((w) => w.args.name)).size).toBe(RUNS);

      await approver.close();
    },
  );
});
