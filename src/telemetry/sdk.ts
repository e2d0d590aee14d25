/**
 * Builds the OpenTelemetry SDK from the OTEL_* environment (only ever imported dynamically, when
 * telemetry is configured: the SDK costs nothing otherwise).
 */
import type {
  MeterProvider as ApiMeterProvider,
  TracerProvider as ApiTracerProvider,
} from '@opentelemetry/api';
import {
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import {
  ConsoleMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  ConsoleSpanExporter,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import type { OtlpProtocol, TelemetryEnv } from './config.js';

/** The providers built from the environment, and how to flush and stop them. */
export interface SdkProviders {
  tracerProvider: ApiTracerProvider | null;
  meterProvider: ApiMeterProvider | null;
  /** Exports what is buffered and stops every provider. */
  shutdown(): Promise<void>;
}

/** The service name when OTEL_SERVICE_NAME (or `service.name` in OTEL_RESOURCE_ATTRIBUTES) is not set. */
export const DEFAULT_SERVICE_NAME = 'g2rain-agent-runtime';

/**
 * Tracer and meter providers exporting as `config` says: OTLP over HTTP (protobuf or JSON; the
 * exporters read OTEL_EXPORTER_OTLP_* endpoints, headers and timeouts themselves) or the console.
 * Spans are batched and exported in the background, so a slow or down collector never holds a run.
 */
export async function buildSdk(config: TelemetryEnv): Promise<SdkProviders> {
  const resource = serviceResource();
  let tracerProvider: BasicTracerProvider | null = null;
  let meterProvider: MeterProvider | null = null;
  if (config.traces !== 'none') {
    const exporter =
      config.traces === 'console' ? new ConsoleSpanExporter() : await spanExporter(config.tracesProtocol);
    tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
  }
  if (config.metrics !== 'none') {
    const exporter =
      config.metrics === 'console'
        ? new ConsoleMetricExporter()
        : await metricExporter(config.metricsProtocol);
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: config.metricIntervalMs,
      exportTimeoutMillis: Math.min(config.metricIntervalMs, 10_000),
    });
    meterProvider = new MeterProvider({ resource, readers: [reader] });
  }
  return {
    tracerProvider,
    meterProvider,
    async shutdown() {
      await Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
    },
  };
}

function serviceResource(): Resource {
  const detected = detectResources({ detectors: [envDetector] });
  return resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }).merge(detected);
}

async function spanExporter(protocol: OtlpProtocol): Promise<SpanExporter> {
  if (protocol === 'http/json')
    return new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter();
  return new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
}

async function metricExporter(protocol: OtlpProtocol): Promise<PushMetricExporter> {
  if (protocol === 'http/json')
    return new (await import('@opentelemetry/exporter-metrics-otlp-http')).OTLPMetricExporter();
  return new (await import('@opentelemetry/exporter-metrics-otlp-proto')).OTLPMetricExporter();
}
