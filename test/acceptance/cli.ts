import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CLI, NODE, REPO_ROOT, ensureBuilt } from './build.js';

export { REPO_ROOT, ensureBuilt };

/** The acceptance flows and scripted turns (examples/acceptance). */
export const FLOWS = join(REPO_ROOT, 'examples/acceptance');
export const flowFile = (name: 'site' | 'query' | 'timeout' | 'invalid'): string =>
  join(FLOWS, `${name}.flow.yaml`);
export const turnsFile = (name: string): string => join(FLOWS, 'turns', `${name}.yaml`);

/** One trace event as the CLI writes it; fields beyond the common ones vary by type. */
export interface TraceEvent {
  seq: number;
  ts: string;
  runId: string;
  type: string;
  nodeId?: string;
  round?: number;
  [field: string]: unknown;
}

/** The run summary printed by `--json`. */
export interface Summary {
  runId: string;
  status: 'running' | 'suspended' | 'completed' | 'failed' | 'cancelled';
  suspension?: { kind: 'APPROVAL' | 'FOLLOW_UP'; pending: Record<string, unknown> };
  outputs: Record<string, Record<string, unknown>>;
  reason?: string;
  failedNode?: string;
  message?: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

/** What one CLI process did. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as one JSON object, or null when it is not exactly one JSON line. */
  summary: Summary | null;
  /** The trace events this process appended to the sandbox's trace file. */
  events: TraceEvent[];
  ms: number;
}

/** A write the demo server executed (its writes.jsonl). */
export interface DemoWrite {
  tool: string;
  args: Record<string, unknown>;
  idempotencyKey: string | null;
  reply: { code: number | string; message: string; data?: unknown };
}

const PATH_WITH_PINNED_NODE = [dirname(NODE), process.env.PATH ?? ''].join(delimiter);
const CLI_TIMEOUT_MS = 90_000;

/**
 * One test's world: a temp working directory with its own SQLite store, trace file and demo-cloud data
 * folder. `cli()` runs the built CLI (`node dist/src/cli/main.js`) as a subprocess there, with
 * `--db sqlite:<dir>/runtime.db`, `--trace <dir>/trace.jsonl` (where the command takes it) and `--json`,
 * and DEMO_CLOUD_DATA in its environment: the flows set no data folder, so the stdio demo server they
 * start inherits it. Remove it with `dispose()`.
 */
