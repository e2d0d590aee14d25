import type { Logger } from '../log/logger.js';
import type { RunSummary } from '../records/summary.js';

/** Starts driving with a hook the runtime calls once the run (or response) is persisted. */
export type AcceptingCall = (onAccepted: (summary: RunSummary) => void) => Promise<RunSummary>;

/**
 * The runs this server drives in the background. `accept` answers as soon as the runtime has
 * persisted the new run or the person's response, and keeps driving afterwards; `drain` waits for
 * every drive to settle (graceful shutdown).
 */
export class Background {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  /** How many drives are in progress. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Runs `call` and resolves with the summary at acceptance; rejects when `call` fails before that
   * (bad input, conflict: nothing changed). A failure after acceptance is logged: the run's status
   * and trace say what happened to it.
   */
  accept(call: AcceptingCall): Promise<RunSummary> {
    return new Promise<RunSummary>((resolve, reject) => {
      let accepted: RunSummary | null = null;
      const done = call((summary) => {
        accepted = summary;
        resolve(summary);
      });
      const tracked = done.then(
        (final) => {
          if (accepted === null) resolve(final);
        },
        (error: unknown) => {
          if (accepted === null) reject(error instanceof Error ? error : new Error(String(error)));
          else this.logger.error('RUN background driving failed', { runId: accepted.runId, error });
        },
      );
      this.running.add(tracked);
      void tracked.then(() => this.running.delete(tracked));
    });
  }

  /** Waits until every drive has settled or `timeoutMs` passed; returns how many are still going. */
  async drain(timeoutMs: number): Promise<number> {
    if (this.running.size === 0) return 0;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const settled = await Promise.race([Promise.allSettled([...this.running]).then(() => true), timeout]);
    clearTimeout(timer);
    return settled ? 0 : this.running.size;
  }
}

/** Serialises the mutating requests of one run inside this process (racing identical requests then see a clear 409). */
export class RunLocks {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` after every earlier `fn` of the same run has finished. */
  async with<T>(runId: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(runId) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(runId, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(runId) === tail) this.tails.delete(runId);
    }
  }
}
