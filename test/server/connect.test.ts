import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../src/mcp/token-store.js';
import { connectFlowYaml, connectTurnsYaml, startOAuthServer } from '../helpers/oauth-server.js';
import { startServer, tempDir, TOKENS, type TestServer } from './helpers.js';

/**
 * Connect (docs/mcp.md): under `serve`, a run whose MCP server needs a person's authorization
 * suspends with `pending.authorization`; POST /v1/runs/{id}/authorization gives the URL, the
 * authorization server sends the browser back to GET /v1/oauth/callback, and the run continues.
 * Against a real OAuth-protected MCP server process (test/mcp/fixtures/oauth-http-server.mjs).
 */

const KEY = 'connect test key';

const children: ChildProcess[] = [];
const servers: TestServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
  for (const child of children.splice(0)) child.kill('SIGTERM');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function setup(
  calls: number,
  env: Record<string, string> = {},
  publicUrl?: string,
  files: Record<string, string> = {},
) {
  const { base, child } = await startOAuthServer(env);
  children.push(child);
  const flowsDir = await tempDir({
    'wiki.yaml': connectFlowYaml(base),
    'turns.yaml': connectTurnsYaml(calls),
    ...files,
  });
  const authDir = mkdtempSync(join(tmpdir(), 'connect-auth-'));
  dirs.push(flowsDir, authDir);
  const server = await startServer({
    flowsDir,
    runtime: {
      env: { ...process.env, AGENT_RUNTIME_SECRET_KEY: KEY, AGENT_RUNTIME_MCP_AUTH_DIR: authDir },
      mcpAuthorization: 'suspend',
    },
    server: { credentials: new FileCredentialStore(authDir, KEY), ...(publicUrl ? { publicUrl } : {}) },
  });
  servers.push(server);
  return { base, server };
}

/** What the tests read of API answers. */
interface Json {
  runId: string;
  status: string;
  suspension?: {
    kind: string;
    pending: { id?: string; question?: string; authorization?: { server: string; tool?: string } };
  };
  authorized: boolean;
  authorizationUrl: string;
  error: { message: string };
}

async function body(response: Response): Promise<Json> {
  return (await response.json()) as Json;
}

/** Polls the run until `done` holds for it (deadline 10 s). */
async function until(server: TestServer, runId: string, done: (run: Json) => boolean): Promise<Json> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const run = await body(await server.call('GET', `/v1/runs/${runId}`, { token: TOKENS.tenantA }));
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Plays the person's browser: opens the URL, follows the authorization server's redirect to the callback. */
async function browse(authorizationUrl: string): Promise<{ callback: string; response: Response }> {
  const allowed = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(allowed.status).toBe(302);
  const callback = allowed.headers.get('location') as string;
  return { callback, response: await fetch(callback) };
}

async function connect(server: TestServer, runId: string, expectId?: string) {
  const started = await server.call('POST', `/v1/runs/${runId}/authorization`, {
    token: TOKENS.tenantA,
    json: expectId ? { expect: expectId } : {},
  });
  expect(started.status).toBe(200);
  return body(started);
}

