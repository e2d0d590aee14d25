import type { ModelCallContext, ModelRequest, ModelResult } from '../model/model.js';
import type { StoredEvent } from '../store/store.js';
import type { CallWatch, WatchedCall } from '../tools/call.js';

/**
 * The runtime's view of observability (OpenTelemetry traces and metrics, docs/observability.md).
 * The runtime calls it at a few points; the no-op implementation below is used when nothing is
 * configured, so that no OpenTelemetry code is even loaded then.
 */
export interface Telemetry {
  /** False for the no-op implementation (callers may skip work that only feeds telemetry). */
  readonly enabled: boolean;
  /**
   * Opens one segment of a run: what this process does with it until `end()` (drive it until it
   * ends or suspends, record a person's response, a cancellation). `traceparent` is the run's
   * persisted trace context (null for a run that has none yet; the segment's own context is then
   * to be persisted, see `RunSegment.traceparent`).
   */
  openRun(run: RunSegmentInfo): RunSegment;
  /** Exports what is buffered and stops; bounded in time, never throws. */
  shutdown(): Promise<void>;
}

/** What a run segment is opened with. */
export interface RunSegmentInfo {
  runId: string;
  flowId: string;
  flowVersion: string | number;
  /** The run's persisted W3C `traceparent`, or null. */
  traceparent: string | null;
  /** For a child run without a trace context of its own: its parent run's `traceparent`. */
  parentTraceparent: string | null;
  /** Why this process works on the run: `start`, `approval`, `answer`, `recovery`, `drive`, `cancel`. */
  reason: string;
}

/** One segment of a run, as traced by this process. */
export interface RunSegment {
  /** The trace context to persist with the run when it has none yet (W3C traceparent), or null. */
  readonly traceparent: string | null;
  /** Told about every trace event of the run this segment commits (in seq order). */
  onEvent(event: StoredEvent): void;
  /** Runs one node run of `nodeId` inside a node span. */
  node<T extends { kind: string; reason?: string }>(nodeId: string, run: () => Promise<T>): Promise<T>;
  /** Runs one model call inside a `chat` span. */
  model(
    modelId: string,
    request: ModelRequest,
    context: ModelCallContext,
    call: (request: ModelRequest) => Promise<ModelResult>,
  ): Promise<ModelResult>;
  /**
   * The pipeline's telemetry stage for this run's calls: opens an `execute_tool` span when a call
   * starts, and records its outcome and duration when it ends (a function, passed on as is).
   */
  readonly tool: CallWatch;
  /** Ends the segment's spans with the run's status as it stands (idempotent). */
  end(status: string): void;
}

const UNWATCHED: WatchedCall = Object.freeze({ ended: () => undefined, threw: () => undefined });

const noopSegment: RunSegment = Object.freeze({
  traceparent: null,
  onEvent: () => undefined,
  node: <T>(_nodeId: string, run: () => Promise<T>) => run(),
  model: (
    _id: string,
    request: ModelRequest,
    _context: ModelCallContext,
    call: (r: ModelRequest) => Promise<ModelResult>,
  ) => call(request),
  tool: () => UNWATCHED,
  end: () => undefined,
});

/** Telemetry that records nothing (the default when nothing is configured). */
export const noopTelemetry: Telemetry = Object.freeze({
  enabled: false,
  openRun: () => noopSegment,
  shutdown: () => Promise.resolve(),
});
