/**
 * `npm run bench:scale` (after `npm run build`): throughput of `agent-runtime worker` processes sharing
 * one PostgreSQL (SPEC §13), with 1, 2 and 3 workers. Each run of the workload lists spaces, creates a
 * site on the demo-cloud MCP server (over HTTP), is stopped for approval, is approved by the bench
 * process (a runtime in queue mode, as a server would be), creates the site, sets its output and
 * finishes: 6 model turns (steps), 2 queue hand-offs. The scripted model answers at once, so this
 * measures the runtime, the store and the queue, not a model.
 *
 *   node dist/bench/scale.js [--runs N] [--workers 1,2,3] [--concurrency C]
 *
 * The database is env AGENT_RUNTIME_BENCH_PG_URL, else AGENT_RUNTIME_TEST_PG_URL, else
 * postgres://postgres@127.0.0.1:5432/test; each configuration uses a fresh schema, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import {
  approveUntilDone,
  demoWrites,
  openApprover,
  scaleFlow,
  spawnWorker,
  startDemoServer,
  startRuns,
  stepsPerRun,
  stopChild,
  type Child,
} from './scale-harness.js';

const PG_URL =
  process.env.AGENT_RUNTIME_BENCH_PG_URL ??
  process.env.AGENT_RUNTIME_TEST_PG_URL ??
  'postgres://postgres@127.0.0.1:5432/test';

interface Result {
  workers: number;
  runs: number;
  seconds: number;
  runsPerSecond: number;
  stepsPerSecond: number;
}

/** One configuration: `workers` processes drive `runs` runs in a fresh schema. */
async function measure(workers: number, runs: number, concurrency: number): Promise<Result> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  const db = url.toString();
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const children: Child[] = [];
  try {
    const demo = await startDemoServer(join(dir, 'demo'));
    children.push(demo.child);
    const flow = await scaleFlow(demo.url);
    const approver = await openApprover(db);
    try {
      const procs = Array.from({ length: workers }, (_, i) =>
        spawnWorker({ db, concurrency, leaseMs: 15_000, label: `w${i + 1}` }),
      );
      children.push(...procs);
      await Promise.all(procs.map((w) => w.waitFor(/WORKER started/)));
      const started = process.hrtime.bigint();
      const ids = await startRuns(approver, flow, dir, { from: 0, to: runs });
      const statuses = await approveUntilDone(approver, [...ids.values()], 600_000);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const failed = [...statuses.values()].filter((s) => s !== 'completed');
      if (failed.length > 0) throw new Error(`${failed.length} runs did not complete`);
      const writes = demoWrites(join(dir, 'demo')).filter((w) => w.tool === 'web_site_create');
      if (writes.length !== runs) throw new Error(`expected ${runs} writes, the server saw ${writes.length}`);
      return {
        workers,
        runs,
        seconds,
        runsPerSecond: runs / seconds,
        stepsPerSecond: (runs * stepsPerRun()) / seconds,
      };
    } finally {
      await Promise.all(children.map(stopChild));
      await approver.close();
    }
  } finally {
    await dropSchemas(schema);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Drops the store schema and the queue's (`<schema>_queue`). */
async function dropSchemas(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS "${schema}_queue" CASCADE`);
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '150' },
      workers: { type: 'string', default: '1,2,3' },
      concurrency: { type: 'string', default: '4' },
    },
  });
  const runs = Number(values.runs);
  const concurrency = Number(values.concurrency);
  const counts = values.workers.split(',').map(Number);
  process.stderr.write(
    `bench:scale: ${runs} runs per configuration, ${concurrency} runs at once per worker, database ${new URL(PG_URL).host}\n`,
  );
  const results: Result[] = [];
  for (const workers of counts) {
    const result = await measure(workers, runs, concurrency);
    process.stderr.write(`  ${workers} worker(s): ${result.seconds.toFixed(1)} s\n`);
    results.push(result);
  }
  const base = results[0]?.runsPerSecond ?? 1;
  const lines = [
    '| workers | runs | seconds | runs/s | steps/s | vs. first |',
    '|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.workers} | ${r.runs} | ${r.seconds.toFixed(1)} | ${r.runsPerSecond.toFixed(1)} | ${r.stepsPerSecond.toFixed(0)} | ${(r.runsPerSecond / base).toFixed(2)}× |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

await main();
