import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { openStore } from '../../../src/store/open.js';
import type { RunRecord, Store, StoredEvent } from '../../../src/store/store.js';
import { CLI, NODE, REPO_ROOT, ensureBuilt } from '../../acceptance/build.js';

export { ensureBuilt, REPO_ROOT };

/** The demo MCP server (examples/demo-cloud). */
export const DEMO_SERVER = join(REPO_ROOT, 'examples/demo-cloud/server.js');

/** What one CLI process did. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is exactly one JSON value, else undefined. */
  json: unknown;
}

/** The CLI's environment: ours minus the runtime's own variables, pinned Node first on PATH, no colours. */
export function cliEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: [dirname(NODE), process.env.PATH ?? ''].join(delimiter),
    NO_COLOR: '1',
    USER: 'tester',
  };
  for (const key of Object.keys(env)) if (key.startsWith('AGENT_RUNTIME_')) delete env[key];
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Starts `agent-runtime <args>` (the built CLI) without waiting; stdin is closed, so it is never a TTY. */
export function spawnCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): ChildProcess {
  return spawn(NODE, [CLI, ...args], {
    cwd: options.cwd,
    env: cliEnv(options.env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `agent-runtime <args>` to its end. Never throws for a non-zero exit. */
export function runCli(
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined> },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnCli(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === null)
        return reject(new Error(`agent-runtime ${args.join(' ')} was killed (${String(signal)})\n${stderr}`));
      let json: unknown;
      try {
        json = stdout.trim() === '' ? undefined : JSON.parse(stdout);
      } catch {
        json = undefined; // not one JSON value (e.g. JSON Lines, or human-readable text)
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/**
 * A test's world: a temp folder (the CLI's cwd) with a SQLite store, a trace file, a demo-cloud data
 * folder and flow files written by the test. `cli()` adds `--db sqlite:<dir>/runtime.db`.
 */
export class World {
  readonly dir = mkdtempSync(join(tmpdir(), 'cli-test-'));
  readonly dbUrl = `sqlite:${join(this.dir, 'runtime.db')}`;
  readonly traceFile = join(this.dir, 'trace.jsonl');
  readonly dataDir = join(this.dir, 'demo-data');
  private store: Store | null = null;

  /** Writes a file under the world's folder; returns its absolute path. */
  write(name: string, text: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  /** Runs the CLI in this world with `--db` added (unless `db: false`). */
  cli(
    args: string[],
    options: { db?: boolean; env?: Record<string, string | undefined> } = {},
  ): Promise<CliResult> {
    return runCli(options.db === false ? args : [...args, '--db', this.dbUrl], {
      cwd: this.dir,
      env: options.env ?? {},
    });
  }

  /** The store, opened in this process (SQLite allows the CLI processes alongside). */
  async db(): Promise<Store> {
    this.store ??= await openStore(this.dbUrl);
    return this.store;
  }

  /** A run's row and events, to prove a refused command changed nothing. */
  async snapshot(runId: string): Promise<{ row: RunRecord | null; events: StoredEvent[]; runs: number }> {
    const store = await this.db();
    return {
      row: await store.getRun(runId),
      events: await store.events(runId),
      runs: (await store.listRuns()).length,
    };
  }

  /** The trace file's events. */
  traceEvents(): StoredEvent[] {
    if (!existsSync(this.traceFile)) return [];
    return readFileSync(this.traceFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as StoredEvent);
  }

  async dispose(): Promise<void> {
    await this.store?.close();
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  }
}

/** The run summary shape printed by `--json`. */
export interface Summary {
  runId: string;
  status: string;
  suspension?: { kind: string; pending: Record<string, unknown> };
  outputs: Record<string, Record<string, unknown>>;
  reason?: string;
  failedNode?: string;
  message?: string;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
}

/** A flow file using only builtin tools. */
export function builtinFlow(extra = ''): string {
  return ['id: plain', 'locale: en', 'nodes:', '  - id: a', '    instructions: Do the task.', extra].join(
    '\n',
  );
}

/** A flow file over the demo-cloud server (stdio), with its data folder. */
export function siteFlow(dataDir: string): string {
  return [
    'id: site',
    'locale: en',
    'mcpServers:',
    `  cloud: { command: node, args: [${JSON.stringify(DEMO_SERVER)}], env: { DEMO_CLOUD_DATA: ${JSON.stringify(dataDir)} } }`,
    'tools:',
    '  web_site_create:',
    '    write: true',
    '    response: { okPath: code, okValues: [0], codePath: code, messagePath: message }',
    'nodes:',
    '  - id: create',
    '    tools: [space_list, web_site_create, slow_query]',
  ].join('\n');
}

/** Scripted turns as YAML (each turn: `{node?, text?, calls?}`), flow-style so tests stay short. */
export function turnsYaml(turns: unknown[]): string {
  return `turns:\n${turns.map((t) => `  - ${JSON.stringify(t)}`).join('\n')}\n`;
}

export const finish = { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] };
export const fail = (reason: string) => ({ calls: [{ tool: 'builtin_node_fail', args: { reason } }] });
export const ask = (question: string) => ({
  calls: [{ tool: 'builtin_node_follow_up', args: { question } }],
});
export const create = (name: string) => ({
  calls: [{ tool: 'web_site_create', args: { spaceId: 's1', name } }],
});
export const approval = {
  calls: [{ tool: 'builtin_node_approval', args: { tool: 'web_site_create', summary: 'create it' } }],
};
