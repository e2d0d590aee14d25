import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CLI, NODE, REPO_ROOT } from '../../acceptance/build.js';

/** The suite's flow, its input, and the texts a person gives it (examples/crash). */
export const CRASH_FLOW = join(REPO_ROOT, 'examples/crash/flow.yaml');
export const INPUT = '在默认空间创建站点 官网，发布后通知运维';
export const MODEL_QUESTION = '要发布哪个版本？';
export const VERSION_ANSWER = 'v2';
/** The answer to the runtime's own question about a write whose result is unknown. */
export const RECOVERY_ANSWER = '不要重试这个写操作，继续后面的步骤';
/** A short lease, so that a dead driver's run can be resumed almost at once. */
export const LEASE_MS = 300;

const COMPILE_CACHE = join(tmpdir(), 'g2rain-crash-compile-cache');
const CLI_TIMEOUT_MS = 60_000;

/** What one CLI process did. */
export interface CliOutcome {
  args: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** A run's row as the suite reads it straight from the SQLite file. */
export interface RunRow {
  runId: string;
  status: string;
  suspension: { kind: 'APPROVAL' | 'FOLLOW_UP'; pending: Record<string, unknown> } | null;
  outputs: Record<string, unknown>;
  state: {
    run: {
      inFlight: { tool: string; args: Record<string, unknown>; key: string }[];
      approvals: { tool: string; args: Record<string, unknown>; consumed: boolean }[];
    };
  } | null;
  version: number;
  lastSeq: number;
  leaseExpiresAt: number | null;
  message: string | null;
  reason: string | null;
}

/** One trace event as stored. */
export interface TraceEvent {
  seq: number;
  type: string;
  [field: string]: unknown;
}

/** One write the server executed (its writes.jsonl). */
export interface WriteEntry {
  ts: string;
  tool: string;
  args: Record<string, unknown>;
  idempotencyKey: string | null;
  reply: { code: number | string; message: string; data?: unknown };
}

/**
 * One copy of the world a run lives in: a folder with the SQLite store (`runtime.db`) and the crash
 * server's data folder (`data/`: state.json and the write log writes.jsonl). Every CLI process runs
 * in it with `--db sqlite:<dir>/runtime.db --json`, the pinned Node, DEMO_CLOUD_DATA=<dir>/data and
 * AGENT_RUNTIME_LEASE_MS=300. The suite reads the store with node:sqlite directly (no CLI process).
 */
export class World {
  readonly db: string;
  readonly dataDir: string;

  constructor(readonly dir: string) {
    this.db = join(dir, 'runtime.db');
    this.dataDir = join(dir, 'data');
    mkdirSync(this.dataDir, { recursive: true });
  }

  /** A fresh, empty world in the temp folder. */
  static fresh(prefix = 'crash-'): World {
    return new World(mkdtempSync(join(tmpdir(), prefix)));
  }

  /** A new world holding a copy of this one's store and data (consistent only while no process writes). */
  copy(prefix = 'crash-'): World {
    const next = World.fresh(prefix);
    if (existsSync(this.db)) {
      const db = new DatabaseSync(this.db);
      try {
        db.exec(`VACUUM INTO '${next.db.replaceAll("'", "''")}'`);
      } finally {
        db.close();
      }
    }
    cpSync(this.dataDir, next.dataDir, { recursive: true });
    return next;
  }

