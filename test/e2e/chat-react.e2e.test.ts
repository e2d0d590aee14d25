import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { createServer as createVite, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderRegistry } from '../../src/model/providers.js';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createServer, type ApiServer } from '../../src/server/app.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { parseTokens } from '../../src/server/tokens.js';
import { DEMO_SERVER, REPO_ROOT } from '../helpers/demo-server.js';
import type { Turn } from '../../src/testing/fake-model/wire.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';
import { launchChromium } from './harness.js';
import { hasText, visible } from './waits.js';

/**
 * examples/chat-react in Debian's Chromium: its Vite dev server (the example's own config, proxying
 * /v1) in front of a real API server with the example's flow over the demo-cloud MCP server, and a
 * strict streaming OpenAI stand-in as the model. The page chats two messages through `useChat`,
 * approves the write from the chat (`addToolApprovalResponse`), and the run completes with the write
 * executed exactly once.
 */

const EXAMPLE = join(REPO_ROOT, 'examples/chat-react');
const OPERATOR = 'chat-react-operator-token-01';

const call = (id: string, name: string, args: unknown): Turn => ({
  calls: [{ id, name, args: JSON.stringify(args) }],
  usage: { input: 10, output: 5 },
});
const TURNS: Turn[] = [
  call('c1', 'space_list', {}),
  { text: 'You have two spaces: s1 and s2.', usage: { input: 10, output: 5 } },
  call('c3', 'web_site_create', { spaceId: 's1', name: 'kiosk' }),
  call('c4', 'builtin_node_approval', { tool: 'web_site_create', summary: 'Create the site kiosk in s1' }),
  call('c5', 'web_site_create', { spaceId: 's1', name: 'kiosk' }),
  { text: 'Created the site kiosk in s1.', usage: { input: 10, output: 5 } },
];

let dir: string;
let dataDir: string;
let fake: StrictFake;
let runtime: Runtime;
let api: ApiServer;
let vite: ViteDevServer;
let pageUrl: string;
let browser: BrowserContext;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chat-react-e2e-'));
  dataDir = join(dir, 'data');
  mkdirSync(join(dir, 'flows', 'helpdesk'), { recursive: true });
  // The example's flow, with the demo server and its data folder as absolute paths.
  const flow = readFileSync(join(EXAMPLE, 'flows/helpdesk/flow.yaml'), 'utf8')
    .replace('../../../demo-cloud/server.js', DEMO_SERVER)
    .replace('./.data', dataDir);
  writeFileSync(join(dir, 'flows', 'helpdesk', 'flow.yaml'), flow);
  fake = await startStrictFake('openai', (i) => TURNS[i] ?? { text: 'no more turns' });
  runtime = createRuntime({
    store: `sqlite:${join(dir, 'runtime.db')}`,
    logger: false,
    providers: createProviderRegistry({
      env: {
        OPENAI_API_KEY: fake.key,
        OPENAI_BASE_URL: fake.url,
        AGENT_RUNTIME_MODEL_STREAM: '1',
        AGENT_RUNTIME_MODEL_MAX_RETRIES: '0',
      },
    }),
  });
  const flows = new FlowRegistry({ dir: join(dir, 'flows') });
  await flows.loadDir();
  const tokens = parseTokens([{ token: OPERATOR, role: 'operator', name: 'olivia' }], 'chat-react e2e');
  const silent = { debug(): void {}, info(): void {}, warn(): void {}, error(): void {} };
  api = createServer({ runtime, flows, tokens, logger: silent });
  const { url } = await api.listen({ host: '127.0.0.1', port: 0 });
  process.env.AGENT_RUNTIME_URL = url;
  vite = await createVite({
    configFile: join(EXAMPLE, 'vite.config.ts'),
    server: { host: '127.0.0.1', port: 0, strictPort: false },
    logLevel: 'warn',
  });
  await vite.listen();
  pageUrl = vite.resolvedUrls?.local[0] ?? '';
  browser = await launchChromium('en');
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await vite?.close();
  await api?.close();
  await runtime?.close();
  await fake?.close();
  delete process.env.AGENT_RUNTIME_URL;
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

describe('examples/chat-react: useChat against serve', () => {
  it('chats two messages, approves the write from the chat; the run completes, the write ran once', async () => {
    expect(pageUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${pageUrl}?thread=R1&token=${OPERATOR}`);
    const messages = page.getByTestId('messages');
    const input = page.getByLabel('Message');
    const send = page.getByRole('button', { name: 'Send' });

    await input.fill('Which spaces do I have?');
    await send.click();
    await hasText(messages, 'You have two spaces: s1 and s2.');
    await hasText(messages.getByTestId('tool').first(), 'SUCCESS');

    await input.fill('Create a site named kiosk in s1');
    await send.click();
    const gated = messages.locator('[data-testid="tool"][data-state="approval-requested"]');
    await visible(gated);
    await hasText(gated, 'web_site_create');
    expect(existsSync(join(dataDir, 'writes.jsonl'))).toBe(false);

    await gated.getByRole('button', { name: 'Approve' }).click();
    await hasText(messages, 'Created the site kiosk in s1.');
    await visible(messages.locator('[data-testid="tool"][data-state="output-available"]').nth(1));

    const thread = await runtime.thread('R1');
    expect(thread?.runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(thread?.runs[1]?.reply).toBe('Created the site kiosk in s1.');
    const writes = readFileSync(join(dataDir, 'writes.jsonl'), 'utf8').trim().split('\n');
    expect(writes).toHaveLength(1);
    expect(fake.refusals()).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  it('recovers after a wrong token: the error shows, Message and Send work again once the token is fixed', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${pageUrl}?thread=R2&token=wrong-token`);
    const messages = page.getByTestId('messages');
    const input = page.getByLabel('Message');
    const send = page.getByRole('button', { name: 'Send' });

    await input.fill('Which spaces do I have?');
    await send.click();
    await visible(page.getByRole('alert'));
    await expect.poll(() => input.isEnabled(), { timeout: 10_000 }).toBe(true);
    expect(await send.isEnabled()).toBe(true);

    await page.getByLabel('API token (operator)').fill(OPERATOR);
    await input.fill('Which spaces do I have now?');
    await send.click();
    await hasText(messages, 'no more turns');
    await expect.poll(() => page.getByRole('alert').count(), { timeout: 10_000 }).toBe(0);
    const thread = await runtime.thread('R2');
    expect(thread?.runs.map((r) => r.status)).toEqual(['completed']);
    expect(problems).toEqual([]);
  }, 120_000);
});
