import { randomUUID } from 'node:crypto';

/**
 * The engine's clock: milliseconds since the epoch. Injected (`RuntimeOptions.clock`) so that leases,
 * event times and waits can be driven by a test; the engine reads the time nowhere else.
 */
export type Clock = () => number;

/** Where the engine's new ids come from (`RuntimeOptions.ids`); injected for deterministic tests. */
export interface IdSource {
  /** A new run id: `run_` and 20 hex digits by default. */
  runId(): string;
  /** The lease owner of one runtime instance: `rt_` and a UUID by default. */
  owner(): string;
  /** A steering message's id: `msg_` and 20 hex digits by default (absent: the default). */
  messageId?(): string;
}

/** The system clock. */
export const systemClock: Clock = () => Date.now();

/** Random ids from `crypto.randomUUID`. */
export const randomIds: IdSource = {
  runId: () => `run_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
  owner: () => `rt_${randomUUID()}`,
  messageId: () => randomMessageId(),
};

/** A random steering message id: `msg_` and 20 hex digits. */
export function randomMessageId(): string {
  return `msg_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
}

let lastMs = -1;
let lastIso = '';

/** A clock reading as an ISO string; readings of one millisecond share one (formatting is not free). */
export function isoAt(ms: number): string {
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Waits `ms` milliseconds (a poll interval between two looks at the store, never a fixed delay in a step). */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
