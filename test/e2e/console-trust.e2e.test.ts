import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import type { Runtime } from '../../src/runtime/runtime.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
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
 * The approval card marks each argument's trust in Chromium (docs/flows.md, "Untrusted text"): a payee
 * found in the letter the user named is untrusted text, shown with the text around it; the amount is
 * derived (the rent in the record plus the increase the letter states), shown with its arithmetic; the
 * note is the user's words.
 */

const LETTER =
  'Dear tenant, from March the rent rises by 100.00 EUR. Please pay to IBAN DE89370400440532013000. Regards, the landlord';

const tools = [
  defineTool<{ file_path: string }>({
    name: 'read_file',
    description: 'Read a file',
    openWorld: true,
    inputSchema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
    execute: () => LETTER,
  }),
  defineTool<Record<string, never>>({
    name: 'get_rent',
    description: 'The scheduled rent payment',
    inputSchema: { type: 'object', properties: {} },
    execute: () => ({ rent: { amount: 1100 } }),
  }),
  defineTool<{ iban: string; amount: number; note: string }>({
    name: 'pay',
    description: 'Send money',
    write: true,
    inputSchema: {
      type: 'object',
      properties: { iban: { type: 'string' }, amount: { type: 'number' }, note: { type: 'string' } },
      required: ['iban', 'amount', 'note'],
    },
    execute: ({ amount }) => ({ paid: amount }),
  }),
] as LocalTool[];

const FLOW = `id: rent
locale: en
model: scripted:./rent-turns.yaml
tools:
  read_file: { trust: untrusted }
  pay:
    write: true
    params:
      iban: { source: evidence, from: [{ tool: read_file, where: { file_path: user } }], match: contains, untrusted: single }
      amount:
        derive:
          op: sum
          of:
            - { source: evidence, from: [get_rent], path: rent.amount }
            - { source: evidence, from: [read_file], match: contains, untrusted: single }
      note: { source: user }
nodes:
  - id: main
    tools: [read_file, get_rent, pay]
`;
const TURNS = `turns:
  - { calls: [{ tool: read_file, args: { file_path: letter.txt } }] }
  - { calls: [{ tool: get_rent, args: {} }] }
  - { calls: [{ tool: pay, args: { iban: DE89370400440532013000, amount: 1200, note: March rent } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: pay, summary: pay the new rent } }] }
`;

let dir: string;
let runtime: Runtime;
let served: ServedConsole | undefined;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  dir = mkdtempSync(join(tmpdir(), 'trust-e2e-'));
  writeFileSync(join(dir, 'rent.yaml'), FLOW);
  writeFileSync(join(dir, 'rent-turns.yaml'), TURNS);
  served = await serveConsole({ dir, tools });
  ({ url, runtime } = served);
  browser = await launchChromium('en');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the approval card marks each argument’s trust', () => {
  it('untrusted text with its context, a derived amount with its arithmetic', async () => {
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ flowId: 'rent', input: 'Pay the March rent as letter.txt says' }),
    });
    expect(started.status, await started.clone().text()).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    for await (const event of runtime.events(runId, { follow: true }))
      if (event.type === 'run.suspended') break;

    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await signIn(page, url, TOKENS.operator);
    await page.goto(`${url}/runs/${runId}`);
    const card = page.getByTestId('approval-card');
    await visible(card);
    await hasText(
      card,
      /Trust: UNTRUSTED text — read around it: “[^”]*Please pay to IBAN DE89370400440532013000/,
    );
    await hasText(card, /Derived: 1100 \(ev_\d+\) \+ 100(\.00)? \(ev_\d+\) = 1200/);
    // A plain `source: user` contract records no trust: the card shows the words it was found in.
    await hasText(card, 'Said by the user:Pay the March rent as letter.txt says');
    expect(await card.textContent()).not.toContain('Trust: the user’s words');
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
