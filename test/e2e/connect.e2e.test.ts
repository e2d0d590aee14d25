import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { FileCredentialStore } from '../../src/mcp/token-store.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { connectFlowYaml, connectTurnsYaml, startOAuthServer } from '../helpers/oauth-server.js';
import {
  ensureConsoleBuilt,
  launchChromium,
  serveConsole,
  type ServedConsole,
  signIn,
  TOKENS,
} from './harness.js';
import { hasText, visible } from './waits.js';

/**
 * Connect in the console (docs/console.md): a run whose MCP server needs a person's authorization
 * shows "Connect wiki"; the click opens the authorization server's page in a new window, its callback
 * lands on `serve`, and the run page follows the run to its end.
 */

const KEY = 'connect e2e key';
const headers = { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' };

let dir: string;
let oauth: ChildProcess;
let runtime: Runtime;
let served: ServedConsole | undefined;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  const started = await startOAuthServer();
  oauth = started.child;
  dir = mkdtempSync(join(tmpdir(), 'connect-e2e-'));
  mkdirSync(join(dir, 'flows'));
  writeFileSync(join(dir, 'flows', 'wiki.yaml'), connectFlowYaml(started.base));
  writeFileSync(join(dir, 'flows', 'turns.yaml'), connectTurnsYaml(1));
  const authDir = join(dir, 'mcp-auth');
  served = await serveConsole({
    dir: join(dir, 'flows'),
    runtime: {
      env: { ...process.env, AGENT_RUNTIME_SECRET_KEY: KEY, AGENT_RUNTIME_MCP_AUTH_DIR: authDir },
      mcpAuthorization: 'suspend',
    },
    server: { credentials: new FileCredentialStore(authDir, KEY) },
  });
  ({ url, runtime } = served);
  browser = await launchChromium('en');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  oauth?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the console connects an MCP server', () => {
  it('shows Connect for the waiting run, and the run completes after the authorization', async () => {
    const created = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ flowId: 'wiki', input: { text: 'who am I' } }),
    });
    expect(created.status).toBe(201);
    const { runId } = (await created.json()) as { runId: string };
    const deadline = Date.now() + 30_000;
    while ((await runtime.status(runId)).status === 'running' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await runtime.status(runId)).status).toBe('suspended');

    const page = await browser.newPage();
    await signIn(page, url, TOKENS.operator);
    await page.goto(`${url}/runs/${runId}`);
    const card = page.getByTestId('connect-card');
    await visible(card);
    await hasText(card, 'MCP server wiki needs your authorization');
    const popup = page.waitForEvent('popup');
    await card.getByRole('button', { name: 'Connect wiki' }).click();
    const window = await popup;
    await window.waitForURL(/\/v1\/oauth\/callback\?/);
    await hasText(window.locator('body'), 'MCP server wiki is connected');
    await hasText(page.getByTestId('reply'), 'done');
    expect((await runtime.status(runId)).status).toBe('completed');
  }, 120_000);
});
