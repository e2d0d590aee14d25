import type { ModelDelta } from '../model/model.js';
import { RunListeners } from './run-listeners.js';

/**
 * A transient trace event: a streaming model's answer so far (the text written and the tool calls
 * being formed). Sent to live followers only, never persisted and without a `seq`; the completed
 * turn is the `model.response` event, as before.
 */
export interface ModelDeltaEvent extends ModelDelta {
  type: 'model.delta';
  runId: string;
  nodeId: string;
  round: number | null;
  ts: string;
}

/** Fewest milliseconds between two deltas of one model call sent to followers (the rest are merged). */
export const DELTA_INTERVAL_MS = 50;

/** In-process delivery of `model.delta` events to live followers, per run. */
export class LiveChannel {
  private readonly listeners = new RunListeners<ModelDeltaEvent>();

  /** Subscribes to a run's deltas; returns the unsubscribe function. */
  subscribe(runId: string, listener: (event: ModelDeltaEvent) => void): () => void {
    return this.listeners.subscribe(runId, listener);
  }

  /**
   * A sink for one model call's deltas: the first goes out at once, later ones at most every
   * DELTA_INTERVAL_MS (the latest wins), and `flush()` sends what is held back (call it when the
   * model call ends). Nothing is built while nobody follows the run.
   */
  sink(
    runId: string,
    nodeId: string,
    round: number | null,
  ): { push(delta: ModelDelta): void; flush(): void } {
    let held: ModelDelta | null = null;
    let timer: NodeJS.Timeout | null = null;
    let lastSent = 0;
    const send = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (!held) return;
      const delta = held;
      held = null;
      lastSent = Date.now();
      this.listeners.emit(runId, {
        type: 'model.delta',
        runId,
        nodeId,
        round,
        ts: new Date().toISOString(),
        text: delta.text,
        toolCalls: delta.toolCalls,
      });
    };
    return {
      push: (delta) => {
        if (!this.listeners.has(runId)) return;
        held = delta;
        const wait = lastSent + DELTA_INTERVAL_MS - Date.now();
        if (wait <= 0) send();
        else timer ??= setTimeout(send, wait);
      },
      flush: send,
    };
  }
}
