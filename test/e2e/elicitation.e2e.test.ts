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
 * An MCP server's question in the console (docs/mcp.md, "Elicitation"): server-everything's elicitation
 * tool suspends a run under `serve`; the operator fills the form built from the requested schema in
 * Chromium, and the run completes with the answer given to the server.
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
  dir = mkdtempSync(join(tmpdir(), 'elicit-e2e-'));
  mkdirSync(join(dir, 'elicit'));
  const call = { node: 'main', calls: [{ tool: TOOL, args: {} }] };
  writeFileSync(
    join(dir, 'elicit', 'turns.json'),
    JSON.stringify({
      turns: [
        call,
        call,
        { node: 'main', calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
      ],
    }),
  );
  writeFileSync(
    join(dir, 'elicit', 'flow.json'),
    JSON.stringify({
      id: 'elicit',
      version: 1,
      locale: 'en',
      model: 'scripted:./turns.json',
      mcpServers: { everything: { command: 'node', args: [EVERYTHING, 'stdio'] } },
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

/** Starts a run of the flow and follows its event stream until it waits for the person. */
function suspendedRun(): Promise<string> {
  return startRunUntil(url, 'elicit', 'ask me', 'run.suspended');
}

async function answer(runId: string, body: unknown): Promise<Response> {
  return fetch(`${url}/v1/runs/${runId}/answer`, { method: 'POST', headers, body: JSON.stringify(body) });
}

describe('the console answers an MCP server question', () => {
  it('the API refuses content the schema refuses (400, nothing changed) and takes a decline', async () => {
    const runId = await suspendedRun();
    const bad = await answer(runId, { text: '{"integer": 500}' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/does not match the requested schema/);
    const empty = await answer(runId, {});
    expect(empty.status).toBe(400);
    const declined = await answer(runId, { action: 'decline' });
    expect(declined.status).toBe(200);
    const deadline = Date.now() + 30_000;
    while ((await runtime.status(runId)).status !== 'completed' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await runtime.status(runId)).status).toBe('completed');
    const evidence = await runtime.evidence(runId);
    expect(JSON.stringify(evidence.at(-1)?.payload)).toContain('User declined');
  }, 120_000);

  it('shows the form of the requested schema and completes the run with the answer', async () => {
    const runId = await suspendedRun();
    const page = await browser.newPage();
    await signIn(page, url, TOKENS.operator);
    await page.goto(`${url}/runs/${runId}`);
    const form = page.getByTestId('elicitation-form');
    await visible(form);
    await hasText(form, 'MCP server everything asks, during trigger-elicitation-request');
    // Defaults are filled in; the required name is typed.
    expect(await form.getByLabel('Integer').inputValue()).toBe('42');
    await form.getByLabel('String *').fill('Grace Hopper');
    await form.getByRole('button', { name: 'Send' }).click();
    await hasText(page.getByTestId('reply'), 'done');
    expect((await runtime.status(runId)).status).toBe('completed');
    // The call sent again got the answer: the server's result, recorded as evidence, names it.
    const evidence = await runtime.evidence(runId);
    expect(JSON.stringify(evidence.at(-1)?.payload)).toContain('Name: Grace Hopper');
  }, 120_000);
});
