import { ROOT_CONTEXT, isSpanContextValid, trace, type Context, type SpanContext } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * A remote parent context from a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`), or null for
 * null, a malformed value or an all-zero id (a run persisted by a process without tracing).
 */
export function contextFromTraceparent(traceparent: string | null): Context | null {
  const match = traceparent === null ? null : TRACEPARENT.exec(traceparent);
  if (!match) return null;
  const spanContext: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: parseInt(match[3] as string, 16),
    isRemote: true,
  };
  return isSpanContextValid(spanContext) ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : null;
}

/** The W3C `traceparent` of a span context, or null when it is not valid (tracing off). */
export function toTraceparent(spanContext: SpanContext): string | null {
  if (!isSpanContextValid(spanContext)) return null;
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  return `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
}
