import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { contrastProblems } from './contrast.js';
import { SITE_INPUT } from './fixtures.js';
import {
  ensureConsoleBuilt,
  launchChromium,
  startConsoleServer,
  TOKENS,
  type ConsoleServer,
  signIn as signInAt,
} from './harness.js';
import { countIs, focused, hasText, textIs, urlIs, visible } from './waits.js';

/**
 * The web console in Debian's Chromium against a real API server (issue 9): an operator opens the
 * inbox, approves the pending write with the keyboard, answers the follow-up and watches the run
 * complete live; a viewer sees the same approval without any button to decide it.
 * `UPDATE_SCREENSHOTS=1` writes the docs' screenshots (docs/img/) instead of a temp folder.
 */

const SHOTS =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? join(REPO_ROOT, 'docs', 'img')
    : join(REPO_ROOT, 'node_modules', '.cache', 'console-e2e');

let t: ConsoleServer;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  mkdirSync(SHOTS, { recursive: true });
  t = await startConsoleServer();
  browser = await launchChromium('zh-CN');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.stop();
});

async function signIn(page: Page, token: string): Promise<void> {
  await signInAt(page, t.url, token);
}

describe('the web console', () => {
  it('an operator approves from the inbox, answers the follow-up and watches the run complete', async () => {
    const runId = await t.startSuspendedRun(SITE_INPUT);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));

    await signIn(page, TOKENS.operator);
    await hasText(page.getByTestId('who'), 'olivia（operator）');
    const inbox = page.getByRole('region', { name: '等待你处理' });
    await inbox.getByRole('link', { name: /审批：web_site_create/ }).click();
    await urlIs(page, `${t.url}/runs/${runId}`);

    // The language switch: the rest of the walk is in English (the flow's own texts stay Chinese).
    await page.getByLabel('语言').selectOption('en');
    const card = page.getByRole('region', { name: 'Approval needed: web_site_create' });
    await visible(card);
    await hasText(card, '在「默认空间」创建站点「官网」（basic 套餐）');
    await expectArgumentSources(page, card);
    await expectTimelineSoFar(page);
    await textIs(page.getByTestId('live'), 'Live');
    expect(await contrastProblems(page)).toEqual([]);
    await card.screenshot({ path: join(SHOTS, 'approval-card.png') });
    await page.screenshot({ path: join(SHOTS, 'run-page.png'), fullPage: true });

    // From the card, open the evidence the spaceId came from, read it, and come back.
    await card.getByTestId('source-spaceId').getByRole('link', { name: 'ev_1' }).click();
    // The link carries the place the runtime recorded (`pending.matches`), highlighted in the view.
    const marks = encodeURIComponent(JSON.stringify([{ path: ['data', 0, 'spaceId'] }]));
    await urlIs(
      page,
      `${t.url}/runs/${runId}/evidence/ev_1?value=${encodeURIComponent('"s1"')}&marks=${marks}`,
    );
    const evidence = page.getByRole('region', { name: 'Evidence ev_1' });
    await hasText(evidence, 'space_list');
    await hasText(evidence, 'SUCCESS');
    await hasText(evidence.getByTestId('payload'), '默认空间');
    await textIs(evidence.getByTestId('payload').locator('mark'), '"s1"');
    expect(await contrastProblems(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'evidence-view.png'), fullPage: true });
    await page.getByRole('link', { name: `← Run ${runId}` }).click();
    await visible(card);

    // Decide with the keyboard only: the comment field, then Tab to Approve and Enter.
    await card.getByLabel('Comment (optional)').fill('looks right');
    await page.keyboard.press('Tab');
    await focused(card.getByRole('button', { name: 'Approve' }));
    await page.keyboard.press('Enter');

    const question = page.getByRole('region', { name: 'The agent asks' });
    await hasText(question, '站点首页使用哪种语言？');
    const approved = page.getByTestId('node-create').getByTestId('resolution').first();
    await hasText(approved, /Approved by olivia at \d{4}/);
    await hasText(approved, 'Comment: looks right');
    await question
      .getByRole('group', { name: 'Answer with one of the options' })
      .getByRole('button', { name: '中文' })
      .click();

    await hasText(
      page.getByTestId('node-create').locator('.item-suspension').first(),
      'Approved: web_site_create',
    );
    const decided = page.getByTestId('decided-card');
    await hasText(decided, /Answered by olivia at \d{4}/);
    await hasText(decided, 'Answer: 中文');
    await visible(page.getByRole('region', { name: `Run ${runId}` }).getByText('Completed'));
    await visible(page.getByText('The run completed.'));
    await textIs(page.getByTestId('live'), 'Run ended');
    await hasText(page.getByTestId('outputs'), '"siteId": "site_1"');
    await hasText(page.getByTestId('node-graph').locator('[data-node=create]'), 'completed');
    expect(await contrastProblems(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  it('a viewer sees the pending approval but no button to decide it', async () => {
    const runId = await t.startSuspendedRun(SITE_INPUT);
    const page = await browser.newPage();
    await signIn(page, TOKENS.viewer);
    await hasText(page.getByTestId('who'), /victor.*viewer/);
    await page.getByTestId('inbox').locator('li', { hasText: runId }).getByRole('link').click();
    await urlIs(page, `${t.url}/runs/${runId}`);
    const card = page.getByTestId('approval-card');
    await hasText(card, 'web_site_create');
    await hasText(card, /may read this run but not decide|可以查看此运行，但不能做决定/);
    await countIs(page.getByRole('button', { name: /^(Approve|批准|Reject|拒绝)$/ }), 0);
    await countIs(page.getByRole('button', { name: /Cancel run|取消运行/ }), 0);
    await page.close();
  }, 60_000);
});

describe('starting and cancelling from the console', () => {
  it('an operator starts a run, watches it reach its approval live, and cancels it', async () => {
    const page = await browser.newPage();
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(page, TOKENS.operator);
    await page.getByText(/^(Start a run|启动运行)$/).click();
    await page.getByLabel(/^(Flow|流程)$/).selectOption('site-console');
    await page.getByLabel(/^(Input text|输入文本)$/).fill(SITE_INPUT);
    await page.getByRole('button', { name: /^(Start|启动)$/ }).click();
    await page.waitForURL(/\/runs\/run_/);
    const runId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) as string);
    await visible(page.getByTestId('approval-card'));
    await hasText(page.getByTestId('node-graph').locator('[data-node=query]'), /completed|已完成/);
    await page.getByRole('button', { name: /^(Cancel run|取消运行)$/ }).click();
    await visible(page.getByText(/^(The run was cancelled\.|运行已取消。)$/));
    await countIs(page.getByTestId('approval-card'), 0);
    const summary = await fetch(`${t.url}/v1/runs/${runId}`, {
      headers: { authorization: `Bearer ${TOKENS.viewer}` },
    });
    expect(((await summary.json()) as { status: string }).status).toBe('cancelled');
    await page.close();
  }, 60_000);
});

