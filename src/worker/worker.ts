import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import { RunError } from '../domain/run-error.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Store, StoredEvent } from '../store/store.js';
import type { RunQueue } from './queue.js';

/** Options of `RunWorker`. */
export interface RunWorkerOptions {
  /** Drives the runs (its store must be `store`). */
  runtime: Runtime;
  /** The store the runtime uses; its takeover query (`unleasedRuns`) feeds the sweep. */
  store: Store;
  queue: RunQueue;
  /** The runtime's lease length, ms (sets the default sweep interval). */
  leaseMs: number;
  /** Runs driven at once by this process. Default 4. */
  concurrency?: number;
  /** How often to look for runs no live lease holds, ms. Default half the lease, within 250…5000. */
  sweepMs?: number;
  /** The queue's idle poll, seconds. Default 2. */
  pollingIntervalSeconds?: number;
  logger?: Logger;
}

/** The event seqs one drive committed. */
interface Committed {
  first: number | null;
  last: number | null;
}

/**
 * A queue worker (docs/scale-out.md): takes run ids from the queue and drives each run with `Runtime.drive`,
 * which holds and renews the run's lease in the store while it works (the heartbeat), so one run is
 * driven by one worker at a time; a run whose lease is live elsewhere is skipped (its job completes).
 * A sweep every `sweepMs` queues what the store's takeover query (`unleasedRuns`, shared with `serve`)
 * names: runs `running` while no live lease holds them — handed
 * off but never queued, or left by a dead worker (lease expired): that is how a dead worker's runs
 * are taken over and resumed from their last persisted step.
 *
 * Each drive is logged as one line: `WORKER run.driven runId=… status=… seqs=FIRST-LAST ms=…`
 * (the trace events it committed), `run.lost` when another driver fenced it off.
 */
export class RunWorker {
  readonly #options: RunWorkerOptions;
  readonly #logger: Logger;
  readonly #driving = new Map<string, Promise<void>>();
  readonly #committed = new Map<string, Committed>();
  #timer: NodeJS.Timeout | null = null;
  #sweeping: Promise<number> | null = null;
  #stopping = false;

  constructor(options: RunWorkerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** For the runtime's `onEvent`: notes an event this process committed for a run it drives. */
  readonly observe = (event: StoredEvent): void => {
    const committed = this.#committed.get(event.runId);
    if (!committed) return;
    committed.first ??= event.seq;
    committed.last = event.seq;
  };

  /** Run ids this worker drives right now. */
  get driving(): string[] {
    return [...this.#driving.keys()];
  }

  /** Starts taking jobs and sweeping. */
  async start(): Promise<void> {
    const concurrency = this.#options.concurrency ?? 4;
    await this.#options.queue.work(
      {
        concurrency,
        ...(this.#options.pollingIntervalSeconds !== undefined
          ? { pollingIntervalSeconds: this.#options.pollingIntervalSeconds }
          : {}),
      },
      (runId) => this.#take(runId),
    );
    const sweepMs =
      this.#options.sweepMs ?? Math.min(5000, Math.max(250, Math.floor(this.#options.leaseMs / 2)));
    this.#timer = setInterval(() => {
      this.sweep().catch((error: unknown) => this.#logger.error('WORKER sweep failed', { error }));
    }, sweepMs);
    await this.sweep();
  }

  /**
   * Queues every top-level run that is `running` while no live lease holds it (not those this worker
   * drives). Returns how many were offered to the queue (those already waiting there stay once).
   */
  sweep(): Promise<number> {
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = null;
    });
    return this.#sweeping;
  }

  /**
   * Stops taking jobs and sweeping, then waits up to `timeoutMs` for the runs being driven to reach a
   * suspension or an end. Returns the ids still being driven then: the caller closes the store before
   * the runtime, so they stay `running` under a lease that expires and another worker takes them over.
   */
  async stop(timeoutMs = 10_000): Promise<string[]> {
    this.#stopping = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#options.queue.stopWork();
    await this.#sweeping;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.#driving.values()]), timeout]);
    clearTimeout(timer);
    return this.driving;
  }

  async #sweepOnce(): Promise<number> {
    if (this.#stopping) return 0;
    const ids = (await this.#options.store.unleasedRuns(this.#options.runtime.clock(), 200)).filter(
      (id) => !this.#driving.has(id),
    );
    await this.#options.queue.enqueueMany(ids);
    if (ids.length > 0) this.#logger.debug('WORKER sweep', { queued: ids.length });
    return ids.length;
  }

  /** A job's handler: one drive of the run unless this process drives it already. */
  async #take(runId: string): Promise<void> {
    if (this.#driving.has(runId)) {
      this.#logger.debug('WORKER run.skipped', { runId, reason: 'already driven here' });
      return;
    }
    const drive = this.#drive(runId);
    this.#driving.set(runId, drive);
    try {
      await drive;
    } finally {
      this.#driving.delete(runId);
    }
  }

  async #drive(runId: string): Promise<void> {
    const started = Date.now();
    const committed: Committed = { first: null, last: null };
    this.#committed.set(runId, committed);
    try {
      const summary = await this.#options.runtime.drive(runId);
      const fields = {
        runId,
        status: summary.status,
        seqs: `${committed.first ?? '-'}-${committed.last ?? '-'}`,
        ms: Date.now() - started,
      };
      if (summary.status === 'running') this.#logger.warn('WORKER run.lost', fields);
      else this.#logger.info('WORKER run.driven', fields);
    } catch (error) {
      if (error instanceof RunError && skippable(error)) {
        this.#logger.debug('WORKER run.skipped', { runId, reason: error.message });
        return;
      }
      this.#logger.error('WORKER run.error', {
        runId,
        error,
        seqs: `${committed.first ?? '-'}-${committed.last ?? '-'}`,
      });
      throw error;
    } finally {
      this.#committed.delete(runId);
    }
  }
}

/**
 * True for a refusal that only means another process got the run first (it holds it, or the run moved
 * on or is gone): the worker skips it. A refusal of the run itself is an error worth logging.
 */
function skippable(error: RunError): boolean {
  switch (error.code) {
    case 'RUN_CONFLICT':
    case 'RUN_NOT_FOUND':
      return true;
    case 'REQUEST_INVALID':
    case 'INPUT_INVALID':
    case 'THREAD_BUSY':
    case 'APPROVER_REFUSED':
    case 'ARGS_REFUSED':
    case 'RUN_ENDED':
    case 'MESSAGE_TOO_LONG':
    case 'TOO_MANY_MESSAGES':
      return false;
  }
}