  /** The environment of a CLI process in this world. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env))
      if (key.startsWith('AGENT_RUNTIME_') || key.startsWith('CRASH_CLOUD_')) delete env[key];
    return {
      ...env,
      PATH: [dirname(NODE), process.env.PATH ?? ''].join(delimiter),
      NO_COLOR: '1',
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      DEMO_CLOUD_DATA: this.dataDir,
      AGENT_RUNTIME_LEASE_MS: String(LEASE_MS),
      ...extra,
    };
  }

  /** Starts `agent-runtime <args> --db … --json` without waiting (stdin closed: never a TTY). */
  spawn(
    args: string[],
    env: Record<string, string> = {},
  ): { child: ChildProcess; done: Promise<CliOutcome> } {
    const full = [...args, '--db', `sqlite:${this.db}`, '--json'];
    const started = Date.now();
    const child = spawn(NODE, [CLI, ...full], {
      cwd: this.dir,
      env: this.env(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_TIMEOUT_MS);
    const done = new Promise<CliOutcome>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ args: full, code, signal, stdout, stderr, ms: Date.now() - started });
      });
    });
    return { child, done };
  }

  /** Runs `agent-runtime <args>` to its end. */
  cli(args: string[], env: Record<string, string> = {}): Promise<CliOutcome> {
    return this.spawn(args, env).done;
  }

  /** The id of the (only) run in this world's store, or null before one was created. */
  runId(): string | null {
    const rows = this.query<{ run_id: string }>('SELECT run_id FROM runs WHERE parent_run_id IS NULL');
    if (rows.length > 1) throw new Error(`world ${this.dir} holds ${rows.length} runs`);
    return rows[0]?.run_id ?? null;
  }

  /** The run's row. */
  row(runId: string): RunRow {
    const rows = this.query<Record<string, unknown>>('SELECT * FROM runs WHERE run_id = ?', runId);
    const r = rows[0];
    if (!r) throw new Error(`no run ${runId} in ${this.db}`);
    const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : null);
    return {
      runId,
      status: String(r.status),
      suspension: json(r.suspension) as RunRow['suspension'],
      outputs: json(r.outputs) as Record<string, unknown>,
      state: json(r.state) as RunRow['state'],
      version: Number(r.version),
      lastSeq: Number(r.last_seq),
      leaseExpiresAt: r.lease_expires_at === null ? null : Number(r.lease_expires_at),
      message: (r.message as string | null) ?? null,
      reason: (r.reason as string | null) ?? null,
    };
  }

  /** Everything stored about the run except its version, lease expiry and update time (to compare steps). */
  content(runId: string): string {
    const [row] = this.query<Record<string, unknown>>('SELECT * FROM runs WHERE run_id = ?', runId);
    if (!row) return '';
    const { version: _v, lease_expires_at: _l, updated_at: _u, ...rest } = row;
    const count = (table: string) =>
      this.query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE run_id = ?`, runId)[0]?.n;
    return JSON.stringify([rest, count('events'), count('messages'), count('evidence')]);
  }

  /** The run's trace events in seq order. */
  events(runId: string): TraceEvent[] {
    return this.query<{ body: string }>('SELECT body FROM events WHERE run_id = ? ORDER BY seq', runId).map(
      (r) => JSON.parse(r.body) as TraceEvent,
    );
  }

  /** The run's stored conversation messages (all node runs), in order. */
  messages(runId: string): { role: string; content?: string; [field: string]: unknown }[] {
    return this.query<{ body: string }>(
      'SELECT body FROM messages WHERE run_id = ? ORDER BY node_run, idx',
      runId,
    ).map((r) => (JSON.parse(r.body) as { message: { role: string } }).message);
  }

  /** The run's evidence (id, tool, outcome, payload) in order. */
  evidence(runId: string): { id: string; tool: string; outcome: string; payload: unknown }[] {
    return this.query<{ body: string }>(
      'SELECT body FROM evidence WHERE run_id = ? ORDER BY pos, item',
      runId,
    ).map((r) => {
      const e = JSON.parse(r.body) as { id: string; tool: string; outcome: string; payload: unknown };
      return { id: e.id, tool: e.tool, outcome: e.outcome, payload: e.payload };
    });
  }

  /** Every write the crash server executed in this world, in order. */
  writes(): WriteEntry[] {
    const file = join(this.dataDir, 'writes.jsonl');
    if (!existsSync(file)) return [];
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as WriteEntry);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }

  private query<T>(sql: string, ...params: string[]): T[] {
    if (!existsSync(this.db)) return [];
    const db = new DatabaseSync(this.db, { readOnly: true });
    try {
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'runs'").all();
      if (tables.length === 0) return [];
      return db.prepare(sql).all(...params) as T[];
    } finally {
      db.close();
    }
  }
}

/** The pids of a process's children (Linux /proc; empty elsewhere). */
export function childPids(pid: number): number[] {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return [];
  const pids: number[] = [];
  for (const task of readdirSync(tasks)) {
    const file = join(tasks, task, 'children');
    if (!existsSync(file)) continue;
    for (const part of readFileSync(file, 'utf8').trim().split(/\s+/)) if (part) pids.push(Number(part));
  }
  return pids;
}

/** SIGKILLs a process; one that has already gone is fine. */
export function killProcess(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Resolves after `ms`. Cross-process waits have nothing to await but time. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Runs `task` over `items` with at most `limit` at once; results in input order. */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Polls `check` until it holds; throws after `ms`. */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
