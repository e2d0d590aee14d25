import type { Logger } from '../log/logger.js';
import type { Store } from '../store/store.js';

/** How often the shared poller looks for events committed by other processes (ms). */
export const POLL_MS = 500;

type Waker = () => void;

/**
 * One poller per runtime for events committed by other processes (CLI `approve`, other servers,
 * workers on PostgreSQL): one timer, running only while some run is followed, reading each
 * followed run's record once per tick however many streams follow it, and waking those streams
 * when its `lastSeq` moved (or the run is gone). Runs driven by this process are skipped (the hub pushes them).
 */
export class EventPoller {
  private readonly runs = new Map<string, { lastSeq: number; wakers: Set<Waker> }>();
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;

  constructor(
    private readonly store: () => Promise<Store>,
    private readonly drivenHere: (runId: string) => boolean,
    private readonly logger: Logger,
    private readonly intervalMs = POLL_MS,
  ) {}

  /** Wakes `waker` when the run changes in the store; returns the unsubscribe function. */
  watch(runId: string, lastSeq: number, waker: Waker): () => void {
    let entry = this.runs.get(runId);
    if (!entry) {
      entry = { lastSeq, wakers: new Set() };
      this.runs.set(runId, entry);
    }
    entry.wakers.add(waker);
    this.timer ??= setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    const watched = entry;
    return () => {
      watched.wakers.delete(waker);
      if (watched.wakers.size === 0) this.runs.delete(runId);
      if (this.runs.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  /** How many runs are watched (for tests and metrics). */
  get watched(): number {
    return this.runs.size;
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      const store = await this.store();
      for (const [runId, entry] of [...this.runs]) {
        if (this.drivenHere(runId)) continue;
        const record = await store.getRun(runId);
        // Every change a follower shows comes with events, so a moved lastSeq is the signal.
        if (record && record.lastSeq <= entry.lastSeq) continue;
        if (record) entry.lastSeq = record.lastSeq;
        for (const wake of [...entry.wakers]) wake();
      }
    } catch (error) {
      this.logger.warn('EVENTS polling the store for other processes failed; retrying', { error });
    } finally {
      this.ticking = false;
    }
  }
}
