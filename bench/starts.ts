/**
 * `npm run bench:starts`: whether a start leaves memory behind. N starts (8,000 by default) of a
 * one-step flow given as an object, each through a runtime of its own (memory store, closed after,
 * so the runs themselves are dropped), each with a scripted model of its own; the heap is measured
 * after a full garbage collection once the first 500 starts have warmed every cache, and again at the
 * end. What the runtime keeps per start is the difference (target: under 5 MB for 8,000 starts).
 */
import { createRuntime, scriptedModel } from '../src/index.js';

const STARTS = Number(process.env.BENCH_STARTS ?? 8000);
const WARM = 500;

const flow = {
  id: 'starts',
  locale: 'en' as const,
  nodes: [{ id: 'only', instructions: 'Finish at once.' }],
};

function heapAfterGc(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc (npm run bench:starts does)');
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

async function oneStart(i: number): Promise<void> {
  const runtime = createRuntime({ store: 'memory', logger: false });
  const model = scriptedModel({
    turns: [{ calls: [{ tool: 'builtin_node_finish', args: { summary: `run ${i}` } }] }],
  });
  const run = await runtime.start(flow, { input: { text: 'go' }, model });
  await runtime.close();
  if (run.status !== 'completed') throw new Error(`start ${i} ended ${run.status}: ${run.message ?? ''}`);
}

async function main(): Promise<void> {
  for (let i = 0; i < WARM; i += 1) await oneStart(i);
  const before = heapAfterGc();
  const started = process.hrtime.bigint();
  for (let i = 0; i < STARTS; i += 1) await oneStart(i);
  const perStart = Number(process.hrtime.bigint() - started) / 1000 / STARTS;
  const after = heapAfterGc();
  const growth = (after - before) / 1024 / 1024;
  process.stdout.write(
    `${STARTS} starts after ${WARM} warm-up starts: ${perStart.toFixed(0)} µs per start (runtime created, run, closed); ` +
      `heap after GC ${(before / 1024 / 1024).toFixed(1)} MB → ${(after / 1024 / 1024).toFixed(1)} MB ` +
      `(${growth >= 0 ? '+' : ''}${growth.toFixed(2)} MB, ${((after - before) / STARTS).toFixed(0)} bytes per start)\n`,
  );
}

await main();
