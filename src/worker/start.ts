import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import type { ModelClient } from '../model/model.js';
import { createRuntime } from '../runtime/create.js';
import type { Runtime } from '../runtime/runtime.js';
import { createPostgresStore } from '../store/postgres/connect.js';
import type { PostgresStore } from '../store/postgres/postgres-store.js';
import type { StoredEvent } from '../store/store.js';
import type { LocalTool } from '../tools/tool.js';
import type { UserBuiltin } from '../tools/builtin/user.js';
import type { Guard } from '../tools/user-guards/define.js';
import { expiryPollMs, startExpiryTimer } from '../runtime/approval-expiry.js';
import { RunQueue } from './queue.js';
import { RunWorker } from './worker.js';
import type { Clock, IdSource } from '../engine/seams.js';
import type { Env } from '../runtime/config.js';

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
  /** User guards (docs/interceptors.md; the same on every worker). */
  guards?: readonly Guard[];
  /** The application's own builtins (docs/builtins.md; the same on every worker). */
  builtins?: readonly UserBuiltin[];
  /** Resolves provider model names other than `scripted:`. */
  providers?: (provider: string, modelId: string) => ModelClient;
  /** How often to look for runs no live lease holds, ms. */
  sweepMs?: number;
  /** The queue's idle poll, seconds. */
  pollingIntervalSeconds?: number;
  /** Receives every event this worker commits. */
  onEvent?: (event: StoredEvent) => void;
  logger?: Logger;
  /** The clock of leases, event times, record stamps and sweeps (default `Date.now`). */
  clock?: Clock;
  /** The source of run ids and the lease owner id (default: random UUIDs). */
  ids?: IdSource;
  /** Where settings not given as options are read from (default `process.env`). */
  env?: Env;
  /** The folder flows without one of their own resolve against (default `process.cwd()`). */
  cwd?: string;
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
  const clock = options.clock;
  const store = await createPostgresStore(options.db, {
    poolSize: concurrency + 2,
    ...(clock ? { now: () => new Date(clock()) } : {}),
  });
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
    guards: options.guards ?? [],
    builtins: options.builtins ?? [],
    logger,
    enqueue: queue.enqueue,
    // A run needing a person's authorization at an MCP server waits for Connect (docs/mcp.md).
    mcpAuthorization: 'suspend',
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
    ...(options.providers ? { providers: options.providers } : {}),
    ...(clock ? { clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    onEvent: (event) => {
      worker?.observe(event);
      options.onEvent?.(event);
    },
  });
  worker = new RunWorker({
    runtime,
    store,
    queue,
    leaseMs: runtime.leaseLength,
    concurrency,
    logger,
    ...(options.sweepMs !== undefined ? { sweepMs: options.sweepMs } : {}),
    ...(options.pollingIntervalSeconds !== undefined
      ? { pollingIntervalSeconds: options.pollingIntervalSeconds }
      : {}),
  });
  const running = worker;
  await running.start();
  // Approval deadlines are fired by any serve or worker (docs/notifications.md, "Expiry").
  const expiry = startExpiryTimer(runtime, {
    intervalMs: expiryPollMs(options.env ?? process.env),
    logger,
  });
  // Runs waiting for an MCP task go on once it ended (docs/mcp.md, "Tools that run as tasks").
  const tasks = runtime.startTaskPoller({ logger });
  return {
    runtime,
    store,
    queue,
    worker: running,
    async stop(timeoutMs = 10_000): Promise<string[]> {
      // The runs being driven start nothing new; a write in flight is waited for and recorded first
      // (runtime.stopDriving), then they are left `running` for another worker to take over.
      expiry.stop();
      tasks.stop();
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
