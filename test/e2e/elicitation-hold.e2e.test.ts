import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import type { Runtime } from '../../src/runtime/runtime.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import {
  ensureConsoleBuilt,
  launchChromium,
  serveConsole,
  type ServedConsole,
  signIn,
  startRunUntil,
  TOKENS,
} from './harness.js';
import { hasText, visible } from './waits.js';

/**
 * An MCP server's question held open (`elicitationHoldSeconds`, docs/mcp.md "Elicitation") answered in
 * the console: the run stays running, the console shows the form while the server's request is open,
 * and the answer goes back on that request — one call, never suspended.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TOOL = 'trigger-elicitation-request';
const headers = { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' };

let dir: string;
let runtime: Runtime;
let served: ServedConsole | undefined;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  dir = mkdtempSync(join(tmpdir(), 'elicit-hold-e2e-'));
  mkdirSync(join(dir, 'hold'));
  const call = { node: 'main', calls: [{ tool: TOOL, args: {} }] };
  const finish = { node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] };
  writeFileSync(join(dir, 'hold', 'turns.json'), JSON.stringify({ turns: [call, finish] }));
  writeFileSync(
    join(dir, 'hold', 'flow.json'),
    JSON.stringify({
      id: 'hold',
      version: 1,
      locale: 'en',
      model: 'scripted:./turns.json',
      mcpServers: {
        everything: { command: 'node', args: [EVERYTHING, 'stdio'], elicitationHoldSeconds: 90 },
      },
      limits: { toolTimeoutMs: 120_000 },
      tools: { [TOOL]: { write: false } },
      nodes: [{ id: 'main', instructions: 'Ask the server.', tools: [TOOL] }],
    }),
  );
  served = await serveConsole({ dir });
  ({ url, runtime } = served);
  browser = await launchChromium('en');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts a run of the flow and follows its event stream until its server's question is held. */
function heldRun(): Promise<string> {
  return startRunUntil(url, 'hold', 'ask me', 'mcp.held');
}

describe('the console answers a question held open', () => {
  it('shows the form while the run is running and the server gets the answer on its request', async () => {
    const runId = await heldRun();
    const held = await runtime.status(runId);
    expect(held.status).toBe('running');
    expect(held.held).toMatchObject({ question: 'Please provide inputs for the following fields:' });
    expect(held.held?.id).toMatch(/^hld_[0-9a-f]{16}$/);

    const page = await browser.newPage();
    await signIn(page, url, TOKENS.operator);
    await page.goto(`${url}/runs/${runId}`);
    const form = page.getByTestId('elicitation-form');
    await visible(form);
    await hasText(form, 'MCP server everything asks, during trigger-elicitation-request');
    await form.getByLabel('String *').fill('Grace Hopper');
    await form.getByRole('button', { name: 'Send' }).click();
    await hasText(page.getByTestId('reply'), 'done');

    expect((await runtime.status(runId)).status).toBe('completed');
    const trace = await fetch(`${url}/v1/runs/${runId}/events`, { headers });
    const text = await trace.text();
    expect(text).toContain('"type":"mcp.answered"');
    expect(text).not.toContain('"type":"run.suspended"');
    // One call, which got the answer on the server's first request.
    const evidence = await runtime.evidence(runId);
    expect(evidence).toHaveLength(1);
    expect(JSON.stringify(evidence[0]?.payload)).toContain('Name: Grace Hopper');
  }, 150_000);
});
