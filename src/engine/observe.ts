import type { Logger } from '../log/logger.js';
import type { ModelClient, ModelRequest } from '../model/model.js';
import type { RunRecord, Store, StoredEvent } from '../store/store.js';
import type { RunSegment, RunSegmentInfo, Telemetry } from '../telemetry/telemetry.js';
import type { DriveContext } from './driver.js';
import { LiveChannel } from '../trace/live.js';
import type { EventSink, RunSession } from './session.js';
import type { CallWatch } from '../tools/call.js';

/** Why a process works on a run (the segment's `agent_runtime.segment` attribute). */
export type SegmentReason = 'start' | 'approval' | 'answer' | 'recovery' | 'drive' | 'cancel' | 'retry';

/**
 * Opens the telemetry segment of a run in this process. A run keeps one trace across processes: its
 * trace context is read from the persisted state (`traceparent`); a child run without one joins its
 * parent's trace.
 */
export async function openSegment(
  telemetry: Telemetry,
  store: Store,
  record: RunRecord,
  reason: SegmentReason,
): Promise<RunSegment> {
  if (!telemetry.enabled) return telemetry.openRun(segmentInfo(record, reason, null));
  let parentTraceparent: string | null = null;
  if (traceparentOf(record) === null && record.parentRunId !== null) {
    const parent = await store.getRun(record.parentRunId);
    parentTraceparent = parent ? traceparentOf(parent) : null;
  }
  return telemetry.openRun(segmentInfo(record, reason, parentTraceparent));
}

/** The run's persisted W3C traceparent, or null. */
export function traceparentOf(record: RunRecord): string | null {
  const value = record.state.traceparent;
  return typeof value === 'string' ? value : null;
}

function segmentInfo(
  record: RunRecord,
  reason: SegmentReason,
  parentTraceparent: string | null,
): RunSegmentInfo {
  const flow = record.flow;
  return {
    runId: record.runId,
    flowId: flow.id,
    flowVersion: flow.version,
    traceparent: traceparentOf(record),
    parentTraceparent,
    reason,
  };
}

/**
 * The model as a run's driver calls it: each call inside the segment's `chat` span, and a streaming
 * model's deltas sent to the run's live followers (the last one when the call ends).
 */
export function observedModel(model: ModelClient, segment: RunSegment, live: LiveChannel): ModelClient {
  return {
    id: model.id,
    async call(request, context) {
      const sink = live.sink(context.runId, context.nodeId, context.round ?? null);
      const withDeltas: ModelRequest = {
        ...request,
        onDelta: (delta) => {
          request.onDelta?.(delta);
          sink.push(delta);
        },
      };
      try {
        return await segment.model(model.id, withDeltas, context, (r) => model.call(r, context));
      } finally {
        sink.flush();
      }
    },
  };
}

/**
 * The model with its failures logged: a failed call's `detail` (the provider's answer text, host…)
 * goes to the server log as `MODEL call failed` and is dropped from the result, whose `message` is
 * all that viewers see.
 */
export function loggedModel(model: ModelClient, logger: Logger): ModelClient {
  return {
    id: model.id,
    async call(request, context) {
      const result = await model.call(request, context);
      if (result.ok || result.detail === undefined) return result;
      logger.warn('MODEL call failed', { runId: context.runId, node: context.nodeId, detail: result.detail });
      return { ok: false, message: result.message };
    },
  };
}

/**
 * The runtime's observability: the telemetry segment of each session it opens (ended when the
 * session is done) and the live `model.delta` channel. Keeps the facade's own code small.
 */
export class RunObservers {
  readonly live = new LiveChannel();
  private readonly segments = new WeakMap<RunSession, RunSegment>();

  private loading: Promise<Telemetry> | null = null;

  /** `telemetry` is loaded on first use, so that commands that drive no run never load it. */
  constructor(private readonly load: () => Promise<Telemetry>) {}

  private get telemetry(): Promise<Telemetry> {
    this.loading ??= this.load();
    return this.loading;
  }

  /** Opens a run's segment; `sink` (set when telemetry is on) is to receive the session's committed events. */
  async open(
    store: Store,
    record: RunRecord,
    reason: SegmentReason,
  ): Promise<{ segment: RunSegment; sink: EventSink | null }> {
    const telemetry = await this.telemetry;
    const segment = await openSegment(telemetry, store, record, reason);
    return { segment, sink: telemetry.enabled ? (event) => segment.onEvent(event) : null };
  }

  /** Ties an opened segment to its session; a new trace context is persisted with the next checkpoint. */
  attach(session: RunSession, segment: RunSegment): void {
    if (segment.traceparent) session.doc.traceparent = segment.traceparent;
    this.segments.set(session, segment);
  }

  /** The model, the telemetry stage of tool calls and the node tracing a session's driver uses. */
  async driving(session: RunSession, model: ModelClient): Promise<Driving> {
    const segment = this.segments.get(session);
    if (!segment) return { model };
    const observed = observedModel(model, segment, this.live);
    if (!(await this.telemetry).enabled) return { model: observed };
    return {
      model: observed,
      telemetry: segment.tool,
      traceNode: (nodeId, run) => segment.node(nodeId, run),
    };
  }

  /** Ends a session's segment with the run's status as it stands. */
  end(session: RunSession): void {
    this.segments.get(session)?.end(session.current.status);
    this.segments.delete(session);
  }

  /** Traces events committed outside a session (a cancellation) as a segment of their own. */
  async aside(
    store: Store,
    record: RunRecord,
    reason: SegmentReason,
    events: readonly StoredEvent[],
  ): Promise<void> {
    const telemetry = await this.telemetry;
    if (!telemetry.enabled) return;
    const segment = await openSegment(telemetry, store, record, reason);
    for (const event of events) segment.onEvent(event);
    segment.end(record.status);
  }

  /** Flushes and stops the telemetry (bounded in time); nothing to do when it was never loaded. */
  async shutdown(): Promise<void> {
    if (this.loading) await (await this.loading).shutdown();
  }
}

/** What a session's driver runs with. */
export interface Driving {
  model: ModelClient;
  /** The pipeline's telemetry stage for the run's calls (`execute_tool` spans); none when telemetry is off. */
  telemetry?: CallWatch;
  traceNode?: DriveContext['traceNode'];
}
