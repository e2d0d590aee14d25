import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { createServer, type ApiServer } from '../../src/server/app.js';
import { mountConsole } from '../../src/server/console.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { parseTokens } from '../../src/server/tokens.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { TOKENS, ensureConsoleBuilt, launchChromium, signIn } from './harness.js';
import { hasText, visible } from './waits.js';

/**
 * The approval card of a tool with an approval policy in Chromium (docs/approvals.md): it says who has
 * approved of how many, and approves edited arguments — refused with the check's code when the guards
 * refuse them, executed exactly as edited when they pass.
 */

const STARTER = 'console-starter-token-01234';
const refunds: { orderId: string; amount: number }[] = [];
const tools = [
  defineTool<{ orderId: string }>({
    name: 'order_get',
    description: 'Read an order',
    inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    execute: ({ orderId }) => ({ orderId, total: 900 }),
  }),
  defineTool<{ orderId: string; amount: number }>({
    name: 'refund',
    description: 'Refund an order',
    write: true,
    inputSchema: {
      type: 'object',
      properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      required: ['orderId', 'amount'],
    },
    execute: ({ orderId, amount }) => (refunds.push({ orderId, amount }), { refunded: amount }),
  }),
] as LocalTool[];

const flow = (id: string, approvers: number) => `id: ${id}
locale: en
model: scripted:./${id}-turns.yaml
tools:
  refund:
    write: true
    params:
      orderId: { source: evidence, from: [order_get] }
      amount: { source: user }
    approval: { approvers: { count: ${approvers} } }
nodes:
  - id: main
    tools: [order_get, refund]
`;
const turns = (approvedAmount: number) => `turns:
  - { calls: [{ tool: order_get, args: { orderId: o1 } }] }
  - { calls: [{ tool: refund, args: { orderId: o1, amount: 500 } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: refund, summary: refund order o1 } }] }
  - { calls: [{ tool: refund, args: { orderId: o1, amount: ${approvedAmount} } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

let dir: string;
let runtime: Runtime;
let server: ApiServer;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  dir = mkdtempSync(join(tmpdir(), 'approval-e2e-'));
  writeFileSync(join(dir, 'edit.yaml'), flow('edit', 1));
  writeFileSync(join(dir, 'edit-turns.yaml'), turns(50));
  writeFileSync(join(dir, 'two.yaml'), flow('two', 2));
  writeFileSync(join(dir, 'two-turns.yaml'), turns(500));
  runtime = createRuntime({ store: 'memory', logger: false, tools });
  const flows = new FlowRegistry({ dir, knownTools: ['order_get', 'refund'] });
  await flows.loadDir();
  const tokens = parseTokens(
    [
      { token: TOKENS.operator, role: 'operator', name: 'olivia' },
      { token: STARTER, role: 'operator', name: 'sam' },
    ],
    'e2e',
  );
  server = createServer({ runtime, flows, tokens, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  mountConsole(server.app);
  ({ url } = await server.listen({ host: '127.0.0.1', port: 0 }));
  browser = await launchChromium('en');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await runtime?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function suspendedRun(flowId: string): Promise<string> {
  const headers = { authorization: `Bearer ${STARTER}`, 'content-type': 'application/json' };
  const started = await fetch(`${url}/v1/runs`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ flowId, input: 'refund order o1: 500 euros' }),
  });
  expect(started.status).toBe(201);
  const { runId } = (await started.json()) as { runId: string };
  for await (const event of runtime.events(runId, { follow: true }))
    if (event.type === 'run.suspended') return runId;
  throw new Error(`run ${runId} ended without suspending`);
}

async function openCard(runId: string): Promise<Page> {
  const page = await browser.newPage();
  await signIn(page, url, TOKENS.operator);
  await page.goto(`${url}/runs/${runId}`);
  await visible(page.getByTestId('approval-card'));
  return page;
}

describe('the console approval card with an approval policy', () => {
  it('edited arguments: a value not from the evidence is refused with its code, a good edit runs exactly', async () => {
    const runId = await suspendedRun('edit');
    const page = await openCard(runId);
    const card = page.getByTestId('approval-card');
    await card.getByLabel('Edit the arguments').check();
    const box = card.getByTestId('approval-args-edit');
    await box.fill('{"orderId": "o9", "amount": 50}');
    await card.getByRole('button', { name: 'Approve edited call' }).click();
    await hasText(card.getByRole('alert'), 'PARAM_PROVENANCE_MISMATCH');
    expect((await runtime.status(runId)).status).toBe('suspended');
    await box.fill('{"orderId": "o1", "amount": 50}');
    await card.getByRole('button', { name: 'Approve edited call' }).click();
    await hasText(page.getByTestId('reply'), 'done');
    expect(refunds).toEqual([{ orderId: 'o1', amount: 50 }]);
  }, 120_000);

  it('two approvers: the card says who has approved of how many, and offers no edit', async () => {
    const runId = await suspendedRun('two');
    const page = await openCard(runId);
    const card = page.getByTestId('approval-card');
    await hasText(card.getByTestId('approvers'), 'Needs 2 different approvers; none yet.');
    expect(await card.getByLabel('Edit the arguments').count()).toBe(0);
    await card.getByRole('button', { name: 'Approve' }).click();
    await hasText(page.getByTestId('approval-card').getByTestId('approvers'), 'Approved by 1 of 2: olivia');
    expect((await runtime.status(runId)).status).toBe('suspended');
  }, 120_000);
});
