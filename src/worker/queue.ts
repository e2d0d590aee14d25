import { PgBoss, type Job } from 'pg-boss';
import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import { parsePgUrl } from '../store/postgres/connect.js';

/** The pg-boss queue holding runnable runs. */
export const RUN_QUEUE = 'agent-runtime-runs';

/** What a job of the run queue carries. */
export interface RunJob {
  runId: string;
}

/** Options of `RunQueue.open`. */
export interface RunQueueOptions {
  /** The store's `postgres://…` URL; its `?schema=` names the store schema, the queue lives in `<schema>_queue`. */
  url: string;
  /** The pg-boss schema (default `<store schema>_queue`). */
  schema?: string;
  /** Connections of pg-boss's own pool. Default 3. */
  poolSize?: number;
  /**
   * Whether this instance runs pg-boss maintenance (expiring and retrying abandoned jobs, cleanup).
   * Workers do; a process that only enqueues (a server, a CLI) need not. Default true.
   */
  supervise?: boolean;
  logger?: Logger;
}

/** How a worker takes jobs. */
export interface RunQueueWorkOptions {
  /** Runs handled at once by this process (handlers started and not yet settled). */
  concurrency: number;
  /** The idle poll, seconds (NOTIFY wakes workers at once; polling is the backstop). Default 2. */
  pollingIntervalSeconds?: number;
}

/**
 * The queue of runnable runs (docs/scale-out.md), on pg-boss in the store's database. One job names one run;
 * the queue's `short` policy keys jobs by run id, so a run waits in the queue at most once however
 * often it is enqueued (a job already taken does not block a new one). A job only says "this run may
 * have work": the run's lease in the store decides who drives it, so a duplicate or stale job is
 * harmless. A job completes when its handler starts (see `work`).
 */
export class RunQueue {
  private constructor(
    private readonly boss: PgBoss,
    private readonly logger: Logger,
  ) {}

  /** Connects, installs or migrates pg-boss's schema, and creates the run queue if needed. */
  static async open(options: RunQueueOptions): Promise<RunQueue> {
    const location = parsePgUrl(options.url);
    const logger = options.logger ?? silentLogger;
    const boss = new PgBoss({
      connectionString: location.connectionString,
      schema: options.schema ?? `${location.schema}_queue`,
      max: options.poolSize ?? 3,
      supervise: options.supervise ?? true,
      schedule: false,
      useListenNotify: true,
    });
    boss.on('error', (error) => logger.error('QUEUE error', { error }));
    boss.on('warning', (warning) => logger.warn('QUEUE warning', { warning: warning.message }));
    await boss.start();
    try {
      await boss.createQueue(RUN_QUEUE, {
        policy: 'short',
        notify: true,
        retryLimit: 2,
        retryDelay: 1,
        expireInSeconds: 3600,
        deleteAfterSeconds: 3600,
      });
    } catch (error) {
      await boss.stop({ graceful: false });
      throw error;
    }
    return new RunQueue(boss, logger);
  }

  /** Queues a run (a no-op when it already waits in the queue). Usable as `createRuntime({ enqueue })`. */
  readonly enqueue = async (runId: string): Promise<void> => {
    await this.boss.send(RUN_QUEUE, { runId } satisfies RunJob, { singletonKey: runId });
  };

  /** Queues several runs in one statement (those already waiting are skipped). */
  async enqueueMany(runIds: readonly string[]): Promise<void> {
    if (runIds.length === 0) return;
    await this.boss.insert(
      RUN_QUEUE,
      runIds.map((runId) => ({ data: { runId } satisfies RunJob, singletonKey: runId })),
    );
  }

  /**
   * Takes jobs and hands each run id to `handler`, at most `concurrency` handlers at a time. One taker
   * fetches one job at a time, and only while a handler slot is free; a job completes as soon as its
   * handler has started (a job only says "this run may have work": the run's lease decides who drives
   * it, and a run left `running` without a live lease — its handler failed, or its worker died — is
   * queued again by the workers' sweep). So each hand-off costs one fetch and one completion, and a
   * NOTIFY wakes one taker per process, not one per slot. A handler's failure is logged here.
   */
  async work(options: RunQueueWorkOptions, handler: (runId: string) => Promise<void>): Promise<void> {
    const running = new Set<Promise<void>>();
    const poll = options.pollingIntervalSeconds ?? 2;
    // The taker's id arrives once it is already running (its first job may come before).
    const taker: { id?: string } = {};
    taker.id = await this.boss.work<RunJob>(
      RUN_QUEUE,
      { localConcurrency: 1, batchSize: 1, pollingIntervalSeconds: poll, notifyPollingIntervalSeconds: poll },
      async (jobs: Job<RunJob>[]) => {
        for (const job of jobs) {
          const task: Promise<void> = handler(job.data.runId)
            .catch((error: unknown) =>
              this.logger.warn('QUEUE run handler failed', { runId: job.data.runId, error }),
            )
            .finally(() => running.delete(task));
          running.add(task);
        }
        while (running.size >= options.concurrency) await Promise.race(running);
        // A slot is free: fetch the next job now rather than after the poll interval (a NOTIFY that
        // came while this waited does the same; an empty fetch sends the taker back to sleep).
        if (taker.id !== undefined) this.boss.notifyWorker(taker.id);
      },
    );
  }

  /** Stops taking new jobs (handlers already running go on). */
  async stopWork(): Promise<void> {
    await this.boss.offWork(RUN_QUEUE, { wait: false });
  }

  /** How many jobs for this run wait in the queue, not yet taken (0 or 1; for diagnostics and tests). */
  async waiting(runId: string): Promise<number> {
    return (await this.boss.findJobs(RUN_QUEUE, { key: runId, queued: true })).length;
  }

  /** Disconnects. Handlers still running are not waited for (stop work first). */
  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, close: true });
    this.logger.debug('QUEUE closed');
  }
}
