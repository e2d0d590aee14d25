import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowBuilder } from '../../src/flow/builder.js';
import { loadFlow } from '../../src/flow/load.js';
import { scriptedModel, type ScriptedTurn } from '../../src/model/scripted.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { RunSummary } from '../../src/records/summary.js';
import { defineTool } from '../../src/tools/tool.js';
import {
  ensureConsoleBuilt,
  launchChromium,
  serveConsole,
  type ServedConsole,
  signIn,
  TOKENS,
} from './harness.js';
import { countIs, hasText } from './waits.js';

/**
 * The console draws a run's branches, join and map in Chromium, live over SSE: plan → [left, right]
 * (model nodes whose `slow` calls wait on a gate the test opens) → sum (a join); then a map of three
 * items. The page is watched while both branches run at once, and after the join ran.
 */

let gate!: () => void;
const opened = new Promise<void>((resolve) => (gate = resolve));
const waiting: number[] = [];
let arrived: () => void = () => {};

const slow = defineTool<{ x: number }>({
  name: 'slow',
  description: 'Looks a number up slowly',
  inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
  execute: async (args) => {
    waiting.push(args.x);
    arrived();
    await opened;
    return { x: args.x };
  },
});

const branch = <I extends string>(id: I) => ({
  id,
  tools: ['slow'],
  outputs: { value: { required: true as const, sources: ['model' as const] } },
});

const forkJoin = flowBuilder({ id: 'fork-join-console', locale: 'en' })
  .node({
    id: 'plan',
    run: () => ({ a: 2, b: 3 }),
    outputs: { a: { required: true }, b: { required: true } },
  })
  .node(branch('left'))
  .node(branch('right'))
  .node({
    id: 'sum',
    run: (ctx) => ({ total: Number(ctx.nodes.left?.value) + Number(ctx.nodes.right?.value) }),
    outputs: { total: { required: true } },
  })
  .edge('plan', ['left', 'right'])
  .edge('left', 'sum')
  .edge('right', 'sum')
  .build();

const mapped = flowBuilder({ id: 'map-console', locale: 'en' })
  .node({ id: 'plan', run: () => ({ lines: [10, 20, 30] }), outputs: { lines: { required: true } } })
  .node({ id: 'each', map: { over: '{{nodes.plan.outputs.lines}}', node: 'price', concurrency: 2 } })
  .node({ id: 'price', run: (ctx) => ({ value: ctx.item }), outputs: { value: {} } })
  .edge('plan', 'each')
  .build();

function turns(): ScriptedTurn[] {
  const side = (node: string, x: number): ScriptedTurn[] => [
    { node, calls: [{ tool: 'slow', args: { x } }] },
    {
      node,
      calls: [
        { tool: 'builtin_output_set', args: { key: 'value', value: x, sourceType: 'model' } },
        { tool: 'builtin_node_finish', args: { summary: `${node} done` } },
      ],
    },
  ];
  return [...side('left', 2), ...side('right', 3)];
}

let runtime: Runtime;
let served: ServedConsole | undefined;
let url: string;
let browser: BrowserContext;

beforeAll(async () => {
  ensureConsoleBuilt();
  served = await serveConsole({ tools: [slow] });
  ({ url, runtime } = served);
  browser = await launchChromium('en');
}, 120_000);

afterAll(async () => {
  gate?.();
  await browser?.close();
  await served?.close();
});

/** Starts a run in-process and answers its id once it is persisted; `done` is its end. */
async function start(
  source: Parameters<typeof loadFlow>[0],
  model: ReturnType<typeof scriptedModel>,
): Promise<{ runId: string; done: Promise<RunSummary> }> {
  const loaded = await loadFlow(source as object, { knownTools: ['slow'] });
  let accept!: (id: string) => void;
  const id = new Promise<string>((resolve) => (accept = resolve));
  const done = runtime.start(loaded, { input: { text: 'go' }, model, onAccepted: (s) => accept(s.runId) });
  return { runId: await id, done };
}

async function openRun(runId: string): Promise<Page> {
  const page = await browser.newPage();
  await signIn(page, url, TOKENS.operator);
  await page.goto(`${url}/runs/${runId}`);
  return page;
}

describe('the console node graph', () => {
  it('shows both branches running at once, live, then the join following both', async () => {
    const bothWaiting = new Promise<void>((resolve) => {
      arrived = () => {
        if (waiting.length === 2) resolve();
      };
    });
    const { runId, done } = await start(forkJoin, scriptedModel({ turns: turns() }));
    const page = await openRun(runId);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await bothWaiting;
    const graph = page.getByTestId('node-graph');
    // Both branches are running at the same time, each following plan.
    await countIs(graph.locator('.graph-node.node-running'), 2);
    await hasText(graph.locator('[data-node=left]'), 'running');
    await hasText(graph.locator('[data-node=right]'), 'running');
    expect(await graph.locator('[data-node=left]').getAttribute('data-from')).toBe('plan');
    expect(await graph.locator('[data-node=right]').getAttribute('data-from')).toBe('plan');
    await countIs(page.locator('path[data-line]'), 2);
    // Let the calls end: the page follows the run to its end over SSE.
    gate();
    expect((await done).status).toBe('completed');
    await hasText(graph.locator('[data-node=sum]'), 'completed');
    const from = (await graph.locator('[data-node=sum]').getAttribute('data-from'))?.split(' ').sort();
    expect(from).toEqual(['left', 'right']);
    await countIs(page.locator('path[data-line$="->sum"]'), 2);
    // The branches sit side by side (one column), the join right of them.
    const box = async (id: string) => (await graph.locator(`[data-node=${id}]`).boundingBox())!;
    const [left, right, sum] = [await box('left'), await box('right'), await box('sum')];
    expect(left.x).toBe(right.x);
    expect(left.y).not.toBe(right.y);
    expect(sum.x).toBeGreaterThan(left.x + left.width);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows a map node with its item count and its items beside it', async () => {
    const { runId, done } = await start(mapped, scriptedModel({ turns: [] }));
    expect((await done).status).toBe('completed');
    const page = await openRun(runId);
    const graph = page.getByTestId('node-graph');
    await hasText(graph.getByTestId('map-each'), 'map · 3 items');
    await countIs(graph.locator('.graph-item[data-node=price]'), 3);
    await countIs(page.locator('path.graph-line-item'), 3);
    await page.close();
  }, 60_000);
});
