/**
 * The multi-worker workload shared by `npm run bench:scale` and test/worker: a demo-cloud MCP server
 * over HTTP (one process, so its data file has one writer), a flow that creates a site after an
 * approval, one scripted model file per run (each run creates its own site), `agent-runtime worker`
 * processes from the built CLI, and an approver that approves every suspended run through a runtime
 * in queue mode. Nothing here is shipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { loadFlowText, type LoadedFlow } from '../src/flow/load.js';
import { createRuntime, type Runtime } from '../src/runtime/create.js';
import { RunError } from '../src/runtime/errors.js';
import type { StoredEvent } from '../src/store/store.js';
import { RunQueue } from '../src/worker/queue.js';

/** The repository root (this file is bench/scale-harness.ts, or dist/bench/scale-harness.js). */
export const ROOT = existsSync(resolve(import.meta.dirname, '../package.json'))
  ? resolve(import.meta.dirname, '..')
  : resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'dist/src/cli/main.js');
const DEMO = join(ROOT, 'examples/demo-cloud/server.js');

/** A child process with its stdout/stderr lines collected. */
export interface Child {
  process: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves with the first line matching `pattern` (rejects if the process exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Calls `listener` with every line from now on. */
  onLine(listener: (line: string) => void): void;
}

function watch(child: ChildProcess, label: string): Child {
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  const listeners: ((line: string) => void)[] = [];
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => {
      lines.push(line);
      for (const listener of listeners) listener(line);
      for (const w of waiters.filter((x) => x.pattern.test(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    });
  }
  return {
    process: child,
    lines,
    exited,
    onLine(listener) {
      listeners.push(listener);
    },
    waitFor(pattern, timeoutMs = 20_000) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolveLine, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${label}: no line ${pattern} within ${timeoutMs} ms:\n${lines.join('\n')}`)),
          timeoutMs,
        );
        waiters.push({ pattern, resolve: (line) => (clearTimeout(timer), resolveLine(line)) });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(new Error(`${label} exited (${code}) before ${pattern}:\n${lines.join('\n')}`));
        });
      });
    },
  };
}

/** Starts the demo-cloud server in HTTP mode on a free port with its data in `dataDir`. */
export async function startDemoServer(dataDir: string): Promise<{ child: Child; url: string }> {
  const process_ = spawn(process.execPath, [DEMO, '--http', '--port', '0'], {
    env: { ...process.env, DEMO_CLOUD_DATA: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const child = watch(process_, 'demo-cloud');
  const url = await child.waitFor(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  return { child, url };
}

/**
 * Starts `agent-runtime worker --db URL` from the built CLI, or `script` with `--db URL --concurrency N`
 * and its own `args`; `nodeArgs` go before the script (e.g. `--import`), `env` is added to ours.
 */
export function spawnWorker(options: {
  db: string;
  concurrency: number;
  leaseMs: number;
  label: string;
  logLevel?: string;
  script?: { path: string; args: string[] };
  nodeArgs?: string[];
  env?: Record<string, string>;
}): Child {
  const entry = options.script ? [options.script.path, ...options.script.args] : [CLI, 'worker'];
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), ...entry, '--db', options.db, '--concurrency', String(options.concurrency)],
    {
      env: {
        ...process.env,
        ...options.env,
        AGENT_RUNTIME_LEASE_MS: String(options.leaseMs),
        AGENT_RUNTIME_LOG_LEVEL: options.logLevel ?? 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return watch(child, options.label);
}

/** Stops a child with SIGTERM and waits for it. */
export async function stopChild(child: Child): Promise<number | null> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGTERM');
  return child.exited;
}

/** The workload's flow, talking to the demo server at `mcpUrl`. */
export function scaleFlow(mcpUrl: string): Promise<LoadedFlow> {
  return loadFlowText(
    `id: scale-site
version: 1
locale: en
mcpServers:
  cloud: { url: ${JSON.stringify(mcpUrl)} }
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
    tools: [space_list, web_site_list, web_site_create, slow_query]
    outputs:
      name: { required: true, sources: [evidence], from: [web_site_create, web_site_list] }
`,
    { name: 'scale-site.flow.yaml' },
  );
}

/** The site name of run `n`, and the input that names it. */
export const siteName = (n: number): string => `site-${String(n).padStart(4, '0')}`;

/**
 * Writes run `n`'s scripted model: list spaces, (optionally a slow read), create the site, ask for
 * approval when stopped, create it again once approved, set the output, finish. Returns the file.
 */
export function writeScript(dir: string, n: number, slowMs = 0): string {
  const name = siteName(n);
  const create = { tool: 'web_site_create', args: { spaceId: 's1', name } };
  const createEvidence = slowMs > 0 ? 'ev_3' : 'ev_2';
  const turns = [
    { calls: [{ tool: 'space_list', args: {} }] },
    ...(slowMs > 0 ? [{ calls: [{ tool: 'slow_query', args: { ms: slowMs } }] }] : []),
    { calls: [create] },
    {
      calls: [
        { tool: 'builtin_node_approval', args: { tool: 'web_site_create', summary: `create ${name}` } },
      ],
    },
    { calls: [create] },
    {
      calls: [
        {
          tool: 'builtin_output_set',
          args: { key: 'name', value: name, sourceType: 'evidence', sourceRef: createEvidence },
        },
      ],
    },
    { calls: [{ tool: 'builtin_node_finish', args: { summary: `created ${name}` } }] },
  ];
  const file = join(dir, `run-${n}.json`);
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

/** The model turns (steps) of one run of the workload. */
export const stepsPerRun = (slowMs = 0): number => (slowMs > 0 ? 7 : 6);

/** The process that starts and approves runs: a runtime in queue mode, and the seqs it committed per run. */
export interface Approver {
  runtime: Runtime;
  queue: RunQueue;
  /** Per run, the event seqs this process committed (its own blocks). */
  committed: Map<string, number[]>;
  close(): Promise<void>;
}

/** Opens the approver on the store at `db` (a `postgres://…?schema=` URL). */
export async function openApprover(db: string): Promise<Approver> {
  const queue = await RunQueue.open({ url: db, supervise: false });
  const committed = new Map<string, number[]>();
  const onEvent = (event: StoredEvent): void => {
    const seqs = committed.get(event.runId) ?? [];
    seqs.push(event.seq);
    committed.set(event.runId, seqs);
  };
  const runtime = createRuntime({ store: db, enqueue: queue.enqueue, logger: false, onEvent });
  return {
    runtime,
    queue,
    committed,
    async close() {
      await runtime.close();
      await queue.close();
    },
  };
}

/** Starts runs `from`…`to - 1` (queued, not driven here), `parallel` at a time. Returns their ids by n. */
export async function startRuns(
  approver: Approver,
  flow: LoadedFlow,
  scripts: string,
  range: { from: number; to: number; slowMs?: number; parallel?: number },
): Promise<Map<number, string>> {
  const ids = new Map<number, string>();
  const ns = Array.from({ length: range.to - range.from }, (_, i) => range.from + i);
  const parallel = range.parallel ?? 8;
  for (let i = 0; i < ns.length; i += parallel) {
    await Promise.all(
      ns.slice(i, i + parallel).map(async (n) => {
        const model = `scripted:${writeScript(scripts, n, range.slowMs ?? 0)}`;
        const run = await approver.runtime.start(flow, {
          input: { text: `Create a site named ${siteName(n)}` },
          model,
        });
        ids.set(n, run.runId);
      }),
    );
  }
  return ids;
}

/**
 * Approves every run of `runIds` that waits for an approval, until all have ended or `timeoutMs`
 * passed. Polls the suspended runs often and the ended ones twice a second (listing runs reads whole
 * rows: the approver must not be what the bench measures). Returns the final statuses by run id.
 */
export async function approveUntilDone(
  approver: Approver,
  runIds: readonly string[],
  timeoutMs: number,
): Promise<Map<string, string>> {
  const wanted = new Set(runIds);
  const deadline = Date.now() + timeoutMs;
  let checked = 0;
  for (;;) {
    const waiting = (await approver.runtime.list({ status: 'suspended' })).filter(
      (r) => wanted.has(r.runId) && r.suspension?.kind === 'APPROVAL',
    );
    await Promise.all(
      waiting.map((r) =>
        approver.runtime.approve(r.runId, { comment: 'ok', who: 'bench' }).catch((error: unknown) => {
          if (!(error instanceof RunError && error.code === 'RUN_CONFLICT')) throw error;
        }),
      ),
    );
    if (Date.now() - checked >= 500 || waiting.length === 0) {
      checked = Date.now();
      const ended = new Map<string, string>();
      for (const status of ['completed', 'failed', 'cancelled'] as const) {
        for (const r of await approver.runtime.list({ status }))
          if (wanted.has(r.runId)) ended.set(r.runId, r.status);
      }
      if (ended.size === wanted.size) return ended;
      if (Date.now() > deadline) {
        const left = [...wanted].filter((id) => !ended.has(id));
        throw new Error(
          `${left.length} runs did not end within ${timeoutMs} ms: ${left.slice(0, 10).join(', ')}`,
        );
      }
    }
    await new Promise((r) => setTimeout(r, waiting.length > 0 ? 10 : 50));
  }
}

/** One `WORKER run.driven` log line. */
export interface DriveLine {
  runId: string;
  status: string;
  first: number;
  last: number;
  worker: string;
}

/** The drives a worker logged (`WORKER run.driven … seqs=F-L`). */
export function driveLines(worker: Child, label: string): DriveLine[] {
  const drives: DriveLine[] = [];
  for (const line of worker.lines) {
    const m = /WORKER run\.driven runId=(\S+) status=(\S+) seqs=(\d+)-(\d+)/.exec(line);
    if (m)
      drives.push({ runId: m[1]!, status: m[2]!, first: Number(m[3]), last: Number(m[4]), worker: label });
  }
  return drives;
}

/** The writes the demo server executed (its writes.jsonl). */
export function demoWrites(
  dataDir: string,
): { tool: string; idempotencyKey: string | null; args: { name?: string } }[] {
  const file = join(dataDir, 'writes.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { tool: string; idempotencyKey: string | null; args: { name?: string } });
}

/**
 * Approves every run as soon as a worker logs that it suspended it (`WORKER run.driven … status=suspended`),
 * as a server approves when a person clicks, without polling the store; resolves when workers have
 * logged an end for `count` distinct runs (or rejects after `timeoutMs`). For a schema of its own:
 * every run the workers drive is taken to be the caller's. The caller checks the final statuses.
 */
export function approveOnSuspension(
  approver: Approver,
  workers: readonly Child[],
  count: number,
  timeoutMs: number,
): Promise<void> {
  const ended = new Set<string>();
  return new Promise<void>((resolveAll, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${count - ended.size} runs did not end within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onLine = (line: string): void => {
      const m = /WORKER run\.driven runId=(\S+) status=(\S+)/.exec(line);
      if (!m) return;
      const [, runId, status] = m as unknown as [string, string, string];
      if (status === 'suspended') {
        approver.runtime.approve(runId, { comment: 'ok', who: 'bench' }).catch((error: unknown) => {
          if (!(error instanceof RunError && error.code === 'RUN_CONFLICT'))
            reject(error instanceof Error ? error : new Error(String(error)));
        });
      } else if (status !== 'running') {
        ended.add(runId);
        if (ended.size === count) {
          clearTimeout(timer);
          resolveAll();
        }
      }
    };
    for (const worker of workers) worker.onLine(onLine);
  });
}
