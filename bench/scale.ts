/**
 * `npm run bench:scale` (after `npm run build`): throughput and CPU per step of `agent-runtime worker`
 * processes sharing one PostgreSQL, with 1, 2 and 3 workers. Each run of the workload
 * lists spaces, creates a site, is stopped for approval, is approved by the bench process (a runtime
 * in queue mode, as a server would be), creates the site, sets its output and finishes: 6 model turns
 * (steps), 2 queue hand-offs. The scripted model answers at once, so this measures the runtime, the
 * store and the queue, not a model. Two variants: `mcp` (the demo-cloud MCP server over HTTP) and
 * `local` (the same tools as local tools of the workers). In the same invocation, the same workload on
 * SQLite in one process gives each variant its reference CPU per step: local tools for `local`; the
 * demo server over HTTP for `mcp`, the server's CPU included and `--runs` runs (its cost per call grows
 * with the sites it holds), so that both sides of the ratio do the same work.
 *
 * CPU is accounted per component from `/proc` (workers, MCP server, PostgreSQL backends serving the
 * bench's connections, found by `application_name`) and `process.cpuUsage` (this process: starting and
 * approving runs); queries are counted in every node process (bench/count-queries.ts).
 *
 *   node dist/bench/scale.js [--runs N] [--workers 1,2,3] [--concurrency C] [--variants mcp,local]
 *                            [--sqlite-runs N]
 *
 * The database is env AGENT_RUNTIME_BENCH_PG_URL, else AGENT_RUNTIME_TEST_PG_URL, else
 * postgres://postgres@127.0.0.1:5432/test; each configuration uses a fresh schema, dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { queryCounts, resetQueryCounts, type QueryCounts } from './count-queries.js';
import { CpuMeter, PgBackendSampler, hasProcStat } from './scale-cpu.js';
import {
  approveOnSuspension,
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
import { inProcess, mcpWorkload, totalMsPerStep, type InProcessResult } from './scale-inprocess.js';
import { localScaleFlow, loggedWrites } from './scale-local.js';

const PG_URL =
  process.env.AGENT_RUNTIME_BENCH_PG_URL ??
  process.env.AGENT_RUNTIME_TEST_PG_URL ??
  'postgres://postgres@127.0.0.1:5432/test';
const HERE = import.meta.dirname;

type Variant = 'mcp' | 'local';

/** CPU seconds by component over one measure. */
interface Cpu {
  workers: number;
  postgres: number;
  mcp: number;
  approver: number;
}

interface Result {
  variant: Variant;
  workers: number;
  runs: number;
  seconds: number;
  cpu: Cpu;
  backends: number;
  workerQueries: QueryCounts;
  approverQueries: QueryCounts;
}

const steps = (r: Result): number => r.runs * stepsPerRun();

