/**
 * The bench:scale workload driven in this process — start (suspends for the approval), approve (creates
 * the site, finishes) — on SQLite: the references the PostgreSQL queue path is compared with in the same
 * bench run, one per variant so that each ratio divides like by like. The local-tool workload has its
 * tools in this process; the MCP workload talks to the demo-cloud server over HTTP, as the queue path's
 * mcp variant does, and the server's CPU counts as it does there. Nothing here is shipped.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedFlow } from '../src/flow/load.js';
import { createRuntime, type Runtime } from '../src/runtime/create.js';
import type { LocalTool } from '../src/tools/tool.js';
import { CpuMeter } from './scale-cpu.js';
import {
  demoWrites,
  scaleFlow,
  siteName,
  startDemoServer,
  stepsPerRun,
  stopChild,
  writeScript,
} from './scale-harness.js';
import { localScaleFlow, localSiteTools, loggedWrites } from './scale-local.js';

/** What the in-process measure drives: a flow, its tools and the processes serving them. */
export interface Workload {
  flow: LoadedFlow;
  /** The runtime's local tools (none when the tools are on the MCP server). */
  tools: LocalTool[];
  /** The processes besides this one that serve the tools (the MCP server): their CPU counts. */
  pids: number[];
  /** The sites created so far (`web_site_create` executed). */
  creates(): number;
  /**
   * Called after the warm-up. The MCP server reads and rewrites its whole state on every call, so its
   * cost per call grows with the sites created: it starts the measure empty, as in the queue path.
   */
  reset(): void;
  close(): Promise<void>;
}

/** The workload with the demo cloud's tools as local tools of this process (writes logged in `dir`). */
export async function localWorkload(dir: string): Promise<Workload> {
  const writeLog = join(dir, 'inprocess-writes.jsonl');
  return {
    flow: await localScaleFlow(),
    tools: localSiteTools(writeLog),
    pids: [],
    creates: () => loggedWrites(writeLog).length,
    reset: () => undefined,
    close: () => Promise.resolve(),
  };
}

/** The workload on the demo-cloud MCP server over HTTP, a child process with its data in `dir`. */
export async function mcpWorkload(dir: string): Promise<Workload> {
  const data = join(dir, 'demo');
  const demo = await startDemoServer(data);
  const stop = async (): Promise<void> => void (await stopChild(demo.child));
  try {
    return {
      flow: await scaleFlow(demo.url),
      tools: [],
      pids: [demo.child.process.pid ?? -1],
      creates: () => demoWrites(data).filter((w) => w.tool === 'web_site_create').length,
      reset() {
        rmSync(join(data, 'state.json'), { force: true });
        rmSync(join(data, 'writes.jsonl'), { force: true });
      },
      close: stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** CPU of the workload driven in this process. */
export interface InProcessResult {
  runs: number;
  seconds: number;
  /** This process (runtime, store, MCP client), per step. */
  cpuMsPerStep: number;
  /** The processes serving the tools (the MCP server), per step; 0 for local tools. */
  toolsMsPerStep: number;
  /** The database server's processes serving it, per step (PostgreSQL only; else 0). */
  serverMsPerStep: number;
}

/** Everything the workload cost per step: this process, the MCP server, the database server. */
export const totalMsPerStep = (r: InProcessResult): number =>
  r.cpuMsPerStep + r.toolsMsPerStep + r.serverMsPerStep;

/** Measures a database server's CPU (seconds) between `start()` and `stop()`. */
export interface ServerMeter {
  start(): Promise<void>;
  stop(): Promise<{ seconds: number }>;
}

/**
 * Runs `workload` (default: local tools) `runs` times in this process — start (suspends for the
 * approval), approve (creates the site, finishes) — `parallel` runs at a time, after `warmUp` runs that
 * are not measured, on `store` (default a SQLite file in `dir`). Returns the CPU per step of this
 * process, of the tools' processes and, when `server` measures it, of the database server.
 */
export async function inProcess(
  dir: string,
  runs: number,
  options: {
    store?: string;
    server?: ServerMeter;
    parallel?: number;
    warmUp?: number;
    workload?: (dir: string) => Promise<Workload>;
  } = {},
): Promise<InProcessResult> {
  const parallel = options.parallel ?? 4;
  const warmUp = options.warmUp ?? 20;
  const workload = await (options.workload ?? localWorkload)(dir);
  const runtime = createRuntime({
    store: options.store ?? `sqlite:${join(dir, 'bench.db')}`,
    tools: workload.tools,
    logger: false,
  });
  const batch = async (from: number, to: number): Promise<void> => {
    for (let i = from; i < to; i += parallel) {
      const ns = Array.from({ length: Math.min(parallel, to - i) }, (_, k) => i + k);
      await Promise.all(ns.map((n) => startAndApprove(runtime, workload.flow, dir, n)));
    }
  };
  try {
    await batch(100_000, 100_000 + warmUp);
    expectCreates(workload.creates(), warmUp, 'warm-up');
    workload.reset();
    const before = workload.creates();
    await options.server?.start();
    const cpu = new CpuMeter('self');
    const tools = workload.pids.map((pid) => new CpuMeter(pid));
    const started = process.hrtime.bigint();
    await batch(0, runs);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuSeconds = cpu.elapsed() ?? Number.NaN;
    const toolsSeconds = tools.reduce((a, m) => a + (m.elapsed() ?? Number.NaN), 0);
    const serverSeconds = (await options.server?.stop())?.seconds ?? 0;
    expectCreates(workload.creates() - before, runs, 'measure');
    const perStep = (s: number): number => (s * 1000) / (runs * stepsPerRun());
    return {
      runs,
      seconds,
      cpuMsPerStep: perStep(cpuSeconds),
      toolsMsPerStep: perStep(toolsSeconds),
      serverMsPerStep: perStep(serverSeconds),
    };
  } finally {
    await runtime.close();
    await workload.close();
  }
}

/** Every run creates its site exactly once. */
function expectCreates(seen: number, runs: number, phase: string): void {
  if (seen !== runs) throw new Error(`in process, ${phase}: expected ${runs} sites created, saw ${seen}`);
}

/** Run `n`: started (stops for the approval), approved (creates the site), completed. */
async function startAndApprove(runtime: Runtime, flow: LoadedFlow, dir: string, n: number): Promise<void> {
  const model = `scripted:${writeScript(dir, n)}`;
  const started = await runtime.start(flow, { input: { text: `Create a site named ${siteName(n)}` }, model });
  if (started.status !== 'suspended')
    throw new Error(`in-process run ${n} did not stop for approval: ${started.status}`);
  const ended = await runtime.approve(started.runId, { comment: 'ok', who: 'bench' });
  if (ended.status !== 'completed')
    throw new Error(`in-process run ${n} ended ${ended.status}: ${ended.message ?? ''}`);
}
