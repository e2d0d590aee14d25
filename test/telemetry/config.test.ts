import { describe, expect, it } from 'vitest';
import { telemetryFromEnv } from '../../src/telemetry/config.js';
import { splitModelId } from '../../src/telemetry/attributes.js';
import { contextFromTraceparent, toTraceparent } from '../../src/telemetry/traceparent.js';
import { trace } from '@opentelemetry/api';

describe('telemetry settings from the OTEL_* variables', () => {
  it('is off without an exporter or endpoint, and with OTEL_SDK_DISABLED=true', () => {
    expect(telemetryFromEnv({})).toBeNull();
    expect(telemetryFromEnv({ OTEL_SERVICE_NAME: 'x' })).toBeNull();
    expect(telemetryFromEnv({ OTEL_TRACES_EXPORTER: 'none', OTEL_METRICS_EXPORTER: 'none' })).toBeNull();
    expect(
      telemetryFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBeNull();
  });

  it('an endpoint switches both signals on over http/protobuf; each signal can be set apart', () => {
    expect(telemetryFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toMatchObject({
      traces: 'otlp',
      metrics: 'otlp',
      tracesProtocol: 'http/protobuf',
      metricsProtocol: 'http/protobuf',
      captureContent: false,
      metricIntervalMs: 60_000,
      warnings: [],
    });
    expect(
      telemetryFromEnv({
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_METRICS_EXPORTER: 'console',
        OTEL_METRIC_EXPORT_INTERVAL: '5000',
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'TRUE',
      }),
    ).toMatchObject({
      traces: 'otlp',
      metrics: 'console',
      tracesProtocol: 'http/json',
      metricIntervalMs: 5000,
      captureContent: true,
    });
  });

  it('names what it does not support and falls back', () => {
    const env = telemetryFromEnv({
      OTEL_TRACES_EXPORTER: 'zipkin',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(env).toMatchObject({ traces: 'none', metrics: 'otlp', metricsProtocol: 'http/protobuf' });
    expect(env?.warnings).toEqual([
      'OTEL_TRACES_EXPORTER=zipkin is not supported (otlp, console or none); OTEL_TRACES_EXPORTER is treated as none',
      'OTLP protocol grpc is not supported here (http/protobuf or http/json); http/protobuf is used',
      'OTLP protocol grpc is not supported here (http/protobuf or http/json); http/protobuf is used',
    ]);
  });
});

describe('trace context and model names', () => {
  it('round-trips a traceparent and refuses malformed or all-zero ones', () => {
    const value = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const ctx = contextFromTraceparent(value);
    const span = ctx && trace.getSpanContext(ctx);
    expect(span).toMatchObject({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      isRemote: true,
    });
    expect(span && toTraceparent(span)).toBe(value);
    expect(contextFromTraceparent('00-00000000000000000000000000000000-b7ad6b7169203331-01')).toBeNull();
    expect(contextFromTraceparent('garbage')).toBeNull();
    expect(contextFromTraceparent(null)).toBeNull();
  });

  it('splits provider and model, a scripted file path to its name', () => {
    expect(splitModelId('openai:gpt-4.1')).toEqual({ provider: 'openai', model: 'gpt-4.1' });
    expect(splitModelId('scripted:/a/b/turns.yaml')).toEqual({ provider: 'scripted', model: 'turns.yaml' });
    expect(splitModelId('custom')).toEqual({ provider: 'unknown', model: 'custom' });
  });
});
