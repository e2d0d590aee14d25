import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime } from '../../src/runtime/create.js';
import { connectFlowYaml, connectTurnsYaml, startOAuthServer } from '../helpers/oauth-server.js';
import { World, ensureBuilt, spawnCli } from './helpers/cli.js';

/**
 * A run that waits for an MCP server's authorization (suspended under `serve`, here by a runtime with
 * `mcpAuthorization: 'suspend'` on the same SQLite store) seen from the CLI: `status` names the server
 * and the login; after `mcp login` (playing the person's browser) `answer` continues it to the end.
 */

const KEY = 'connect cli key';

describe('cli: a run waiting for an MCP authorization', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  let oauth: ChildProcess | undefined;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    oauth?.kill('SIGTERM');
    await w.dispose();
  });

  it('status names the server and the login; mcp login then answer completes it', async () => {
    const started = await startOAuthServer();
    oauth = started.child;
    const flowPath = w.write('wiki.yaml', connectFlowYaml(started.base));
    w.write('turns.yaml', connectTurnsYaml(1));
    const env = { AGENT_RUNTIME_SECRET_KEY: KEY, AGENT_RUNTIME_MCP_AUTH_DIR: join(w.dir, 'mcp-auth') };
    const runtime = createRuntime({
      store: w.dbUrl,
      logger: false,
      cwd: w.dir,
      env: { ...process.env, ...env },
      mcpAuthorization: 'suspend',
    });
    const summary = await runtime.start(await loadFlow(flowPath), { input: { text: 'x' } });
    await runtime.close();
    expect(summary.status).toBe('suspended');

    const status = await w.cli(['status', summary.runId], { env });
    expect(status.code).toBe(3);
    expect(status.stderr).toContain('waiting for the authorization of MCP server wiki');
    expect(status.stderr).toContain('mcp login FLOW.yaml wiki');
    expect(status.stderr).toContain(`answer ${summary.runId} authorized`);

    expect(await login(w, env)).toBe(0);
    const done = await w.cli(['answer', summary.runId, 'authorized', '--json'], { env });
    expect(done.stderr).toContain('▶ resumed (FOLLOW_UP, authorized)');
    expect(done.code).toBe(0);
    expect(done.json).toMatchObject({ status: 'completed', reply: 'done' });
  }, 120_000);
});

/** `mcp login wiki.yaml wiki`, playing the browser: opens the printed URL and follows the redirect. */
async function login(w: World, env: Record<string, string>): Promise<number | null> {
  const child = spawnCli(['mcp', 'login', 'wiki.yaml', 'wiki'], { cwd: w.dir, env });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  let err = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
      const found = /^\s+(http\S+)$/m.exec(err);
      if (found) resolve(found[1] as string);
    });
    child.on('close', () => reject(new Error(`mcp login printed no URL:\n${err}`)));
  });
  const allowed = await fetch(url, { redirect: 'manual' });
  await (await fetch(allowed.headers.get('location') as string)).text();
  return closed;
}
