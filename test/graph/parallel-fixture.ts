import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import type { CodeFlowInput } from '../../src/flow/typed-outputs.js';
import type { ScriptedTurn } from '../../src/model/scripted.js';

/** One call of the slow tool: its argument and when it started and ended (ms since the epoch). */
export interface SlowCall {
  x: number;
  start: number;
  end: number;
}

/** A local read tool that takes `ms` milliseconds and records when each call ran. */
export function slowTool(calls: SlowCall[], ms = 400): LocalTool {
  return defineTool<{ x: number }>({
    name: 'slow',
    description: 'Looks a number up slowly',
    inputSchema: { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
    execute: async (args) => {
      const start = Date.now();
      await new Promise((resolve) => setTimeout(resolve, ms));
      calls.push({ x: args.x, start, end: Date.now() });
      return { x: args.x };
    },
  });
}

/**
 * plan (code) → [left, right] (model nodes calling `slow`) → sum (code, a join of two edges):
 * sum's total is left.value + right.value.
 */
export function forkJoinFlow(hooks: { onSum?: () => void | Promise<void> } = {}): CodeFlowInput {
  const branch = (id: string) => ({
    id,
    tools: ['slow'],
    outputs: { value: { required: true, sources: ['model' as const] } },
  });
  return {
    id: 'fork-join',
    locale: 'en',
    input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
    nodes: [
      {
        id: 'plan',
        outputs: { a: { required: true }, b: { required: true } },
        run: (ctx) => ctx.input as { a: number; b: number },
      },
      branch('left'),
      branch('right'),
      {
        id: 'sum',
        outputs: { total: { required: true, schema: { type: 'number' } } },
        run: async (ctx) => {
          await hooks.onSum?.();
          const value = (id: string) => Number(ctx.nodes[id]?.value);
          ctx.reply(`sum ${value('left') + value('right')}`);
          return { total: value('left') + value('right') };
        },
      },
    ],
    edges: [
      { from: 'plan', to: ['left', 'right'] },
      { from: 'left', to: 'sum' },
      { from: 'right', to: 'sum' },
    ],
  };
}

/** The turns of left (value a) and right (value b): one `slow` call each, then the output and finish. */
export function forkJoinTurns(a: number, b: number): ScriptedTurn[] {
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
  return [...side('left', a), ...side('right', b)];
}

/**
 * plan (code, lines [10, 20, 30]) → each (a map of `price` over the lines, concurrency 2) → total (code):
 * `price` is a model node calling `slow` with its item.
 */
export function mapFlow(concurrency = 2): CodeFlowInput {
  return {
    id: 'map-lines',
    locale: 'en',
    input: { type: 'object', properties: { lines: { type: 'array', items: { type: 'number' } } } },
    nodes: [
      {
        id: 'plan',
        outputs: { lines: { required: true } },
        run: (ctx) => ({ lines: (ctx.input as { lines: number[] }).lines }),
      },
      { id: 'each', map: { over: '{{nodes.plan.outputs.lines}}', node: 'price', concurrency } },
      {
        id: 'price',
        instructions: 'Price line {{item}}.',
        tools: ['slow'],
        outputs: { value: { required: true, sources: ['model' as const] } },
      },
      {
        id: 'total',
        outputs: { total: { required: true } },
        run: (ctx) => {
          const items = (ctx.nodes.each as { items: { value: number }[] }).items;
          return { total: items.reduce((sum, i) => sum + i.value, 0) };
        },
      },
    ],
    edges: [
      { from: 'plan', to: 'each' },
      { from: 'each', to: 'total' },
    ],
  };
}

/** The turns of the map's body, per item: call `slow` with the line, then set `value` and finish. */
export function mapTurns(lines: number[]): ScriptedTurn[] {
  return lines.flatMap((x, item): ScriptedTurn[] => [
    { node: 'price', item, calls: [{ tool: 'slow', args: { x } }] },
    {
      node: 'price',
      item,
      calls: [
        { tool: 'builtin_output_set', args: { key: 'value', value: x, sourceType: 'model' } },
        { tool: 'builtin_node_finish', args: { summary: `line ${x}` } },
      ],
    },
  ]);
}

/** The most calls that ran at one time. */
export function maxOverlap(calls: readonly SlowCall[]): number {
  const edges = calls.flatMap((c) => [
    { at: c.start, d: 1 },
    { at: c.end, d: -1 },
  ]);
  edges.sort((p, q) => p.at - q.at || p.d - q.d);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.d));
  return most;
}
