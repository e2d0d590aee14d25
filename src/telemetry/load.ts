import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import type { Logger } from '../log/logger.js';
import { captureContentFromEnv, telemetryFromEnv, type Env } from './config.js';
import { noopTelemetry, type Telemetry } from './telemetry.js';

/**
 * Telemetry given to the library (`createRuntime({ telemetry })`): the application's own providers.
 * Without providers, the standard OTEL_* environment variables decide (docs/observability.md).
 */
export interface TelemetryOptions {
  /** Spans go here (the application keeps ownership: the runtime never shuts it down). */
  tracerProvider?: TracerProvider;
  /** Metrics go here (likewise not shut down by the runtime). */
  meterProvider?: MeterProvider;
  /**
   * Export prompts, model outputs, tool arguments and results, answers and comments (they may hold
   * personal data). Default: env OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, else off.
   */
  captureContent?: boolean;
}

/**
 * The telemetry of a runtime: `false` or nothing configured gives the no-op telemetry without
 * loading any OpenTelemetry module; providers or OTEL_* variables load the SDK parts needed, once.
 * A misconfiguration is logged and gives the no-op telemetry (observability never stops a run).
 */
export async function loadTelemetry(
  options: TelemetryOptions | false | undefined,
  logger: Logger,
  env: Env = process.env,
): Promise<Telemetry> {
  if (options === false) return noopTelemetry;
  try {
    return await load(options, logger, env);
  } catch (error) {
    logger.warn('TELEMETRY could not be set up; runs are not exported', {
      error: error instanceof Error ? error.message : String(error),
    });
    return noopTelemetry;
  }
}

async function load(options: TelemetryOptions | undefined, logger: Logger, vars: Env): Promise<Telemetry> {
  const { createOtelTelemetry } = await loadIfConfigured(options, vars);
  if (!createOtelTelemetry) return noopTelemetry;
  if (options?.tracerProvider || options?.meterProvider) {
    return createOtelTelemetry({
      tracerProvider: options.tracerProvider ?? null,
      meterProvider: options.meterProvider ?? null,
      captureContent: options.captureContent ?? captureContentFromEnv(vars),
      shutdownTimeoutMs: 0,
      logger,
    });
  }
  const env = telemetryFromEnv(vars);
  if (!env) return noopTelemetry;
  for (const warning of env.warnings) logger.warn(`TELEMETRY ${warning}`);
  const sdk = await (await import('./sdk.js')).buildSdk(env);
  return createOtelTelemetry({
    tracerProvider: sdk.tracerProvider,
    meterProvider: sdk.meterProvider,
    captureContent: options?.captureContent ?? env.captureContent,
    shutdown: () => sdk.shutdown(),
    shutdownTimeoutMs: env.shutdownTimeoutMs,
    logger,
  });
}

/** The OpenTelemetry module, imported only when providers or the environment ask for telemetry. */
async function loadIfConfigured(
  options: TelemetryOptions | undefined,
  vars: Env,
): Promise<Partial<typeof import('./otel.js')>> {
  if (!options?.tracerProvider && !options?.meterProvider && !telemetryFromEnv(vars)) return {};
  return import('./otel.js');
}
