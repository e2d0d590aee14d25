import type { StoredEvent } from '../store/store.js';
import { RunListeners } from './run-listeners.js';

/** In-process delivery of committed trace events to live subscribers, per run. */
export class EventHub {
  private readonly listeners = new RunListeners<StoredEvent>();

  /** Subscribes to a run's events; returns the unsubscribe function. */
  subscribe(runId: string, listener: (event: StoredEvent) => void): () => void {
    return this.listeners.subscribe(runId, listener);
  }

  publish(events: readonly StoredEvent[]): void {
    for (const event of events) this.listeners.emit(event.runId, event);
  }
}
