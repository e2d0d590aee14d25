/** Which exporter a signal uses (OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER). */
export type ExporterKind = 'otlp' | 'console' | 'none';

/** The OTLP protocol (OTEL_EXPORTER_OTLP_PROTOCOL and its per-signal variants); gRPC is not bundled. */
export type OtlpProtocol = 'http/protobuf' | 'http/json';

/** Telemetry settings read from the standard OTEL_* environment variables. */
export interface TelemetryEnv {
  traces: ExporterKind;
  metrics: ExporterKind;
  tracesProtocol: OtlpProtocol;
  metricsProtocol: OtlpProtocol;
  /** OTEL_METRIC_EXPORT_INTERVAL in ms (default 60000). */
  metricIntervalMs: number;
  /** Prompt, answer and result contents are exported only when this is true. */
  captureContent: boolean;
  /** How long shutdown may wait for the last export (ms). */
  shutdownTimeoutMs: number;
  /** Settings that were given but are not supported, for one warning line each. */
  warnings: string[];
}

export type Env = Readonly<Record<string, string | undefined>>;

/** The variable switching content capture on (the GenAI instrumentations' convention). */
export const CAPTURE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/**
 * Reads the OTEL_* variables. Telemetry is on when an exporter is named (`OTEL_TRACES_EXPORTER`,
 * `OTEL_METRICS_EXPORTER`) or an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or a per-signal
 * one); `OTEL_SDK_DISABLED=true` turns it off. Returns null when it is off: then nothing is loaded.
 */
export function telemetryFromEnv(env: Env = process.env): TelemetryEnv | null {
  if (isTrue(env.OTEL_SDK_DISABLED)) return null;
  const endpoint = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  const warnings: string[] = [];
  const traces = exporter(
    env,
    'OTEL_TRACES_EXPORTER',
    endpoint || Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT),
    warnings,
  );
  const metrics = exporter(
    env,
    'OTEL_METRICS_EXPORTER',
    endpoint || Boolean(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT),
    warnings,
  );
  if (traces === 'none' && metrics === 'none') return null;
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL);
  const timeout = Number(env.AGENT_RUNTIME_OTEL_SHUTDOWN_MS);
  return {
    traces,
    metrics,
    tracesProtocol: protocol(
      env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL,
      warnings,
    ),
    metricsProtocol: protocol(
      env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL,
      warnings,
    ),
    metricIntervalMs: Number.isFinite(interval) && interval > 0 ? interval : 60_000,
    captureContent: isTrue(env[CAPTURE_CONTENT_ENV]),
    shutdownTimeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : 2_000,
    warnings,
  };
}

/** Whether the variable switching content capture on is set (for telemetry given as providers). */
export function captureContentFromEnv(env: Env = process.env): boolean {
  return isTrue(env[CAPTURE_CONTENT_ENV]);
}

function exporter(env: Env, name: string, endpointSet: boolean, warnings: string[]): ExporterKind {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return endpointSet ? 'otlp' : 'none';
  // A list is allowed by the specification; the first exporter we support wins.
  for (const item of raw.split(',').map((s) => s.trim())) {
    if (item === 'otlp' || item === 'console' || item === 'none') return item;
  }
  warnings.push(`${name}=${raw} is not supported (otlp, console or none); ${name} is treated as none`);
  return 'none';
}

function protocol(raw: string | undefined, warnings: string[]): OtlpProtocol {
  const value = raw?.trim().toLowerCase();
  if (value === undefined || value === '' || value === 'http/protobuf') return 'http/protobuf';
  if (value === 'http/json') return 'http/json';
  warnings.push(
    `OTLP protocol ${value} is not supported here (http/protobuf or http/json); http/protobuf is used`,
  );
  return 'http/protobuf';
}

function isTrue(value: string | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
