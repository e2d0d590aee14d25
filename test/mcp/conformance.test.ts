import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, NODE, REPO_ROOT, ensureBuilt } from '../acceptance/build.js';

/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in package.json)
 * runs every one of its client scenarios against scripts/mcp-conformance-client.mjs, which drives the
 * built CLI. Every scenario must pass, except those listed here with the reason; each listed one must
 * still fail, so the list only shrinks as support lands.
 */
const EXPECTED_FAILURES: Readonly<Record<string, string>> = {};

const SUITE = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const CLIENT = join(REPO_ROOT, 'scripts/mcp-conformance-client.mjs');

/** Scenarios that measure timing (reconnect delays): run alone, after the others, so load cannot skew them. */
const TIMING_SENSITIVE = new Set(['sse-retry']);
/** Scenarios run at once (each starts a test server and the CLI, twice for an approval). */
const PARALLEL = 3;

interface ScenarioRun {
  readonly name: string;
  /** The suite's verdict: every check passed, no warning, the client did not time out. */
  readonly passed: boolean;
  readonly output: string;
}

function execute(args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(NODE, [SUITE, ...args], {
    cwd,
    env: { ...process.env, AGENT_RUNTIME_CLI: CLI },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** The client scenarios of the pinned suite, as `conformance list` names them. */
async function clientScenarios(cwd: string): Promise<string[]> {
  const { output } = await execute(['list'], cwd);
  const section = output.slice(output.indexOf('Client scenarios'));
  return [...section.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1] as string);
}

/** One scenario through the client script; the suite exits 0 only when it passed. */
async function runScenario(name: string, cwd: string): Promise<ScenarioRun> {
  const command = `${JSON.stringify(NODE)} ${JSON.stringify(CLIENT)}`;
  const { code, output } = await execute(
    ['client', '--scenario', name, '--timeout', '120000', '--command', command],
    cwd,
  );
  return { name, passed: code === 0, output };
}

/** Every scenario, PARALLEL at a time, the timing-sensitive ones alone at the end. */
async function runAll(names: readonly string[], cwd: string): Promise<ScenarioRun[]> {
  const queue = names.filter((n) => !TIMING_SENSITIVE.has(n));
  const runs: ScenarioRun[] = [];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift())
      runs.push(await runScenario(name, cwd));
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  for (const name of names.filter((n) => TIMING_SENSITIVE.has(n))) runs.push(await runScenario(name, cwd));
  return runs;
}

describe('the MCP conformance suite (client scenarios) through the CLI', () => {
  let dir: string;
  let names: string[];
  let runs: ScenarioRun[];

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-test-'));
    names = await clientScenarios(dir);
    runs = await runAll(names, dir);
  }, 600_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every client scenario of the pinned suite', () => {
    expect(names.length).toBeGreaterThanOrEqual(26);
    for (const name of Object.keys(EXPECTED_FAILURES)) expect(names).toContain(name);
    expect(runs.map((r) => r.name).sort()).toEqual([...names].sort());
  });

  it('passes every scenario not listed as an expected failure', () => {
    const failed = runs.filter((r) => !r.passed && !(r.name in EXPECTED_FAILURES));
    expect(
      failed.map((r) => r.name),
      failed.map((r) => `=== ${r.name}\n${r.output}`).join('\n'),
    ).toEqual([]);
  });

  it('still fails every listed scenario (the list shrinks when support lands)', () => {
    const passing = runs.filter((r) => r.passed && r.name in EXPECTED_FAILURES);
    expect(passing.map((r) => r.name)).toEqual([]);
  });
});