export class Sandbox {
  readonly dir: string;
  readonly db: string;
  readonly traceFile: string;
  readonly dataDir: string;
  /** Extra environment of every CLI process of this sandbox (e.g. a provider's base URL and key). */
  env: Record<string, string> = {};

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'acceptance-'));
    this.db = join(this.dir, 'runtime.db');
    this.traceFile = join(this.dir, 'trace.jsonl');
    this.dataDir = join(this.dir, 'demo-cloud');
    mkdirSync(this.dataDir);
  }

  /** Seeds the demo server's state with extra sites (in space s1 unless given). */
  seedSites(
    sites: { siteId: string; name: string; spaceId?: string; status?: 'CREATING' | 'ACTIVE' }[],
  ): void {
    const state = {
      spaces: [
        { spaceId: 's1', name: '默认空间' },
        { spaceId: 's2', name: '测试空间' },
      ],
      sites: sites.map((s) => ({ spaceId: 's1', plan: 'basic', status: 'ACTIVE', gets: 2, ...s })),
      nextSiteNo: sites.length + 1,
      idempotency: {},
    };
    writeFileSync(join(this.dataDir, 'state.json'), JSON.stringify(state, null, 2));
  }

  /**
   * Runs `agent-runtime <args>` and waits for it. `--db` is always added; `--json` and `--trace` are
   * added unless `plain` (for the commands that take them). Never throws for a non-zero exit.
   */
  async cli(
    args: string[],
    options: { json?: boolean; trace?: boolean; db?: boolean } = {},
  ): Promise<CliResult> {
    const extra: string[] = [];
    if (options.db !== false) extra.push('--db', `sqlite:${this.db}`);
    if (options.json !== false) extra.push('--json');
    if (options.trace !== false) extra.push('--trace', this.traceFile);
    const before = this.traceLines().length;
    const started = Date.now();
    const { code, stdout, stderr } = await spawnCli([...args, ...extra], this.dir, {
      DEMO_CLOUD_DATA: this.dataDir,
      ...this.env,
    });
    const ms = Date.now() - started;
    const events = this.traceLines()
      .slice(before)
      .map((line) => JSON.parse(line) as TraceEvent);
    const text = stdout.trim();
    const summary = text.startsWith('{') && !text.includes('\n') ? (JSON.parse(text) as Summary) : null;
    return { code, stdout, stderr, summary, events, ms };
  }

  /** `run FLOW --input TEXT --model scripted:TURNS`. */
  run(flow: string, turns: string, input: string): Promise<CliResult> {
    return this.cli(['run', flow, '--input', input, '--model', `scripted:${turns}`]);
  }

  approve(runId: string, comment?: string): Promise<CliResult> {
    return this.cli(['approve', runId, ...(comment === undefined ? [] : ['--comment', comment])]);
  }

  reject(runId: string, comment?: string): Promise<CliResult> {
    return this.cli(['reject', runId, ...(comment === undefined ? [] : ['--comment', comment])]);
  }

  answer(runId: string, text: string): Promise<CliResult> {
    return this.cli(['answer', runId, text]);
  }

  cancel(runId: string): Promise<CliResult> {
    return this.cli(['cancel', runId]);
  }

  /** `status RUN_ID --json` (no trace file). */
  status(runId: string): Promise<CliResult> {
    return this.cli(['status', runId], { trace: false });
  }

  /** `trace RUN_ID --json`: the events parsed from its JSON Lines, in `events`. */
  async trace(runId: string): Promise<CliResult> {
    const result = await this.cli(['trace', runId, '--json'], { trace: false, json: false });
    const events = result.stdout
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as TraceEvent);
    return { ...result, events };
  }

  /** Every event in the trace file so far (all processes of this sandbox). */
  allEvents(): TraceEvent[] {
    return this.traceLines().map((line) => JSON.parse(line) as TraceEvent);
  }

  /** The writes the demo server executed. */
  writes(): DemoWrite[] {
    return jsonLines<DemoWrite>(join(this.dataDir, 'writes.jsonl'));
  }

  /** The slow queries the demo server saw cancelled. */
  cancelled(): { tool: string; afterMs: number; reason: string }[] {
    return jsonLines(join(this.dataDir, 'cancelled.jsonl'));
  }

  /** The stored conversation of every node run (the model's messages and the tool messages), as JSON texts. */
  storedMessages(): string[] {
    const db = new DatabaseSync(this.db, { readOnly: true });
    try {
      return db
        .prepare('SELECT body FROM messages ORDER BY run_id, node_run, idx')
        .all()
        .map((row) => String(row.body));
    } finally {
      db.close();
    }
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }

  private traceLines(): string[] {
    if (!existsSync(this.traceFile)) return [];
    return readFileSync(this.traceFile, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
  }
}

function jsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** The CLI's environment: ours, with the pinned Node first on PATH, no colours, a fixed USER, no AGENT_RUNTIME_DB. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: PATH_WITH_PINNED_NODE,
    NO_COLOR: '1',
    USER: 'acceptance',
    ...extra,
  };
  delete env.AGENT_RUNTIME_DB;
  delete env.AGENT_RUNTIME_LEASE_MS;
  return env;
}

/** Spawns the built CLI with the pinned Node, stdin closed (not a TTY), and collects its output. */
function spawnCli(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(NODE, [CLI, ...args], {
      cwd,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === null)
        reject(new Error(`agent-runtime ${args.join(' ')} was killed (${signal})\n${stderr}`));
      else resolvePromise({ code, stdout, stderr });
    });
  });
}
