import { lookAtTask, waitingTask } from '../engine/task-wait.js';
import type { RunEngine } from '../engine/engine.js';
import type { Logger } from '../log/logger.js';
import { summarize, type RunSummary } from '../records/summary.js';
import type { Store } from '../store/store.js';
import type { ModelSpec } from '../model/resolve.js';
import { startPeriodicPass, suspendedTopLevelHeads, type PeriodicPass } from './periodic-pass.js';

/** How many suspended runs one pass of the poller looks at. */
const SCAN_LIMIT = 1000;
/** The poller's pass interval: a task is looked at no later than this after its `nextPollAt`. */
export const TASK_POLL_MS = 1_000;

/**
 * Waits here, in this process, for the MCP task a run waits for (docs/mcp.md, "Tools that run as
 * tasks"): looks at it at each `nextPollAt` until the run no longer waits for a task — it went on and
 * ended, or waits for something else — and returns its summary. `signal` (a shutdown, Ctrl-C) ends the
 * wait early with the run as it stands, still waiting: any process can go on with it.
 */
export async function awaitTask(
  engine: RunEngine,
  runId: string,
  options: { signal?: AbortSignal; model?: ModelSpec } = {},
): Promise<RunSummary> {
  for (;;) {
    if (options.signal?.aborted) return summarize(await engine.require(runId));
    const look = await lookAtTask(engine, runId, options.model === undefined ? {} : { model: options.model });
    if (look.kind === 'not-waiting') return summarize(await engine.require(runId));
    if (look.kind === 'resumed') {
      if (look.summary.status !== 'suspended' || look.summary.suspension?.kind !== 'TASK')
        return look.summary;
      continue; // the call waits for its task again
    }
    await until(look.at - engine.clock(), options.signal);
  }
}

/** A background pass over suspended runs looking at their tasks when due (`serve`, workers). */
export type TaskPoller = PeriodicPass;

/**
 * Looks at the tasks suspended runs wait for, now and every `intervalMs`: any `serve` or worker
 * continues a run whose task ended, also when the process that started the task died.
 */
export function startTaskPoller(
  engine: RunEngine,
  options: { intervalMs: number; logger: Logger },
): TaskPoller {
  return startPeriodicPass(
    async (stopped) => {
      const store = await engine.db();
      for (const runId of await dueRuns(store, engine.clock())) {
        if (stopped()) return;
        if (engine.isDriving(runId)) continue;
        await lookAtTask(engine, runId).catch((error: unknown) =>
          options.logger.warn('MCP task look failed', { runId, error }),
        );
      }
    },
    { ...options, failure: 'MCP task pass failed' },
  );
}

/** Top-level suspended runs waiting for a task whose next look has come (read from the heads). */
async function dueRuns(store: Store, now: number): Promise<string[]> {
  const heads = await suspendedTopLevelHeads(store, SCAN_LIMIT);
  return heads.flatMap((head) => {
    if (!head.suspension) return [];
    const waiting = waitingTask({ status: 'suspended', suspension: head.suspension });
    return waiting && Date.parse(waiting.pending.task.nextPollAt) <= now ? [head.runId] : [];
  });
}

function until(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
