import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/mcp/token-store.js';
import { connectFlowYaml, connectTurnsYaml, startOAuthServer } from '../helpers/oauth-server.js';
import { startServer, tempDir, TOKENS, type TestServer } from './helpers.js';

/**
 * Connect under `serve` with two tenants: one tenant's operator starting Connect on its own run again
 * and again (300 times) does not evict the other tenant's pending sign-in, whose callback still
 * completes its run. Against the real OAuth-protected MCP server process.
 */

const KEY = 'connect tenants key';
let child: ChildProcess;
let server: TestServer;
let authDir: string;
let flowsDir: string;

beforeAll(async () => {
  const oauth = await startOAuthServer();
  child = oauth.child;
  flowsDir = await tempDir({ 'wiki.yaml': connectFlowYaml(oauth.base), 'turns.yaml': connectTurnsYaml(1) });
  authDir = mkdtempSync(join(tmpdir(), 'connect-tenants-'));
  server = await startServer({
    flowsDir,
    runtime: {
      env: { ...process.env, AGENT_RUNTIME_SECRET_KEY: KEY, AGENT_RUNTIME_MCP_AUTH_DIR: authDir },
      mcpAuthorization: 'suspend',
    },
    server: { credentials: new FileCredentialStore(authDir, KEY) },
  });
});
afterAll(async () => {
  await server.stop();
  child.kill('SIGTERM');
  rmSync(authDir, { recursive: true, force: true });
  rmSync(flowsDir, { recursive: true, force: true });
});

interface Run {
  runId: string;
  status: string;
}

async function suspendedRun(token: string): Promise<string> {
  const created = await server.call('POST', '/v1/runs', { token, json: { flowId: 'wiki', input: {} } });
  const { runId } = (await created.json()) as Run;
  await until(token, runId, (r) => r.status === 'suspended');
  return runId;
}

async function until(token: string, runId: string, done: (run: Run) => boolean): Promise<Run> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const run = (await (await server.call('GET', `/v1/runs/${runId}`, { token })).json()) as Run;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function start(token: string, runId: string): Promise<string> {
  const response = await server.call('POST', `/v1/runs/${runId}/authorization`, { token, json: {} });
  expect(response.status).toBe(200);
  return ((await response.json()) as { authorizationUrl: string }).authorizationUrl;
}

describe('Connect states of two tenants', () => {
  it("a tenant's pending sign-in survives another tenant's 300 Connect starts", async () => {
    const aliceRun = await suspendedRun(TOKENS.tenantA);
    const bobRun = await suspendedRun(TOKENS.tenantB);
    const aliceUrl = await start(TOKENS.tenantA, aliceRun);
    for (let i = 0; i < 300; i++) await start(TOKENS.tenantB, bobRun);
    const allowed = await fetch(aliceUrl, { redirect: 'manual' });
    expect(allowed.status).toBe(302);
    const callback = await fetch(allowed.headers.get('location') as string);
    expect(callback.status).toBe(200);
    const done = await until(
      TOKENS.tenantA,
      aliceRun,
      (r) => r.status === 'completed' || r.status === 'failed',
    );
    expect(done.status).toBe('completed');
  }, 120_000);
});
