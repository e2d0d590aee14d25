import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import type { Runtime } from '../../src/runtime/runtime.js';
import { toolKit, type ToolKit } from '../runtime/helpers.js';
import { reached, settled, tempDir } from '../server/helpers.js';
import { ensureConsoleBuilt, launchChromium, serveConsole, type ServedConsole, signIn } from './harness.js';
import { hasText, urlIs, visible } from './waits.js';

/**
 * The console's thread view in Debian's Chromium against a real API server: a thread of two runs
 * (a question answered, then a write waiting for approval) is reached from the runs list through the
 * run's thread link; the conversation shows both user messages and the reply, the approval card
 * inline; approving there completes the run, the write happens once and the reply appears; each
 * message links to its run.
 */

const OPERATOR = 'thread-view-operator-token-01';
const ASK = `id: ask
locale: en
model: scripted:./turns.yaml
nodes:
  - { id: talk, answer: text, tools: [lookup] }
`;
const ASK_TURNS = `turns:
  - { calls: [{ tool: lookup, args: { id: 7 } }] }
  - { text: item-7 owns the printer ticket. }
`;
const SAVE = `id: save
locale: en
model: scripted:./turns.yaml
tools:
  save: { write: true, params: { name: { source: user } } }
nodes:
  - { id: talk, answer: text, tools: [save] }
`;
const SAVE_TURNS = `turns:
  - { calls: [{ tool: save, args: { name: kiosk } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: save, summary: Save kiosk } }] }
  - { calls: [{ tool: save, args: { name: kiosk } }] }
  - { text: Saved as kiosk. }
`;

let kit: ToolKit;
let runtime: Runtime;
let served: ServedConsole | undefined;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  kit = toolKit();
  const flowsDir = await tempDir({
    'ask/flow.yaml': ASK,
    'ask/turns.yaml': ASK_TURNS,
    'save/flow.yaml': SAVE,
    'save/turns.yaml': SAVE_TURNS,
  });
  served = await serveConsole({
    dir: flowsDir,
    tools: kit.tools,
    tokens: [{ token: OPERATOR, role: 'operator', name: 'olivia' }],
  });
  ({ url, runtime } = served);
  browser = await launchChromium('en');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

async function message(flowId: string, input: string): Promise<string> {
  const res = await fetch(`${url}/v1/threads/W1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
    body: JSON.stringify({ flowId, input }),
  });
  if (res.status >= 300) throw new Error(`POST messages: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { runId: string }).runId;
}

describe('the console: thread view', () => {
  it('from a run to its thread; the conversation with the approval inline; approving completes it', async () => {
    const first = await message('ask', 'Who owns the printer ticket?');
    await settled(runtime, first);
    const second = await message('save', 'Save it as kiosk');
    await reached(runtime, second, 'run.suspended');

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await signIn(page, url, OPERATOR);

    const runs = page.getByTestId('runs');
    await visible(runs);
    await runs.getByRole('row').filter({ hasText: second }).getByRole('link', { name: 'thread W1' }).click();
    await urlIs(page, `${url}/threads/W1`);

    const conversation = page.getByTestId('conversation');
    await hasText(conversation, 'Who owns the printer ticket?');
    await hasText(conversation, 'item-7 owns the printer ticket.');
    await hasText(conversation, 'Save it as kiosk');
    const card = conversation.getByTestId('approval-card');
    await visible(card);
    await hasText(card, 'save');
    expect(kit.count('save')).toBe(0);

    await card.getByRole('button', { name: 'Approve' }).click();
    await hasText(conversation, 'Saved as kiosk.');
    await settled(runtime, second);
    expect(kit.count('save')).toBe(1);
    expect((await runtime.status(second)).status).toBe('completed');
    await hasText(page.getByTestId('thread-state'), 'Idle');

    // Each message links to its run; the list of threads links back here.
    await conversation
      .getByRole('link', { name: `run ${first}` })
      .first()
      .click();
    await urlIs(page, `${url}/runs/${first}`);
    await page.goto(`${url}/threads`);
    await page.getByTestId('threads').getByRole('link', { name: 'W1' }).click();
    await urlIs(page, `${url}/threads/W1`);
    expect(problems).toEqual([]);
  }, 120_000);
});
