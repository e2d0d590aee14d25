import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, NODE, REPO_ROOT, ensureBuilt } from '../acceptance/build.js';
import { bridgeStdio } from '../helpers/stdio-http-bridge.js';
import { startServer } from '../server/helpers.js';

/**
 * The official MCP conformance suite's server scenarios (0.2.0-alpha.12) against the runtime's two
 * MCP servers (docs/mcp.md, "Serving flows as MCP tools"): `/mcp` under `serve`, and `mcp serve` over
 * stdio behind a relay to Streamable HTTP (the suite speaks HTTP only; the relay's own HTTP side is
 * the SDK's, so only the scenarios about MCP messages are run against it). Scenarios that exercise the
 * suite's own fixture tools, prompts or resources (`tools-call-*`, `prompts-*`, `resources-*`,
 * `json-schema-2020-12`, `http-custom-header-server-validation`, …) do not apply: the server offers
 * flows, not those fixtures. Each listed expected failure must still fail.
 */
const SUITE = join(REPO_ROOT, 'node_modules/mcp-conformance-next/dist/index.js');

/** Over Streamable HTTP (`/mcp`). */
const HTTP_SCENARIOS = [
  'server-initialize',
  'server-session-lifecycle',
  'ping',
  'tools-list',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
  // 2026-07-28: Mcp-Method / Mcp-Name headers checked against the body.
  'http-header-validation',
  // 2026-07-28: input_required only on the methods that may carry it (the other input-required-*
  // scenarios call the suite's fixture tools).
  'input-required-result-unsupported-methods',
  // 2026-07-28: ttlMs and cacheScope on tools/list, prompts/list, resources/list,
  // resources/templates/list and resources/read (a run of the served flow is listed, then read).
  'caching',
];
/**
 * Over stdio (`mcp serve`): the lifecycle and tools scenarios; HTTP sessions and streams are the relay's.
 * The relay's HTTP side speaks the 2025 revisions only (sessions), so the 2026-07-28 scenarios run
 * against /mcp; mcp serve's own 2026-07-28 serving is tested with the SDK's client
 * (test/cli/mcp-serve.test.ts).
 */
const STDIO_SCENARIOS = ['server-initialize', 'ping', 'tools-list'];

/** Scenarios of which a part needs what a server of flows does not offer. */
const EXPECTED_FAILURES: Readonly<Record<string, string>> = {
  'server-stateless':
    "its missing-capability checks call the suite's fixture tool test_missing_capability, which a server of flows does not have (the 26 other checks pass)",
};

async function scenario(url: string, name: string): Promise<{ passed: boolean; output: string }> {
  const child = spawn(NODE, [SUITE, 'server', '--url', url, '--scenario', name, '--timeout', '60000'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return { passed: code === 0, output };
}

/** One flow that needs no MCP server: its scripted model finishes at once. */
function flowsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-server-conformance-'));
  writeFileSync(
    join(dir, 'hello.yaml'),
    'id: hello\nversion: 1\nlocale: en\nmodel: scripted:./turns.yaml\nnodes:\n  - id: main\n    instructions: Say hello.\n',
  );
  writeFileSync(
    join(dir, 'turns.yaml'),
    'turns:\n  - calls: [{ tool: builtin_node_finish, args: { summary: hello } }]\n',
  );
  return dir;
}

async function runAll(url: string, names: readonly string[]) {
  const results: { name: string; passed: boolean; output: string }[] = [];
  for (const name of names) results.push({ name, ...(await scenario(url, name)) });
  return results;
}

function expectVerdicts(results: { name: string; passed: boolean; output: string }[]): void {
  const failed = results.filter((r) => !r.passed && !(r.name in EXPECTED_FAILURES));
  expect(
    failed.map((r) => r.name),
    failed.map((r) => `=== ${r.name}\n${r.output}`).join('\n'),
  ).toEqual([]);
  const passing = results.filter((r) => r.passed && r.name in EXPECTED_FAILURES);
  expect(passing.map((r) => r.name)).toEqual([]);
}

describe('the MCP conformance suite 0.2.0-alpha.12 (server scenarios) against /mcp under serve', () => {
  let dir: string;
  let stop: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    dir = flowsDir();
    // No tokens: the suite sends none (every caller is an admin, on loopback only).
    const api = await startServer({ flowsDir: dir, tokens: null });
    stop = () => api.stop();
    url = `${api.url}/mcp`;
    // A run for resources/list to name and the caching scenario to read.
    const started = await api.call('POST', '/v1/runs', { json: { flowId: 'hello', input: { text: 'hi' } } });
    expect(started.status, await started.text()).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the lifecycle, tools and HTTP scenarios of both revisions; the listed ones still fail', async () => {
    expectVerdicts(await runAll(url, [...HTTP_SCENARIOS, ...Object.keys(EXPECTED_FAILURES)]));
  }, 600_000);
});

describe('the MCP conformance suite 0.2.0-alpha.12 (server scenarios) against mcp serve (stdio)', () => {
  let dir: string;
  let close: () => Promise<void>;
  let url: string;

  beforeAll(async () => {
    ensureBuilt();
    dir = flowsDir();
    const env = { ...(process.env as Record<string, string>), AGENT_RUNTIME_LOG: 'warn' };
    const db = `sqlite:${join(dir, 'runtime.db')}`;
    const bridge = await bridgeStdio(NODE, [CLI, 'mcp', 'serve', '--flows', dir, '--db', db], env);
    close = () => bridge.close();
    url = bridge.url;
  }, 600_000);

  afterAll(async () => {
    await close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the lifecycle and tools scenarios', async () => {
    expectVerdicts(await runAll(url, STDIO_SCENARIOS));
  }, 600_000);
});
