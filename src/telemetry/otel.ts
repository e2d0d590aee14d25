/**
 * The OpenTelemetry implementation of Telemetry (only ever imported dynamically, when telemetry is
 * configured by the environment or by providers passed to the library).
 */
import {
  createNoopMeter,
  ProxyTracerProvider,
  type MeterProvider,
  type TracerProvider,
} from '@opentelemetry/api';
import type { Logger } from '../log/logger.js';
import { createMetrics } from './metrics.js';
import { OtelSegment } from './segment.js';
import type { RunSegment, RunSegmentInfo, Telemetry } from './telemetry.js';

/** The instrumentation scope name of our spans and metrics. */
export const SCOPE = 'g2rain-agent-runtime';

/** What an OpenTelemetry telemetry is built from. */
export interface OtelTelemetryInit {
  /** Null: no traces (a tracer that records nothing is used). */
  tracerProvider: TracerProvider | null;
  /** Null: no metrics. */
  meterProvider: MeterProvider | null;
  captureContent: boolean;
  /** Flushes and stops what this telemetry owns (the SDK built from the environment); none for given providers. */
  shutdown?: () => Promise<void>;
  /** Longest wait of `shutdown()` (ms). */
  shutdownTimeoutMs: number;
  logger: Logger;
}

/** Telemetry over OpenTelemetry tracer and meter providers. */
export function createOtelTelemetry(init: OtelTelemetryInit): Telemetry {
  const tracer = (init.tracerProvider ?? new ProxyTracerProvider()).getTracer(SCOPE);
  const meter = init.meterProvider?.getMeter(SCOPE) ?? createNoopMeter();
  const deps = { tracer, metrics: createMetrics(meter), captureContent: init.captureContent };
  let stopping: Promise<void> | null = null;
  return {
    enabled: true,
    openRun: (info: RunSegmentInfo): RunSegment => new OtelSegment(deps, info),
    shutdown() {
      stopping ??= boundedShutdown(init);
      return stopping;
    },
  };
}

/** Runs the owner's shutdown for at most `shutdownTimeoutMs`; a failure is logged, never thrown. */
async function boundedShutdown(init: OtelTelemetryInit): Promise<void> {
  if (!init.shutdown) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), init.shutdownTimeoutMs);
    timer.unref();
  });
  try {
    const result = await Promise.race([init.shutdown().then(() => 'done' as const), timeout]);
    if (result === 'timeout')
      init.logger.warn('TELEMETRY export did not finish in time; the rest is dropped', {
        timeoutMs: init.shutdownTimeoutMs,
      });
  } catch (error) {
    init.logger.warn('TELEMETRY shutdown failed', {
      error: error instanceof Error ? error.message : String(error),
    });
  } finally {
    clearTimeout(timer);
  }
}