/** The timeline up to the approval: each outcome badge with its word, code, reason, next step, evidence, stalls. */
async function expectTimelineSoFar(page: Page): Promise<void> {
  const calls = page.getByTestId('tool-call');
  const failed = calls.filter({ has: page.locator('[data-outcome=FAILED]') });
  await countIs(failed, 1);
  await hasText(failed, 'TOOL_BUSINESS_FAILED');
  await hasText(failed, '业务失败 [system.40401]：空间不存在。');
  await hasText(failed, '根据业务失败原因修正后再调用');
  await hasText(failed, 'ev_2');
  const rejected = calls.filter({ has: page.locator('[data-outcome=REJECTED]') });
  await hasText(rejected, 'PARAM_PROVENANCE_ASK_FIRST');
  await hasText(rejected.locator('[data-outcome=REJECTED]'), /REJECTED/);
  const deferred = calls.filter({ has: page.locator('[data-outcome=DEFERRED]') });
  await hasText(deferred, 'APPROVAL_REQUIRED');
  await hasText(deferred.locator('dd').nth(2), '调用 builtin_node_approval 申请用户确认');
  // space_list and web_site_list s1; the builtin finish has a badge of its own, not an outcome.
  await countIs(calls.filter({ has: page.locator('[data-outcome=SUCCESS]') }), 2);
  const finish = page.locator('[data-testid=tool-call][data-tool=builtin_node_finish]');
  await hasText(finish.getByTestId('builtin-badge'), 'builtin');
  await countIs(finish.locator('[data-outcome]'), 0);
  await countIs(finish.getByText('not executed'), 0);
  // Every call that ran shows what it returned, folded; a call stopped before it ran shows none.
  const spaceList = page.locator('[data-testid=tool-call][data-tool=space_list]').first();
  const result = spaceList.getByTestId('call-result');
  await result.locator('summary').click();
  await hasText(result.locator('pre'), '"name": "默认空间"');
  await countIs(rejected.getByTestId('call-result'), 0);
  await visible(spaceList.getByTestId('evidence-link'));
  // The model's text and tokens per round; one way of showing limits everywhere.
  await hasText(page.getByTestId('model-text').first(), '先查询用户的空间。');
  await hasText(page.getByTestId('round-usage').first(), /^Tokens: \d+ \(\d+ in \+ \d+ out\)$/);
  await hasText(page.getByTestId('node-graph').getByTestId('stalls-query'), /^Stalls: 0 \/ 5$/);
  await hasText(page.getByTestId('node-graph').getByTestId('stalls-create'), /^Stalls: 1 \/ 5$/);
  await hasText(page.getByTestId('node-graph').getByTestId('rounds-query'), /^Rounds: 4 \/ 30$/);
  await hasText(page.getByTestId('node-query').getByTestId('stalls-query'), /^Stalls: 0 \/ 5$/);
  await hasText(page.getByTestId('node-graph').locator('[data-node=create]'), 'waiting');
}

/** Each argument of the approval says where its value came from, with the value highlighted there. */
async function expectArgumentSources(page: Page, card: Locator): Promise<void> {
  const space = card.getByTestId('source-spaceId');
  await visible(space.getByRole('link', { name: 'ev_1' }));
  await hasText(space, /from space_list at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
  await space.getByText('Show where in ev_1').click();
  await textIs(space.getByTestId('payload').locator('mark'), '"s1"');
  const name = card.getByTestId('source-name');
  await hasText(name, 'Said by the user:');
  await hasText(name, '在默认空间创建一个名为 官网 的站点');
  await textIs(name.locator('mark'), '官网');
  await hasText(card.getByTestId('source-plan'), 'not checked');
  await countIs(page.getByText('not checked against evidence'), 0);
}
