import type { CallWatch, WatchedCall } from '../call.js';

const UNWATCHED: WatchedCall = Object.freeze({ ended: () => undefined, threw: () => undefined });

/**
 * The telemetry stage: each call, stopped, sent or thrown, recorded by the run's telemetry
 * (`services.telemetry`: an `execute_tool` span and the step duration, docs/observability.md). Started
 * before the first check, so the span covers the whole call; nothing is recorded without telemetry.
 */
export function telemetryStage(): CallWatch {
  return function telemetry(input) {
    return input.services.telemetry?.(input) ?? UNWATCHED;
  };
}
