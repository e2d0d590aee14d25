import type { Logger } from '../log/logger.js';
import { RunError } from '../domain/run-error.js';
import type { Runtime } from './runtime.js';

/** How many abandoned runs one pass takes over at most (the next pass takes the rest). */
const TAKEOVER_BATCH = 200;

/** A background task that takes over runs left `running` by dead processes. */
export interface Recoverer {
  stop(): void;
}

/**
 * Resumes, now and every `intervalMs`, each run the store's takeover query names (`unleasedRuns`:
 * top-level runs left `running` without a live lease — by a dead process, docs/durability.md), the
 * same query the workers use. Used by `serve`; a lease taken meanwhile makes the resume back off with
 * a conflict, which is expected and ignored. Child runs are driven by their parent's resume.
 */
export function startRecoverer(runtime: Runtime, options: { intervalMs: number; logger: Logger }): Recoverer {
  let stopped = false;
  const busy = new Set<string>();
  const tick = async (): Promise<void> => {
    const store = await runtime.db();
    for (const runId of await store.unleasedRuns(runtime.clock(), TAKEOVER_BATCH)) {
      if (stopped) return;
      if (busy.has(runId)) continue;
      busy.add(runId);
      options.logger.info('RUN taking over an abandoned run', { runId });
      runtime
        .resume(runId)
        .catch((error: unknown) => {
          // A conflict is another process taking the run first: expected, not worth a log line.
          if (!(error instanceof RunError && error.code === 'RUN_CONFLICT'))
            options.logger.error('RUN takeover failed', { runId, error });
        })
        .finally(() => busy.delete(runId));
    }
  };
  const run = () => {
    tick().catch((error: unknown) => options.logger.error('RUN recoverer failed', { error }));
  };
  run();
  const timer = setInterval(run, options.intervalMs);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
