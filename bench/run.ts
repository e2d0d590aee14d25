/**
 * `npm run bench`: the cost of the runtime per tool call (SPEC: "as fast as the bare loop").
 * A node makes K calls of a local tool, one per round, driven by the scripted model, then finishes.
 * Reported per step (one model turn + one tool call) for: a bare loop doing the same calls with no
 * guards and no persistence (the floor), the runtime with the memory store, and with SQLite (one file
 * for every run, as a real store holds many). After warm-up runs of each variant, each cell is the
 * median of REPEATS runs, the variants taking turns, so that the ratios come from one invocation on
 * one machine in one state. Per-step cost must not grow with K.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadFlow } from '../src/flow/load.js';
import { createRuntime } from '../src/runtime/create.js';
import { scriptedModel, type Script } from '../src/model/scripted.js';
import { defineTool } from '../src/tools/tool.js';
import type { ModelClient, ConversationMessage } from '../src/model/model.js';

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
    locale: 'en',
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

async function runtimeLoop(k: number, store: string): Promise<number> {
  const runtime = createRuntime({ store, tools: [lookup], logger: false });
  const flow = await loadFlow(flowObject(k), { knownTools: ['lookup'] });
  const model = scriptedModel(script(k));
  // The store is opened (and its schema checked) before the clock starts, as in a process that runs
  // many runs; a run's own start and end are measured.
  await runtime.list({ limit: 1 });
  const started = process.hrtime.bigint();
  const run = await runtime.start(flow, { input: { text: 'go' }, model });
  const elapsed = Number(process.hrtime.bigint() - started) / 1000;
  await runtime.close();
  if (run.status !== 'completed')
    throw new Error(`bench run ended ${run.status}: ${run.reason ?? ''} ${run.message ?? ''}`);
  return elapsed;
}

const REPEATS = 11;
const WARM_UP = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-runtime-bench-'));
  const sqlite = `sqlite:${join(dir, 'bench.db')}`;
  const rows: string[] = [];
  try {
    // Warm-up: full runs of each variant first, so that the measured runs see compiled code
    // (module loading and JIT would otherwise dominate the small K).
    for (let i = 0; i < WARM_UP; i++) {
      await bareLoop(500, scriptedModel(script(500)));
      await runtimeLoop(500, 'memory');
      await runtimeLoop(500, sqlite);
    }
    for (const k of [50, 500]) {
      const steps = k + 1;
      const times = { bare: [] as number[], memory: [] as number[], sqlite: [] as number[] };
      for (let r = 0; r < REPEATS; r++) {
        times.bare.push((await bareLoop(k, scriptedModel(script(k)))) / steps);
        times.memory.push((await runtimeLoop(k, 'memory')) / steps);
        times.sqlite.push((await runtimeLoop(k, sqlite)) / steps);
      }
      const [bare, memory, disk] = [median(times.bare), median(times.memory), median(times.sqlite)];
      rows.push(
        `| ${k} | ${bare.toFixed(1)} | ${memory.toFixed(1)} | ${disk.toFixed(1)} | ${(memory / bare).toFixed(1)}× | ${(disk / memory).toFixed(1)}× |`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(
    [
      `µs per step (one model turn + one tool call), median of ${REPEATS} runs:`,
      '',
      '| K calls | bare loop | memory store | SQLite | memory / bare | SQLite / memory |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

await main();
