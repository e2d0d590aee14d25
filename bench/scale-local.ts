/**
 * The local-tool variant of the bench:scale workload: the demo cloud's three tools the flow uses, as
 * local tools of the worker process (no MCP server), each write appended to a shared log so that the
 * bench can check every site was created once. Also the same workload on SQLite in one process, the
 * reference the PostgreSQL path is compared with in the same bench run. Nothing here is shipped.
 */
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadFlowText, type LoadedFlow } from '../src/flow/load.js';
import { createRuntime } from '../src/runtime/create.js';
import { defineTool, type LocalTool } from '../src/tools/tool.js';
import { CpuMeter } from './scale-cpu.js';
import { siteName, stepsPerRun, writeScript } from './scale-harness.js';

const ok = (data: unknown) => ({ code: 0, message: 'ok', data });

/**
 * `space_list`, `web_site_list` and `web_site_create` as local tools answering like the demo server.
 * Sites live in this process (a takeover's look-back would not see another worker's); every create is
 * appended to `writeLog` as one JSON line.
 */
export function localSiteTools(writeLog: string): LocalTool[] {
  const sites: { siteId: string; spaceId: string; name: string }[] = [];
  return [
    defineTool({
      name: 'space_list',
      description: 'List the spaces',
      inputSchema: { type: 'object', properties: {} },
      execute: () => ok([{ spaceId: 's1', name: 'default', isDefault: true }]),
    }),
    defineTool<{ spaceId: string }>({
      name: 'web_site_list',
      description: 'List the sites of a space',
      inputSchema: { type: 'object', properties: { spaceId: { type: 'string' } }, required: ['spaceId'] },
      execute: ({ spaceId }) => ok(sites.filter((s) => s.spaceId === spaceId)),
    }),
    defineTool<{ spaceId: string; name: string }>({
      name: 'web_site_create',
      description: 'Create a site',
      write: true,
      inputSchema: {
        type: 'object',
        properties: { spaceId: { type: 'string' }, name: { type: 'string' } },
        required: ['spaceId', 'name'],
      },
      execute: (args, context) => {
        const site = { siteId: `w${process.pid}-${sites.length + 1}`, ...args };
        sites.push(site);
        appendFileSync(
          writeLog,
          `${JSON.stringify({ tool: 'web_site_create', idempotencyKey: context.idempotencyKey ?? null, args })}\n`,
        );
        return ok(site);
      },
    }),
  ];
}

/** The names of the local tools. */
export const LOCAL_TOOL_NAMES = ['space_list', 'web_site_list', 'web_site_create'];

/** The workload's flow without an MCP server: the same node and write policy, over the local tools. */
export function localScaleFlow(): Promise<LoadedFlow> {
  return loadFlowText(
    `id: scale-site-local
version: 1
locale: en
limits: { maxRounds: 12, maxStalls: 3, fingerprintRepeats: 2, toolTimeoutMs: 15000 }
tools:
  web_site_create:
    write: true
    params:
      spaceId: { source: evidence, from: [space_list], path: 'data.spaceId' }
      name: { source: user, required: true }
    response: { okPath: code, okValues: [0], codePath: code, messagePath: message }
    recover:
      tool: web_site_list
      args: { spaceId: 'args.spaceId' }
      found: '$count(verify.data[name = $$.args.name]) > 0'
nodes:
  - id: create
    instructions: Create the site the user names, in the default space.
    tools: [space_list, web_site_list, web_site_create]
    outputs:
      name: { required: true, sources: [evidence], from: [web_site_create, web_site_list] }
`,
    { name: 'scale-site-local.flow.yaml', knownTools: LOCAL_TOOL_NAMES },
  );
}

/** The creates a write log holds. */
export function loggedWrites(writeLog: string): { tool: string; args: { name?: string } }[] {
  if (!existsSync(writeLog)) return [];
  return readFileSync(writeLog, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { tool: string; args: { name?: string } });
}

/** CPU of the workload in this process. */
export interface InProcessResult {
  runs: number;
  seconds: number;
  cpuSeconds: number;
  cpuMsPerStep: number;
  /** CPU of the database server's processes serving it, per step (PostgreSQL only; else 0). */
  serverMsPerStep: number;
}

/** Measures a database server's CPU (seconds) between `start()` and `stop()`. */
export interface ServerMeter {
  start(): Promise<void>;
  stop(): Promise<{ seconds: number }>;
}

/**
 * Runs the local-tool workload `runs` times in this process — start (suspends for the approval),
 * approve (creates the site, finishes) — `parallel` runs at a time, after `warmUp` runs that are not
 * measured, on `store` (default a SQLite file in `dir`). Returns the process's CPU per step, and the
 * server's when `server` measures it.
 */
export async function inProcess(
  dir: string,
  runs: number,
  options: { store?: string; server?: ServerMeter; parallel?: number; warmUp?: number } = {},
): Promise<InProcessResult> {
  const parallel = options.parallel ?? 4;
  const warmUp = options.warmUp ?? 20;
  const writeLog = join(dir, 'inprocess-writes.jsonl');
  const runtime = createRuntime({
    store: options.store ?? `sqlite:${join(dir, 'bench.db')}`,
    tools: localSiteTools(writeLog),
    logger: false,
  });
  const flow = await localScaleFlow();
  const one = async (n: number): Promise<void> => {
    const model = `scripted:${writeScript(dir, n)}`;
    const started = await runtime.start(flow, {
      input: { text: `Create a site named ${siteName(n)}` },
      model,
    });
    if (started.status !== 'suspended')
      throw new Error(`sqlite run ${n} did not stop for approval: ${started.status}`);
    const ended = await runtime.approve(started.runId, { comment: 'ok', who: 'bench' });
    if (ended.status !== 'completed')
      throw new Error(`sqlite run ${n} ended ${ended.status}: ${ended.message ?? ''}`);
  };
  const batch = async (from: number, to: number): Promise<void> => {
    for (let i = from; i < to; i += parallel) {
      await Promise.all(Array.from({ length: Math.min(parallel, to - i) }, (_, k) => one(i + k)));
    }
  };
  try {
    await batch(100_000, 100_000 + warmUp);
    await options.server?.start();
    const cpu = new CpuMeter('self');
    const started = process.hrtime.bigint();
    await batch(0, runs);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const cpuSeconds = cpu.elapsed() ?? Number.NaN;
    const serverSeconds = (await options.server?.stop())?.seconds ?? 0;
    const writes = loggedWrites(writeLog).length;
    if (writes !== runs + warmUp)
      throw new Error(`sqlite: expected ${runs + warmUp} writes, logged ${writes}`);
    const steps = runs * stepsPerRun();
    return {
      runs,
      seconds,
      cpuSeconds,
      cpuMsPerStep: (cpuSeconds * 1000) / steps,
      serverMsPerStep: (serverSeconds * 1000) / steps,
    };
  } finally {
    await runtime.close();
  }
}
