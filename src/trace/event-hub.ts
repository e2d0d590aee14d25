import type { StoredEvent } from '../store/store.js';

type Listener = (event: StoredEvent) => void;

/** In-process delivery of committed trace events to live subscribers, per run. */
export class EventHub {
  private readonly listeners = new Map<string, Set<Listener>>();

  /** Subscribes to a run's events; returns the unsubscribe function. */
  subscribe(runId: string, listener: Listener): () => void {
    let set = this.listeners.get(runId);
    if (!set) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  publish(events: readonly StoredEvent[]): void {
    for (const event of events) {
      const set = this.listeners.get(event.runId);
      if (!set) continue;
      for (const listener of [...set]) listener(event);
    }
  }
}
