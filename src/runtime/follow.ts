import type { Store, StoredEvent } from '../store/store.js';
import type { EventHub } from './event-hub.js';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);
const POLL_MS = 250;
const ENDED = new Set(['completed', 'failed', 'cancelled']);

/**
 * A run's events in seq order: what the store has after `after`, then new ones as they are
 * committed — by this process (woken by the hub) or another (found by polling) — until the run ends.
 */
export async function* followEvents(
  store: Store,
  hub: EventHub,
  runId: string,
  options: { after?: number; follow?: boolean; signal?: AbortSignal },
): AsyncGenerator<StoredEvent> {
  let after = options.after ?? 0;
  let wake: (() => void) | null = null;
  const unsubscribe = hub.subscribe(runId, () => wake?.());
  try {
    for (;;) {
      const batch = await store.events(runId, after);
      for (const event of batch) {
        after = event.seq;
        yield event;
      }
      if (options.follow === false || options.signal?.aborted) return;
      // A terminal event ends the stream unless the run went on since (a failed run taken up by `retry`).
      const last = batch.at(-1);
      if (batch.length === 0 || (last !== undefined && TERMINAL.has(last.type))) {
        const run = await store.getRun(runId);
        // Nothing more will come for an unknown or ended run (its last event may precede `after`).
        if (!run || ENDED.has(run.status)) return;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
        options.signal?.addEventListener('abort', () => wake?.(), { once: true });
      });
      wake = null;
    }
  } finally {
    unsubscribe();
  }
}
