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
import { countIs, visible } from './waits.js';

/**
 * MCP icons in the console (issue 41): a real stdio server declares a server icon and tool icons; the
 * call card of the tool with a safe PNG icon shows it beside the tool name (fixed size, no referrer),
 * while the tools whose icons are SVG or `javascript:` show none, in Chromium under the console's CSP.
 */

const SERVER = join(REPO_ROOT, 'test/mcp/fixtures/icons-server.mjs');
const PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

let dir: string;
let runtime: Runtime;
let served: ServedConsole | undefined;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  dir = mkdtempSync(join(tmpdir(), 'console-icons-'));
  writeFileSync(
    join(dir, 'flow.yaml'),
    [
      'id: icons-console',
      'locale: en',
      'model: scripted:./turns.yaml',
      `mcpServers: { icons: { command: node, args: [${JSON.stringify(SERVER)}] } }`,
      'nodes:',
      '  - id: look',
      '    tools: [with_icon, svg_icon, script_icon]',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'turns.yaml'),
    [
      'turns:',
      '  - { calls: [{ tool: with_icon, args: {} }, { tool: svg_icon, args: {} }, { tool: script_icon, args: {} }] }',
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

async function events(rt: Runtime, runId: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for await (const event of rt.events(runId, { follow: false })) all.push({ ...event });
  return all;
}

describe('MCP icons in the console', () => {
  it('shows a safe tool icon beside the tool name and never an SVG or javascript: one', async () => {
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ flowId: 'icons-console', input: 'go' }),
    });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    for await (const event of runtime.events(runId, { follow: true })) {
      if (event.type === 'run.completed' || event.type === 'run.failed') break;
    }
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('dialog', (dialog) => {
      problems.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await signIn(page, url, TOKENS.operator);
    const response = await page.goto(`${url}/runs/${runId}`);
    expect(response?.headers()['content-security-policy']).toContain("img-src 'self' data: https:;");

    const card = (tool: string) => page.locator(`[data-testid="tool-call"][data-tool="${tool}"]`);
    const icon = card('with_icon').getByTestId('tool-icon');
    await visible(icon);
    expect(await icon.getAttribute('src')).toBe(PNG);
    expect(await icon.getAttribute('referrerpolicy')).toBe('no-referrer');
    expect(await icon.getAttribute('alt')).toBe('');
    const box = await icon.boundingBox();
    expect([box?.width, box?.height]).toEqual([16, 16]);
    // The image loaded under the CSP (a blocked one has no natural size).
    expect(
      await icon.evaluate((img) => {
        const image = img as unknown as { complete: boolean; naturalWidth: number };
        return image.complete && image.naturalWidth > 0;
      }),
    ).toBe(true);

    await visible(card('svg_icon'));
    await visible(card('script_icon'));
    await countIs(card('svg_icon').locator('img'), 0);
    await countIs(card('script_icon').locator('img'), 0);
    await countIs(page.locator('img[src^="javascript:"], img[src*="svg"]'), 0);
    expect(problems).toEqual([]);
    await page.close();

    const trace = await events(runtime, runId);
    const invoked = trace.filter((e) => e.type === 'tool.invoked');
    expect(invoked.map((e) => [e.tool, e.icon])).toEqual([
      ['with_icon', PNG],
      ['svg_icon', undefined],
      ['script_icon', undefined],
      ['builtin_node_finish', undefined],
    ]);
    const connected = trace.find((e) => e.type === 'mcp.connected');
    expect(connected?.icon).toBe(PNG);
  }, 60_000);
});
