import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
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
 * The console's timeline shows a running call's progress live (`tool.progress` over SSE): the
 * official server-everything's long-running tool, watched in Chromium while it runs, then its outcome.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let dir: string;
let runtime: Runtime;
let served: ServedConsole | undefined;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  dir = mkdtempSync(join(tmpdir(), 'console-progress-'));
  writeFileSync(
    join(dir, 'flow.yaml'),
    [
      'id: long-console',
      'locale: en',
      'model: scripted:./turns.yaml',
      'limits: { toolTimeoutMs: 2000, toolTotalTimeoutMs: 60000 }',
      `mcpServers: { everything: { command: node, args: [${JSON.stringify(EVERYTHING)}, stdio] } }`,
      'nodes:',
      '  - id: work',
      '    tools: [trigger-long-running-operation]',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'turns.yaml'),
    [
      'turns:',
      '  - { calls: [{ tool: trigger-long-running-operation, args: { duration: 8, steps: 8 } }] }',
      '  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }',
    ].join('\n'),
  );
  served = await serveConsole({ dir });
  ({ url, runtime } = served);
  browser = await launchChromium('en');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

async function hasEvent(rt: Runtime, runId: string, type: string): Promise<boolean> {
  for await (const event of rt.events(runId, { follow: false })) if (event.type === type) return true;
  return false;
}

describe('the console timeline', () => {
  it("shows a running call's progress bar, live, then the call's outcome", async () => {
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ flowId: 'long-console', input: 'go' }),
    });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await signIn(page, url, TOKENS.operator);
    await page.goto(`${url}/runs/${runId}`);

    const call = page.locator('[data-testid="tool-call"][data-tool="trigger-long-running-operation"]');
    const bar = call.getByTestId('call-progress');
    await visible(bar);
    await hasText(bar, /^[1-7] \/ 8$/);
    const progress = bar.getByRole('progressbar', { name: 'Progress of the running call' });
    expect(Number(await progress.getAttribute('max'))).toBe(8);
    // Live: the call is still running (its result and its round are not committed yet).
    const status = await fetch(`${url}/v1/runs/${runId}`, {
      headers: { authorization: `Bearer ${TOKENS.operator}` },
    });
    expect(((await status.json()) as { status: string }).status).toBe('running');
    expect(await hasEvent(runtime, runId, 'tool.invoked')).toBe(false);
    // The run goes on while the page watches: the bar gives way to the call's outcome.
    await hasText(call, 'SUCCESS');
    expect(await bar.count()).toBe(0);
    // One call on the page: the round its progress opened is the round of its result.
    expect(await call.count()).toBe(1);
    expect(problems).toEqual([]);
  }, 60_000);
});