describe('Connect under serve', () => {
  it('suspends a run whose server needs authorization, and the callback continues it to the end', async () => {
    const { base, server } = await setup(1);
    const created = await server.call('POST', '/v1/runs', {
      token: TOKENS.tenantA,
      json: { flowId: 'wiki', input: { text: 'x' } },
    });
    expect(created.status).toBe(201);
    const runId = (await body(created)).runId;
    const suspended = await until(server, runId, (r) => r.status !== 'running');
    expect(suspended.status).toBe('suspended');
    expect(suspended.suspension?.kind).toBe('FOLLOW_UP');
    expect(suspended.suspension?.pending.authorization).toEqual({ server: 'wiki' });
    expect(suspended.suspension?.pending.question).toMatch(/MCP server wiki needs a person to authorize it/);

    const started = await connect(server, runId, suspended.suspension?.pending.id);
    expect(started.authorized).toBe(false);
    const url = new URL(started.authorizationUrl);
    expect(url.origin).toBe(base);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toBe(`${server.url}/v1/oauth/callback`);
    expect(url.searchParams.get('resource')).toBe(`${base}/mcp`);

    const { callback, response } = await browse(started.authorizationUrl);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/MCP server wiki is connected/);
    const done = await until(server, runId, (r) => r.status === 'completed' || r.status === 'failed');
    expect(done.status).toBe('completed');

    // The state is single use: the same callback again is refused, and nothing changes.
    const replay = await fetch(callback);
    expect(replay.status).toBe(400);
    expect((await body(replay)).error.message).toMatch(/unknown or already used `state`/);

    // No token in the trace or the API.
    const issued = (await (await fetch(`${base}/issued`)).json()) as string[];
    expect(issued.length).toBe(2);
    const events = await (
      await server.call('GET', `/v1/runs/${runId}/events?follow=false`, { token: TOKENS.tenantA })
    ).text();
    expect(events).toContain('run.resumed');
    const visible = `${events}\n${JSON.stringify(done)}\n${JSON.stringify(started)}`;
    for (const token of issued) expect(visible).not.toContain(token);
  });

  it('suspends a refused tool call, and the model calls again once the person authorized', async () => {
    const { server } = await setup(2, { REVOKE_AFTER_CALLS: '1' });
    const runId = (
      await body(
        await server.call('POST', '/v1/runs', { token: TOKENS.tenantA, json: { flowId: 'wiki', input: {} } }),
      )
    ).runId;
    await until(server, runId, (r) => r.status === 'suspended');
    const first = await connect(server, runId);
    await browse(first.authorizationUrl);
    // The first whoami works, then the server revokes the token: the second call is refused.
    const again = await until(
      server,
      runId,
      (r) => r.status !== 'running' && r.suspension?.pending?.authorization?.tool === 'whoami',
    );
    expect(again.status).toBe('suspended');
    expect(again.suspension?.pending.authorization).toEqual({ server: 'wiki', tool: 'whoami' });
    const second = await connect(server, runId);
    await browse(second.authorizationUrl);
    const done = await until(server, runId, (r) => r.status === 'completed' || r.status === 'failed');
    expect(done.status).toBe('completed');
    const events = await (
      await server.call('GET', `/v1/runs/${runId}/events?follow=false`, { token: TOKENS.tenantA })
    ).text();
    expect(events).toMatch(/authorization of MCP server wiki was attended to/);
  });

  it('refuses a callback with an unknown state, and a start for a run that waits for nothing', async () => {
    const { server } = await setup(1);
    const unknown = await fetch(`${server.url}/v1/oauth/callback?state=forged&code=abc`);
    expect(unknown.status).toBe(400);
    const noState = await fetch(`${server.url}/v1/oauth/callback?code=abc`);
    expect(noState.status).toBe(400);
    const runId = (
      await body(
        await server.call('POST', '/v1/runs', { token: TOKENS.tenantA, json: { flowId: 'wiki', input: {} } }),
      )
    ).runId;
    await until(server, runId, (r) => r.status === 'suspended');
    // Another tenant does not see the run.
    const other = await server.call('POST', `/v1/runs/${runId}/authorization`, {
      token: TOKENS.tenantB,
      json: {},
    });
    expect(other.status).toBe(404);
    const wrongItem = await server.call('POST', `/v1/runs/${runId}/authorization`, {
      token: TOKENS.tenantA,
      json: { expect: 'pnd_0000' },
    });
    expect(wrongItem.status).toBe(409);
    const started = await connect(server, runId);
    const refused = new URL(started.authorizationUrl);
    const back = new URL(refused.searchParams.get('redirect_uri') as string);
    back.searchParams.set('state', refused.searchParams.get('state') as string);
    back.searchParams.set('error', 'access_denied');
    const denied = await fetch(back);
    expect(denied.status).toBe(400);
    expect((await body(denied)).error.message).toMatch(/refused: access_denied/);
    await server.call('POST', `/v1/runs/${runId}/cancel`, { token: TOKENS.tenantA });
    const cancelled = await server.call('POST', `/v1/runs/${runId}/authorization`, {
      token: TOKENS.tenantA,
      json: {},
    });
    expect(cancelled.status).toBe(409);
  });

  it('registers --public-url as the redirect when given one', async () => {
    const { server } = await setup(1, {}, 'https://agents.example.com/');
    const runId = (
      await body(
        await server.call('POST', '/v1/runs', { token: TOKENS.tenantA, json: { flowId: 'wiki', input: {} } }),
      )
    ).runId;
    await until(server, runId, (r) => r.status === 'suspended');
    const started = await connect(server, runId);
    const url = new URL(started.authorizationUrl);
    expect(url.searchParams.get('redirect_uri')).toBe('https://agents.example.com/v1/oauth/callback');
  });

  it('connects the server of a delegated child run through its parent', async () => {
    const { server } = await setup(1, {}, undefined, {
      'hub.yaml': `id: hub
locale: en
model: scripted:./hub-turns.yaml
input:
  type: object
  properties: { text: { type: string } }
nodes:
  - id: main
    delegates: [wiki.yaml]
`,
      'hub-turns.yaml': `turns:
  - { calls: [{ tool: builtin_node_delegate, args: { flow: wiki, task: who am I } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: hub done } }] }
`,
    });
    const runId = (
      await body(
        await server.call('POST', '/v1/runs', { token: TOKENS.tenantA, json: { flowId: 'hub', input: {} } }),
      )
    ).runId;
    const waiting = await until(server, runId, (r) => r.status !== 'running');
    expect(waiting.suspension?.pending.authorization).toEqual({ server: 'wiki' });
    const started = await connect(server, runId, waiting.suspension?.pending.id);
    await browse(started.authorizationUrl);
    const done = await until(server, runId, (r) => r.status === 'completed' || r.status === 'failed');
    expect(done.status).toBe('completed');
  });
});
