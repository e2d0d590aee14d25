import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import type { ModelClient } from '../model/model.js';
import { createRuntime } from '../runtime/create.js';
import type { Runtime } from '../runtime/runtime.js';
import { createPostgresStore } from '../store/postgres/connect.js';
import type { PostgresStore } from '../store/postgres/postgres-store.js';
import type { StoredEvent } from '../store/store.js';
import type { LocalTool } from '../tools/tool.js';
import { RunQueue } from './queue.js';
import { RunWorker } from './worker.js';

/** Options of `startWorker`. */
export interface StartWorkerOptions {
  /** The shared store: `postgres://…[?schema=NAME]`. */
  db: string;
  /** Runs driven at once by this process. Default 4. */
  concurrency?: number;
  /** Lease length, ms (default env AGENT_RUNTIME_LEASE_MS, else 15000). */
  leaseMs?: number;
  /** Local tools the flows may use (the same set on every worker). */
  tools?: LocalTool[];
  /** Resolves provider model names other than `scripted:`. */
  providers?: (provider: string, modelId: string) => ModelClient;
  /** How often to look for runs no live lease holds, ms. */
  sweepMs?: number;
  /** The queue's idle poll, seconds. */
  pollingIntervalSeconds?: number;
  /** Receives every event this worker commits. */
  onEvent?: (event: StoredEvent) => void;
  logger?: Logger;
}

/** A running worker: its runtime (queue mode, usable for approvals too) and how to stop it. */
export interface WorkerHandle {
  readonly runtime: Runtime;
  readonly store: PostgresStore;
  readonly queue: RunQueue;
  readonly worker: RunWorker;
  /**
   * Stops taking runs, waits up to `timeoutMs` (default 10 s) for the runs being driven to suspend or
   * end, then disconnects. Runs still being driven then are left to be taken over after their lease
   * expires. Returns their ids.
   */
  stop(timeoutMs?: number): Promise<string[]>;
}

/**
 * Starts a worker process's machinery on a PostgreSQL store (docs/scale-out.md): the store, the run queue
 * (pg-boss, in `<schema>_queue`), a runtime in queue mode and a RunWorker taking runs from the queue.
 */
export async function startWorker(options: StartWorkerOptions): Promise<WorkerHandle> {
  const logger = options.logger ?? silentLogger;
  const concurrency = options.concurrency ?? 4;
  const store = await createPostgresStore(options.db, { poolSize: concurrency + 2 });
  let queue: RunQueue;
  try {
    queue = await RunQueue.open({ url: options.db, logger });
  } catch (error) {
    await store.close();
    throw error;
  }
  let worker: RunWorker | null = null;
  const runtime = createRuntime({
    store,
    tools: options.tools ?? [],
    logger,
    enqueue: queue.enqueue,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
    onEvent: (event) => {
      worker?.observe(event);
      options.onEvent?.(event);
    },
  });
  worker = new RunWorker({
    runtime,
    store,
    queue,
    leaseMs: options.leaseMs ?? leaseFromEnv(),
    concurrency,
    logger,
    ...(options.sweepMs !== undefined ? { sweepMs: options.sweepMs } : {}),
    ...(options.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: options.pollingIntervalSeconds }
      : {}),
  });
  const running = worker;
  await running.start();
  return {
    runtime,
    store,
    queue,
    worker: running,
    async stop(timeoutMs = 10_000): Promise<string[]> {
      // The runs being driven start nothing new; a write in flight is waited for and recorded first
      // (runtime.stopDriving), then they are left `running` for another worker to take over.
      const stopping = runtime.stopDriving();
      const left = await running.stop(timeoutMs);
      await stopping;
      // The store closes first: a drive still going after the grace period (a write slower than it)
      // can then no longer commit, and its run is taken over later with the usual look-back.
      await store.close();
      await runtime.close();
      await queue.close();
      return left;
    },
  };
}

/** The lease length the runtime uses when none is given (env AGENT_RUNTIME_LEASE_MS, else 15 s). */
export function leaseFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.AGENT_RUNTIME_LEASE_MS);
  return Number.isFinite(value) && value > 0 ? value : 15_000;
}
