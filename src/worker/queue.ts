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
  /** Runs handled at once by this process. */
  concurrency: number;
  /** The idle poll, seconds (NOTIFY wakes workers at once; polling is the backstop). Default 2. */
  pollingIntervalSeconds?: number;
}

/**
 * The queue of runnable runs (SPEC §13), on pg-boss in the store's database. One job names one run;
 * the queue's `short` policy keys jobs by run id, so a run waits in the queue at most once however
 * often it is enqueued (a job already taken does not block a new one). A job only says "this run may
 * have work": the run's lease in the store decides who drives it, so a duplicate or stale job is
 * harmless. A handler that throws has its job retried (twice, one second apart).
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
   * Takes jobs and hands each run id to `handler`, `concurrency` at a time; a job completes when the
   * handler resolves and is retried when it throws.
   */
  async work(options: RunQueueWorkOptions, handler: (runId: string) => Promise<void>): Promise<void> {
    await this.boss.work<RunJob>(
      RUN_QUEUE,
      {
        localConcurrency: options.concurrency,
        batchSize: 1,
        pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
        notifyPollingIntervalSeconds: options.pollingIntervalSeconds ?? 2,
      },
      async (jobs: Job<RunJob>[]) => {
        try {
          for (const job of jobs) await handler(job.data.runId);
        } finally {
          this.wake();
        }
      },
    );
  }

  /**
   * pg-boss waits its poll interval after every job unless woken. A finished job marks this queue's
   * busy takers (the one finishing among them) to fetch again at once, so a backlog is worked off
   * without pauses; idle takers are left asleep (new jobs wake them through NOTIFY).
   */
  private wake(): void {
    for (const taker of this.boss.getWipData()) {
      if (taker.name === RUN_QUEUE && taker.count > 0) this.boss.notifyWorker(taker.id);
    }
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
