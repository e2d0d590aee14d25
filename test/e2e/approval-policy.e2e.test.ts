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
import { startExpiryTimer } from '../../src/runtime/approval-expiry.js';
import { silentLogger } from '../../src/log/logger.js';
import { TOKENS, ensureConsoleBuilt, launchChromium, signIn } from './harness.js';
import { hasText, visible } from './waits.js';

/**
 * The approval card of a tool with an approval policy in Chromium (docs/approvals.md): it says who has
 * approved of how many, and approves edited arguments — refused with the check's code when the guards
 * refuse them, executed exactly as edited when they pass; the run page then names every approver and
 * the changed arguments (old → new), the rule that decided a call, the escalation and the expiry.
 */

const STARTER = 'console-starter-token-01234';
const OSCAR = 'console-oscar-token-0123456';
let ahead = 0;
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

const flow = (id: string, approval: string) => `id: ${id}
locale: en
model: scripted:./${id}-turns.yaml
tools:
  refund:
    write: true
    params:
      orderId: { source: evidence, from: [order_get] }
      amount: { source: user }
    approval: ${approval}
nodes:
  - id: main
    tools: [order_get, refund]
`;
const turns = (approvedAmount: number, amount = 500) => `turns:
  - { calls: [{ tool: order_get, args: { orderId: o1 } }] }
  - { calls: [{ tool: refund, args: { orderId: o1, amount: ${amount} } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: refund, summary: refund order o1 } }] }
  - { calls: [{ tool: refund, args: { orderId: o1, amount: ${approvedAmount} } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

/** Asks for the refund and its approval; after the rejection by expiry, finishes. */
const EXPIRE_TURNS = `turns:
  - { calls: [{ tool: order_get, args: { orderId: o1 } }] }
  - { calls: [{ tool: refund, args: { orderId: o1, amount: 500 } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: refund, summary: refund order o1 } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: not refunded } }] }
`;

let dir: string;
let runtime: Runtime;
let server: ApiServer;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  dir = mkdtempSync(join(tmpdir(), 'approval-e2e-'));
  writeFileSync(join(dir, 'edit.yaml'), flow('edit', '{ approvers: { count: 1 } }'));
  writeFileSync(join(dir, 'edit-turns.yaml'), turns(50));
  writeFileSync(join(dir, 'two.yaml'), flow('two', '{ approvers: { count: 2 } }'));
  writeFileSync(join(dir, 'two-turns.yaml'), turns(500));
  writeFileSync(join(dir, 'small.yaml'), flow('small', '{ auto: args.amount <= 10 }'));
  writeFileSync(join(dir, 'small-turns.yaml'), turns(5, 5));
  writeFileSync(
    join(dir, 'late.yaml'),
    flow('late', '{ expiresAfter: 1h, onExpiry: escalate, escalateTo: [admin] }'),
  );
  writeFileSync(join(dir, 'late-turns.yaml'), turns(500));
  writeFileSync(join(dir, 'expire.yaml'), flow('expire', '{ expiresAfter: 1h }'));
  writeFileSync(join(dir, 'expire-turns.yaml'), EXPIRE_TURNS);
  writeFileSync(join(dir, 'big.yaml'), flow('big', '{ reject: args.amount > 100 }'));
  writeFileSync(join(dir, 'big-turns.yaml'), EXPIRE_TURNS);
  // The deadlines are an hour away: the test moves the runtime's clock past them.
  runtime = createRuntime({ store: 'memory', logger: false, tools, clock: () => Date.now() + ahead });
  const flows = new FlowRegistry({ dir, knownTools: ['order_get', 'refund'] });
  await flows.loadDir();
  const tokens = parseTokens(
    [
      { token: TOKENS.operator, role: 'operator', name: 'olivia' },
      { token: STARTER, role: 'operator', name: 'sam' },
      { token: OSCAR, role: 'operator', name: 'oscar' },
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
    // The decision shows what the person changed, old → new.
    await hasText(page.getByTestId('edited-args'), 'amount: 500 → 50');
    expect(await page.getByTestId('edited-args').first().textContent()).not.toContain('orderId');
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
    // Another operator approves through the API: the page names both approvers.
    const second = await fetch(`${url}/v1/runs/${runId}/approval`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OSCAR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(second.status, await second.clone().text()).toBe(200);
    await hasText(page.getByTestId('reply'), 'done');
    await hasText(page.getByTestId('resolution'), 'Approved by olivia, oscar at');
  }, 120_000);

  it.each([
    ['small', 'refund order o1: 5 euros', 'done', "The approval policy's auto rule approved the call"],
    [
      'big',
      'refund order o1: 500 euros',
      'not refunded',
      "the approval policy's reject rule declined the call",
    ],
  ])(
    'a call the policy decided (%s): the timeline names the rule, no card waits',
    async (flowId, input, reply, rule) => {
      const headers = { authorization: `Bearer ${STARTER}`, 'content-type': 'application/json' };
      const started = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ flowId, input }),
      });
      const { runId } = (await started.json()) as { runId: string };
      const page = await browser.newPage();
      await signIn(page, url, TOKENS.operator);
      await page.goto(`${url}/runs/${runId}`);
      await hasText(page.getByTestId('reply'), reply);
      await hasText(page.locator('main'), rule);
      expect(await page.getByTestId('approval-card').count()).toBe(0);
    },
    120_000,
  );

  it('expiry: the card shows the deadline, then the escalation; a rejection by expiry says so', async () => {
    const late = await suspendedRun('late');
    const expire = await suspendedRun('expire');
    const refundsBefore = refunds.length;
    const page = await openCard(late);
    await hasText(page.getByTestId('approvers'), 'Expires ');
    const timer = startExpiryTimer(runtime, { intervalMs: 600_000, logger: silentLogger });
    try {
      await timer.tick();
      ahead = 2 * 3_600_000;
      for (let i = 0; i < 3; i++) await timer.tick(); // one item per run and pass
    } finally {
      timer.stop();
    }
    await hasText(
      page.getByTestId('approval-card').getByTestId('escalated'),
      'Not decided in time: escalated at',
    );
    await hasText(
      page.locator('.suspension [data-testid="escalated"]'),
      'to admin; it still waits for a person',
    );
    expect((await runtime.status(late)).status).toBe('suspended');
    const view = await browser.newPage();
    await signIn(view, url, TOKENS.operator);
    await view.goto(`${url}/runs/${expire}`);
    await hasText(view.getByTestId('reply'), 'not refunded');
    await hasText(view.getByTestId('resolution'), 'no one decided in time, so it was rejected automatically');
    expect(refunds.length).toBe(refundsBefore);
  }, 120_000);
});
