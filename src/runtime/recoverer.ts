import type { Logger } from '../log/logger.js';
import { RunConflictError } from './errors.js';
import type { Runtime } from './runtime.js';

/** A background task that takes over runs left `running` by dead processes. */
export interface Recoverer {
  stop(): void;
}

/**
 * Resumes, now and every `intervalMs`, each `running` run whose lease has expired (docs/durability.md: a run
 * whose lease expired while running was left by a dead process). Used by `serve`; a live lease
 * makes the resume back off with a conflict, which is expected and ignored.
 */
export function startRecoverer(runtime: Runtime, options: { intervalMs: number; logger: Logger }): Recoverer {
  let stopped = false;
  const busy = new Set<string>();
  const tick = async (): Promise<void> => {
    const store = await runtime.db();
    const now = Date.now();
    for (const run of await store.listRuns({ status: 'running' })) {
      if (stopped) return;
      if (busy.has(run.runId) || (run.leaseExpiresAt !== null && run.leaseExpiresAt > now)) continue;
      busy.add(run.runId);
      options.logger.info('RUN taking over an abandoned run', { runId: run.runId });
      runtime
        .resume(run.runId)
        .catch((error: unknown) => {
          if (!(error instanceof RunConflictError))
            options.logger.error('RUN takeover failed', { runId: run.runId, error });
        })
        .finally(() => busy.delete(run.runId));
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
