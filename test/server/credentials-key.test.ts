import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/mcp/token-store.js';
import { connectFlowYaml, connectTurnsYaml, startOAuthServer } from '../helpers/oauth-server.js';
import { openApp, tempDir, TOKENS, type TestApp } from './helpers.js';

/**
 * Stored MCP credentials that do not open under the server's current AGENT_RUNTIME_SECRET_KEY (the key
 * was changed) are not taken for "never authorized": the run fails with a message naming the key and
 * what to do, instead of asking a person to sign in again as if nothing were stored.
 */

let child: ChildProcess;
let server: TestApp;
let authDir: string;
let flowsDir: string;
let base: string;

beforeAll(async () => {
  const oauth = await startOAuthServer();
  child = oauth.child;
  base = oauth.base;
  flowsDir = await tempDir({ 'wiki.yaml': connectFlowYaml(base), 'turns.yaml': connectTurnsYaml(1) });
  authDir = mkdtempSync(join(tmpdir(), 'credentials-key-'));
  // Stored under the key the server had before.
  new FileCredentialStore(authDir, 'the old key').write('acme', `${base}/mcp`, {
    tokens: { access_token: 'at_old', token_type: 'Bearer' },
  });
  server = await openApp({
    flowsDir,
    runtime: {
      env: { ...process.env, AGENT_RUNTIME_SECRET_KEY: 'the new key', AGENT_RUNTIME_MCP_AUTH_DIR: authDir },
      mcpAuthorization: 'suspend',
    },
    server: { credentials: new FileCredentialStore(authDir, 'the new key') },
  });
});
afterAll(async () => {
  await server.stop();
  child.kill('SIGTERM');
  rmSync(authDir, { recursive: true, force: true });
  rmSync(flowsDir, { recursive: true, force: true });
});

describe('credentials stored under another key', () => {
  it('fail the run naming AGENT_RUNTIME_SECRET_KEY, not a silent "needs authorization"', async () => {
    const created = await server.call('POST', '/v1/runs', {
      token: TOKENS.tenantA,
      json: { flowId: 'wiki', input: {} },
    });
    const { runId } = (await created.json()) as { runId: string };
    const deadline = Date.now() + 15_000;
    let run: { status: string; message?: string; suspension?: unknown } = { status: 'running' };
    while (run.status === 'running' || run.status === 'queued') {
      if (Date.now() > deadline) throw new Error(`run ${runId} stayed running`);
      await new Promise((resolve) => setTimeout(resolve, 25));
      run = (await (
        await server.call('GET', `/v1/runs/${runId}`, { token: TOKENS.tenantA })
      ).json()) as typeof run;
    }
    expect(run.status).toBe('failed');
    expect(run.suspension).toBeUndefined();
    expect(run.message).toMatch(/do not open under the current AGENT_RUNTIME_SECRET_KEY \(it changed/);
    expect(run.message).toMatch(
      /restore that key, or delete [0-9a-f]{40}\.cred in AGENT_RUNTIME_MCP_AUTH_DIR and authorize again/,
    );
  });
});
