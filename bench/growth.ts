/**
 * The growth check of `npm run bench`: whether the cost of step N depends on N. One run of K steps
 * (K = 5,000 by default) through the public API, the time of every step taken between successive
 * model calls (one model turn + one tool call + the commit of the step), as wall time and as the
 * process's CPU time (user + system, which a busy machine's preemption does not inflate); the cost
 * of the steps in windows along the run is compared with the first window's. A flat run has every
 * ratio near 1.
 */
import type { ModelClient } from '../src/model/model.js';

/** Per-step costs by step index, from a model that notes the time of each call before answering. */
export function timedModel(inner: ModelClient): {
  model: ModelClient;
  steps(): { wall: number; cpu: number }[];
} {
  const at: { wall: bigint; cpu: number }[] = [];
  return {
    model: {
      id: inner.id,
      call(request, context) {
        const cpu = process.cpuUsage();
        at.push({ wall: process.hrtime.bigint(), cpu: cpu.user + cpu.system });
        return inner.call(request, context);
      },
    },
    steps: () =>
      at.slice(1).map((t, i) => {
        const before = at[i] as { wall: bigint; cpu: number };
        return { wall: Number(t.wall - before.wall) / 1000, cpu: t.cpu - before.cpu };
      }),
  };
}

/**
 * One row per window of `width` steps: its first and last index, the median wall µs per step, the
 * mean CPU µs per step, and both over the first window's.
 */
export function windows(steps: readonly { wall: number; cpu: number }[], width: number): string[] {
  const rows: string[] = [];
  let base: { wall: number; cpu: number } | null = null;
  // The first 100 steps warm the run's own caches and are left out of the first window.
  for (let from = 100; from + width <= steps.length; from += width) {
    const w = steps.slice(from, from + width);
    const cpu = w.reduce((a, b) => a + b.cpu, 0) / w.length;
    const wall = [...w].map((s) => s.wall).sort((a, b) => a - b)[Math.floor(w.length / 2)] as number;
    base ??= { wall, cpu };
    rows.push(
      `| ${from}–${from + width - 1} | ${wall.toFixed(1)} | ${cpu.toFixed(1)} | ${(wall / base.wall).toFixed(2)} | ${(cpu / base.cpu).toFixed(2)} |`,
    );
  }
  return rows;
}