/** Asks a preloaded worker for its query counts (SIGUSR2) and waits for the answer in its file. */
async function workerQueries(child: Child, file: string, seq: number): Promise<QueryCounts> {
  child.process.kill('SIGUSR2');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const read = readCounts(file);
    if (read?.seq === seq) return read;
    if (Date.now() > deadline) throw new Error(`worker ${file}: no query counts #${seq}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The counts file, or null while it is missing or half written. */
function readCounts(file: string): (QueryCounts & { seq: number }) | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as QueryCounts & { seq: number };
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}

const sumCounts = (list: QueryCounts[]): QueryCounts => ({
  store: list.reduce((a, c) => a + c.store, 0),
  queue: list.reduce((a, c) => a + c.queue, 0),
});
const minus = (a: QueryCounts, b: QueryCounts): QueryCounts => ({
  store: a.store - b.store,
  queue: a.queue - b.queue,
});

/** One configuration: `workers` processes drive `runs` runs in a fresh schema. */
async function measure(
  variant: Variant,
  workers: number,
  runs: number,
  concurrency: number,
): Promise<Result> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  url.searchParams.set('application_name', schema);
  const db = url.toString();
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-'));
  const children: Child[] = [];
  try {
    const demo = variant === 'mcp' ? await startDemoServer(join(dir, 'demo')) : null;
    if (demo) children.push(demo.child);
    const flow = demo ? await scaleFlow(demo.url) : await localScaleFlow();
    const approver = await openApprover(db);
    try {
      const writeLog = join(dir, 'local-writes.jsonl');
      const procs = spawnBenchWorkers({ variant, workers, concurrency, db, dir, writeLog });
      children.push(...procs);
      await Promise.all(procs.map((w) => w.waitFor(/WORKER started/)));
      const countFiles = procs.map((_, i) => join(dir, `w${i + 1}.queries.json`));
      const measured = await accounted(schema, procs, countFiles, demo?.child ?? null, async () => {
        const ended = approveOnSuspension(approver, procs, runs, 600_000);
        const ids = await startRuns(approver, flow, dir, { from: 0, to: runs });
        await ended;
        return [...ids.values()];
      });
      const completed = new Set((await approver.runtime.list({ status: 'completed' })).map((r) => r.runId));
      const failed = measured.value.filter((id) => !completed.has(id));
      if (failed.length > 0) throw new Error(`${failed.length} runs did not complete`);
      const writes = (demo ? demoWrites(join(dir, 'demo')) : loggedWrites(writeLog)).filter(
        (w) => w.tool === 'web_site_create',
      );
      if (writes.length !== runs) throw new Error(`expected ${runs} writes, saw ${writes.length}`);
      const { value: _ids, ...rest } = measured;
      return { variant, workers, runs, ...rest };
    } finally {
      await Promise.all(children.map(stopChild));
      await approver.close();
    }
  } finally {
    await dropSchemas(schema);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Worker processes with the query counter preloaded: the CLI's (mcp) or bench/scale-worker.ts (local). */
function spawnBenchWorkers(o: {
  variant: Variant;
  workers: number;
  concurrency: number;
  db: string;
  dir: string;
  writeLog: string;
}): Child[] {
  return Array.from({ length: o.workers }, (_, i) =>
    spawnWorker({
      db: o.db,
      concurrency: o.concurrency,
      leaseMs: 15_000,
      label: `w${i + 1}`,
      nodeArgs: ['--import', join(HERE, 'count-queries.js')],
      env: { BENCH_QUERY_COUNTS: join(o.dir, `w${i + 1}.queries.json`) },
      ...(o.variant === 'local'
        ? { script: { path: join(HERE, 'scale-worker.js'), args: ['--writes', o.writeLog] } }
        : {}),
    }),
  );
}

/** What `accounted` measured around its body. */
type Accounted<T> = Omit<Result, 'variant' | 'workers' | 'runs'> & { value: T };

/**
 * Runs `body` with CPU and query accounting: the workers' and the MCP server's CPU (/proc), this
 * process's (the approver), the PostgreSQL backends of `appName`, and the statements each sent
 * (workers answer in `countFiles`).
 */
async function accounted<T>(
  appName: string,
  procs: Child[],
  countFiles: string[],
  mcp: Child | null,
  body: () => Promise<T>,
): Promise<Accounted<T>> {
  const countFile = (i: number): string => countFiles[i] ?? '';
  const before = await Promise.all(procs.map((w, i) => workerQueries(w, countFile(i), 1)));
  const sampler = new PgBackendSampler(PG_URL, appName);
  await sampler.start();
  const meters = procs.map((w) => new CpuMeter(w.process.pid ?? -1));
  const mcpMeter = mcp ? new CpuMeter(mcp.process.pid ?? -1) : null;
  const self = new CpuMeter('self');
  resetQueryCounts();
  const started = process.hrtime.bigint();
  const value = await body();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const approver = self.elapsed() ?? Number.NaN;
  const approverQueries = queryCounts();
  const workers = meters.reduce((a, m) => a + (m.elapsed() ?? Number.NaN), 0);
  const mcpCpu = mcpMeter?.elapsed() ?? 0;
  const after = await Promise.all(procs.map((w, i) => workerQueries(w, countFile(i), 2)));
  const pg = await sampler.stop();
  return {
    value,
    seconds,
    cpu: { workers, postgres: pg.seconds, mcp: mcpCpu, approver },
    backends: pg.backends,
    workerQueries: minus(sumCounts(after), sumCounts(before)),
    approverQueries,
  };
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

const ms = (seconds: number, r: Result): string => ((seconds * 1000) / steps(r)).toFixed(2);
const perStep = (n: number, r: Result): string => (n / steps(r)).toFixed(1);
const total = (c: Cpu): number => c.workers + c.postgres + c.mcp + c.approver;

/** The SQLite in-process references: local tools, and the MCP server (when the mcp variant runs). */
interface References {
  local: number;
  mcp: number | null;
}

const ratio = (t: number, ref: number | null): string => (ref === null ? '–' : `${(t / ref).toFixed(1)}×`);

function table(results: Result[], refs: References): string[] {
  return [
    '| variant | workers | runs | s | runs/s | steps/s | CPU ms/step: workers | PostgreSQL | MCP server | approver | total | total ÷ SQLite, same tools | total ÷ SQLite, local tools | queries/step: workers (store+queue) | approver (store+queue) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map((r) => {
      const t = (total(r.cpu) * 1000) / steps(r);
      return (
        `| ${r.variant} | ${r.workers} | ${r.runs} | ${r.seconds.toFixed(1)} | ${(r.runs / r.seconds).toFixed(1)} | ` +
        `${(steps(r) / r.seconds).toFixed(0)} | ${ms(r.cpu.workers, r)} | ${ms(r.cpu.postgres, r)} | ` +
        `${r.variant === 'mcp' ? ms(r.cpu.mcp, r) : '–'} | ${ms(r.cpu.approver, r)} | ${t.toFixed(2)} | ` +
        `${ratio(t, r.variant === 'mcp' ? refs.mcp : refs.local)} | ${ratio(t, refs.local)} | ` +
        `${perStep(r.workerQueries.store, r)}+${perStep(r.workerQueries.queue, r)} | ` +
        `${perStep(r.approverQueries.store, r)}+${perStep(r.approverQueries.queue, r)} |`
      );
    }),
  ];
}

async function withDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-inprocess-'));
  try {
    return await body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The local-tool workload driven in this process on PostgreSQL (a schema of its own, dropped after). */
async function postgresInProcess(dir: string, runs: number): Promise<InProcessResult> {
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  url.searchParams.set('application_name', schema);
  try {
    return await inProcess(dir, runs, {
      store: url.toString(),
      server: new PgBackendSampler(PG_URL, schema),
    });
  } finally {
    await dropSchemas(schema);
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '150' },
      workers: { type: 'string', default: '1,2,3' },
      concurrency: { type: 'string', default: '4' },
      variants: { type: 'string', default: 'mcp,local' },
      'sqlite-runs': { type: 'string', default: '200' },
    },
  });
  if (!hasProcStat()) process.stderr.write('bench:scale: no /proc here: CPU columns will read NaN\n');
  const runs = Number(values.runs);
  const concurrency = Number(values.concurrency);
  const counts = values.workers.split(',').map(Number);
  const variants = values.variants.split(',') as Variant[];
  process.stderr.write(
    `bench:scale: ${runs} runs per configuration, ${concurrency} runs at once per worker, database ${new URL(PG_URL).host}\n`,
  );
  const sqliteRuns = Number(values['sqlite-runs']);
  const sqlite = await withDir((dir) => inProcess(dir, sqliteRuns));
  process.stderr.write(
    `  SQLite in process, local tools: ${sqlite.cpuMsPerStep.toFixed(3)} ms CPU per step\n`,
  );
  const sqliteMcp = variants.includes('mcp')
    ? await withDir((dir) => inProcess(dir, runs, { workload: mcpWorkload }))
    : null;
  if (sqliteMcp)
    process.stderr.write(
      `  SQLite in process, MCP server: ${totalMsPerStep(sqliteMcp).toFixed(3)} ms CPU per step\n`,
    );
  const pgInProcess = await withDir((dir) => postgresInProcess(dir, sqliteRuns));
  const results: Result[] = [];
  for (const variant of variants) {
    for (const workers of counts) {
      const result = await measure(variant, workers, runs, concurrency);
      process.stderr.write(`  ${variant}, ${workers} worker(s): ${result.seconds.toFixed(1)} s\n`);
      results.push(result);
    }
  }
  const refs = { local: totalMsPerStep(sqlite), mcp: sqliteMcp ? totalMsPerStep(sqliteMcp) : null };
  const lines = [...referenceLines(sqlite, sqliteMcp, pgInProcess), '', ...table(results, refs)];
  process.stdout.write(`${lines.join('\n')}\n`);
}

const stepsPerSecond = (r: InProcessResult): string => ((r.runs * stepsPerRun()) / r.seconds).toFixed(0);

/** The in-process measures: the SQLite references (local tools, MCP server) and PostgreSQL without the queue. */
function referenceLines(
  sqlite: InProcessResult,
  sqliteMcp: InProcessResult | null,
  pgInProcess: InProcessResult,
): string[] {
  return [
    `SQLite in one process, local tools, same workload: ${sqlite.cpuMsPerStep.toFixed(3)} ms CPU per step ` +
      `(${sqlite.runs} runs, ${stepsPerSecond(sqlite)} steps/s)`,
    ...(sqliteMcp
      ? [
          '',
          `SQLite in one process, demo MCP server over HTTP, same workload: ` +
            `${totalMsPerStep(sqliteMcp).toFixed(3)} ms CPU per step = ` +
            `${sqliteMcp.cpuMsPerStep.toFixed(3)} ms in the process (runtime, store, MCP client) + ` +
            `${sqliteMcp.toolsMsPerStep.toFixed(3)} ms in the MCP server ` +
            `(${sqliteMcp.runs} runs, ${stepsPerSecond(sqliteMcp)} steps/s)`,
        ]
      : []),
    '',
    `PostgreSQL in one process (no queue, no workers), local tools, same workload: ` +
      `${pgInProcess.cpuMsPerStep.toFixed(3)} ms CPU per step in the process + ` +
      `${pgInProcess.serverMsPerStep.toFixed(3)} ms in PostgreSQL`,
  ];
}

await main();
