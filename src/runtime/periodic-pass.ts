import type { Logger } from '../log/logger.js';
import type { RunHead, Store } from '../store/store.js';

/** A background pass run now and every interval (`serve`, workers); `tick` runs one pass now (tests). */
export interface PeriodicPass {
  tick(): Promise<void>;
  stop(): void;
}

/**
 * Runs `pass` now and every `intervalMs`, one pass at a time (a pass still running when the interval
 * comes round is not started again); a pass that throws is logged as `failure` and the next one runs.
 * `pass` is given whether `stop` was called, to end a long pass early. The timer keeps no process alive.
 */
export function startPeriodicPass(
  pass: (stopped: () => boolean) => Promise<void>,
  options: { intervalMs: number; logger: Logger; failure: string },
): PeriodicPass {
  let stopped = false;
  let running: Promise<void> | null = null;
  const tick = () => pass(() => stopped);
  const run = () => {
    if (running) return;
    running = tick()
      .catch((error: unknown) => options.logger.error(options.failure, { error }))
      .finally(() => (running = null));
  };
  run();
  const timer = setInterval(run, options.intervalMs);
  timer.unref();
  return {
    tick,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** The heads of up to `limit` suspended top-level runs (a delegated child waits through its parent). */
export async function suspendedTopLevelHeads(
  store: Store,
  limit: number,
): Promise<Pick<RunHead, 'runId' | 'parentRunId' | 'suspension'>[]> {
  const filter = { status: 'suspended' as const, limit };
  const heads = store.listRunHeads ? await store.listRunHeads(filter) : await store.listRuns(filter);
  return heads.filter((head) => head.parentRunId === null);
}
