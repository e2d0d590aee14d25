/**
 * `npm run bench`: the cost of the runtime per tool call, against a bare loop.
 * A node makes K calls of a local tool, one per round, driven by the scripted model, then finishes.
 * Reported per step (one model turn + one tool call) for: a bare loop doing the same calls with no
 * guards and no persistence (the floor), and the runtime through its public API as an application
 * uses it — `createRuntime` and `start(flowObject)`, one runtime per run — with a store that keeps only
 * the run row (bench/forgetful-store.ts: the runtime's own work alone), with the memory store and with
 * SQLite (one file for every run, as a real store holds many). After warm-up runs of each
 * variant, each cell is the median of REPEATS runs, the variants taking turns, so that the ratios come
 * from one invocation on one machine in one state. Then the growth check (bench/growth.ts): the cost
 * of each step of one long run by its index, which must not grow with the index.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRuntime, defineTool, scriptedModel, type Script } from '../src/index.js';
import type { ModelClient, ConversationMessage } from '../src/model/model.js';
import type { Store } from '../src/store/store.js';
import { ForgetfulStore } from './forgetful-store.js';
import { timedModel, windows } from './growth.js';

const lookup = defineTool<{ id: number }>({
  name: 'lookup',
  description: 'Find an item',
  write: false,
  inputSchema: { type: 'object', properties: { id: { type: 'number' } }, required: ['id'] },
  execute: ({ id }) => ({ id, name: `item-${id}` }),
});

function script(k: number): Script {
  const turns: Script['turns'] = [];
  for (let i = 0; i < k; i++) turns.push({ calls: [{ tool: 'lookup', args: { id: i } }] });
  turns.push({ calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] });
  return { turns };
}

function flowObject(k: number) {
  return {
    id: 'bench',
    version: 1,
    locale: 'en' as const,
    limits: { maxRounds: k + 5, maxStalls: 5, fingerprintRepeats: 2, toolTimeoutMs: 30_000 },
    nodes: [{ id: 'work', instructions: 'Look items up.', tools: ['lookup'] }],
  };
}

/** The floor: the same model turns and tool calls in a plain loop, with a conversation kept in memory. */
async function bareLoop(k: number, model: ModelClient): Promise<number> {
  const messages: ConversationMessage[] = [{ role: 'user', content: 'go' }];
  const started = process.hrtime.bigint();
  for (let i = 0; ; i++) {
    const result = await model.call(
      { system: '', messages, tools: [] },
      { runId: 'bare', nodeId: 'work', callIndex: i },
    );
    if (!result.ok) throw new Error(result.message);
    messages.push({ role: 'assistant', text: result.text, toolCalls: result.toolCalls });
    const call = result.toolCalls[0];
    if (!call || call.tool === 'builtin_node_finish') break;
    const args = JSON.parse(call.rawArgs) as { id: number };
    const data = await lookup.execute(args, { signal: new AbortController().signal });
    messages.push({ role: 'tool', callId: call.callId, tool: call.tool, content: JSON.stringify(data) });
  }
  return Number(process.hrtime.bigint() - started) / 1000;
}

/** One run through the public API: a runtime of its own, the flow as an object, closed after. */
async function runtimeLoop(
  k: number,
  store: string | (() => Store),
  model: ModelClient = scriptedModel(script(k)),
): Promise<number> {
  const runtime = createRuntime({
    store: typeof store === 'string' ? store : store(),
    tools: [lookup],
    logger: false,
  });
  // The store is opened (and its schema checked) before the clock starts, as in a process that runs
  // many runs; a run's own start (the flow loaded and checked) and end are measured.
  await runtime.list({ limit: 1 });
  const started = process.hrtime.bigint();
  const run = await runtime.start(flowObject(k), { input: { text: 'go' }, model });
  const elapsed = Number(process.hrtime.bigint() - started) / 1000;
  await runtime.close();
  if (run.status !== 'completed')
    throw new Error(`bench run ended ${run.status}: ${run.reason ?? ''} ${run.message ?? ''}`);
  return elapsed;
}

const REPEATS = Number(process.env.BENCH_REPEATS ?? 11);
const K_VALUES = [50, 500, 2000];
const GROWTH_K = Number(process.env.BENCH_GROWTH_K ?? 5000);
const WARM_UP = 3;

/** The store of the "runtime alone" column: a fresh one per run. */
const forgetful = (): Store => new ForgetfulStore();

const f = (n: number): string => n.toFixed(1);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-runtime-bench-'));
  const sqlite = `sqlite:${join(dir, 'bench.db')}`;
  const rows: string[] = [];
  const growth: string[] = [];
  try {
    // Warm-up: full runs of each variant first, so that the measured runs see compiled code
    // (module loading and JIT would otherwise dominate the small K).
    for (let i = 0; i < WARM_UP; i++) {
      await bareLoop(500, scriptedModel(script(500)));
      await runtimeLoop(500, forgetful);
      await runtimeLoop(500, 'memory');
      await runtimeLoop(500, sqlite);
    }
    for (const k of K_VALUES) {
      const steps = k + 1;
      const times = {
        bare: [] as number[],
        alone: [] as number[],
        memory: [] as number[],
        sqlite: [] as number[],
      };
      for (let r = 0; r < REPEATS; r++) {
        times.bare.push((await bareLoop(k, scriptedModel(script(k)))) / steps);
        times.alone.push((await runtimeLoop(k, forgetful)) / steps);
        times.memory.push((await runtimeLoop(k, 'memory')) / steps);
        times.sqlite.push((await runtimeLoop(k, sqlite)) / steps);
      }
      const [bare, alone, memory, disk] = [
        median(times.bare),
        median(times.alone),
        median(times.memory),
        median(times.sqlite),
      ];
      rows.push(
        `| ${k} | ${f(bare)} | ${f(alone)} | ${f(memory)} | ${f(disk)} | ${(memory / bare).toFixed(1)}× | ${(disk / memory).toFixed(1)}× |`,
      );
    }
    const timed = timedModel(scriptedModel(script(GROWTH_K)));
    await runtimeLoop(GROWTH_K, 'memory', timed.model);
    growth.push(...windows(timed.steps(), 1000));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `µs per step (one model turn + one tool call), median of ${REPEATS} runs:`,
      '',
      '| K calls | bare loop | runtime alone | memory store | SQLite | memory / bare | SQLite / memory |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      `Growth: µs per step by step index, one run of ${GROWTH_K} steps (memory store):`,
      '',
      '| steps | wall µs (median) | CPU µs (mean) | wall / first | CPU / first |',
      '|---|---|---|---|---|',
      ...growth,
      '',
    ].join('\n'),
  );
}

await main();
