import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, NODE, REPO_ROOT, ensureBuilt } from '../acceptance/build.js';

/**
 * The official MCP conformance suite runs every one of its client scenarios against
 * scripts/mcp-conformance-client.mjs, which drives the built CLI — two releases, both pinned in
 * package.json: 0.1.16 (`@modelcontextprotocol/conformance`, the 2025 revisions) and 0.2.0-alpha.12
 * (`mcp-conformance-next`, with the 2026-07-28 revision and extensions). Every scenario must pass,
 * except those listed with the reason; each listed one must still fail, so a list only shrinks as
 * support lands.
 */
interface PinnedSuite {
  readonly release: string;
  readonly folder: string;
  /** At least this many client scenarios (a release that lists fewer is not the one pinned). */
  readonly scenarios: number;
  readonly expectedFailures: Readonly<Record<string, string>>;
}

const SUITES: readonly PinnedSuite[] = [
  {
    release: '0.1.16',
    folder: 'node_modules/@modelcontextprotocol/conformance',
    scenarios: 26,
    expectedFailures: {},
  },
  {
    release: '0.2.0-alpha.12',
    folder: 'node_modules/mcp-conformance-next',
    scenarios: 48,
    expectedFailures: {},
  },
];

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

function execute(
  suite: string,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(NODE, [suite, ...args], {
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
async function clientScenarios(suite: string, cwd: string): Promise<string[]> {
  const { output } = await execute(suite, ['list'], cwd);
  const section = output.slice(output.indexOf('Client scenarios'));
  const end = section.indexOf('\n\n');
  return [...(end > 0 ? section.slice(0, end) : section).matchAll(/^\s+- (\S+)/gm)].map(
    (m) => m[1] as string,
  );
}

/** One scenario through the client script; the suite exits 0 only when it passed. */
async function runScenario(suite: string, name: string, cwd: string): Promise<ScenarioRun> {
  const command = `${JSON.stringify(NODE)} ${JSON.stringify(CLIENT)}`;
  const { code, output } = await execute(
    suite,
    ['client', '--scenario', name, '--timeout', '120000', '--command', command],
    cwd,
  );
  return { name, passed: code === 0, output };
}

/** Every scenario, PARALLEL at a time, the timing-sensitive ones alone at the end. */
async function runAll(suite: string, names: readonly string[], cwd: string): Promise<ScenarioRun[]> {
  const queue = names.filter((n) => !TIMING_SENSITIVE.has(n));
  const runs: ScenarioRun[] = [];
  const worker = async () => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift())
      runs.push(await runScenario(suite, name, cwd));
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  for (const name of names.filter((n) => TIMING_SENSITIVE.has(n)))
    runs.push(await runScenario(suite, name, cwd));
  return runs;
}

describe.each(SUITES)('the MCP conformance suite $release (client scenarios) through the CLI', (pinned) => {
  const suite = join(REPO_ROOT, pinned.folder, 'dist/index.js');
  const expected = pinned.expectedFailures;
  let dir: string;
  let names: string[];
  let runs: ScenarioRun[];

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-test-'));
    names = await clientScenarios(suite, dir);
    runs = await runAll(suite, names, dir);
  }, 1_200_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs every client scenario of the pinned suite', () => {
    expect(names.length).toBeGreaterThanOrEqual(pinned.scenarios);
    for (const name of Object.keys(expected)) expect(names).toContain(name);
    expect(runs.map((r) => r.name).sort()).toEqual([...names].sort());
  });

  it('passes every scenario not listed as an expected failure', () => {
    const failed = runs.filter((r) => !r.passed && !(r.name in expected));
    expect(
      failed.map((r) => r.name),
      failed.map((r) => `=== ${r.name}\n${r.output}`).join('\n'),
    ).toEqual([]);
  });

  it('still fails every listed scenario (the list shrinks when support lands)', () => {
    const passing = runs.filter((r) => r.passed && r.name in expected);
    expect(passing.map((r) => r.name)).toEqual([]);
  });
});
