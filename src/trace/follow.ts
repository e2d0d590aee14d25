import type { Store, StoredEvent } from '../store/store.js';
import type { EventHub } from './event-hub.js';
import type { EventPoller } from './event-poller.js';

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);
const ENDED = new Set(['completed', 'failed', 'cancelled']);

/** Most events pushed by the hub that one follower keeps while its consumer is busy (then it reads the store). */
export const MAX_PUSHED = 256;

/** Options of `followEvents`. */
export interface FollowOptions {
  after?: number;
  follow?: boolean;
  signal?: AbortSignal;
}

/**
 * A run's events in seq order: what the store has after `after`, then new ones as they are
 * committed — pushed by the hub when this process commits them, or read from the store when the
 * shared poller sees another process commit — until the run ends or `signal` aborts. One abort
 * listener and one hub subscription per follower, whatever its duration; no timer of its own. A
 * consumer that does not keep up costs at most MAX_PUSHED events held: past that the follower drops
 * them and reads from the store when the consumer asks for more.
 */
export async function* followEvents(
  store: Store,
  hub: EventHub,
  poller: EventPoller,
  runId: string,
  options: FollowOptions,
): AsyncGenerator<StoredEvent> {
  let after = options.after ?? 0;
  const pushed: StoredEvent[] = [];
  let wake: (() => void) | null = null;
  let dirty = false;
  const notify = (): void => {
    dirty = true;
    wake?.();
  };
  const unsubscribe = hub.subscribe(runId, (event) => {
    // A follower that does not keep up holds at most MAX_PUSHED events: beyond, it reads the store.
    if (pushed.length >= MAX_PUSHED) pushed.length = 0;
    else pushed.push(event);
    notify();
  });
  const onAbort = (): void => wake?.();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let unwatch: (() => void) | null = null;
  try {
    let fromStore = true;
    for (;;) {
      const taken = fromStore ? null : takeContiguous(pushed, after);
      if (taken === null) pushed.length = 0;
      const batch = taken ?? (await store.events(runId, after));
      for (const event of batch) {
        if (event.seq <= after) continue;
        after = event.seq;
        yield event;
      }
      if (options.follow === false || options.signal?.aborted) return;
      // A terminal event ends the stream unless the run went on since (a failed run taken up by `retry`).
      const last = batch.at(-1);
      if ((fromStore && batch.length === 0) || (last !== undefined && TERMINAL.has(last.type))) {
        const run = await store.getRun(runId);
        // Nothing more will come for an unknown or ended run (its last event may precede `after`).
        if (!run || ENDED.has(run.status)) return;
      }
      unwatch ??= poller.watch(runId, after, notify);
      if (!dirty) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = null;
      }
      dirty = false;
      if (options.signal?.aborted) return;
      // Pushed events that follow on from `after` are used as they are; a gap (or a poller wake
      // with nothing pushed) means another process committed: read the store.
      fromStore = pushed.length === 0 || (pushed[0] as StoredEvent).seq > after + 1;
    }
  } finally {
    unsubscribe();
    unwatch?.();
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** The pushed events after `after`, removed from the queue, if they follow on without a gap; else null. */
function takeContiguous(pushed: StoredEvent[], after: number): StoredEvent[] | null {
  const out = pushed.splice(0).filter((e) => e.seq > after);
  out.sort((a, b) => a.seq - b.seq);
  for (const [i, event] of out.entries()) if (event.seq !== after + i + 1) return null;
  return out;
}
