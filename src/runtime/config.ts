import { maxFileBytes } from '../fs/input-file.js';
import { checkResultBytes, resultBytesFromEnv } from '../trace/result.js';
import { RunError } from '../domain/run-error.js';
import type { Ablation } from '../engine/ablation.js';

/** Environment variables as the runtime reads them (`RuntimeOptions.env`, default `process.env`). */
export type Env = Readonly<Record<string, string | undefined>>;

/** The runtime's settings, from its options, else the environment, else the defaults. Read once. */
export interface RuntimeConfig {
  /** Lease length in ms. */
  leaseMs: number;
  /** Bound of `tool.invoked.result` in bytes of JSON (0: results are not traced). */
  traceResultBytes: number;
  /** Eval switches (docs/evals.md), when any is set; checked here so a typo is refused at creation. */
  ablation?: Ablation;
  /** The size cap of files read while driving (delegate flows, scripted models): AGENT_RUNTIME_MAX_FILE_BYTES. */
  maxFileBytes: number;
}

/** The default lease length (ms). */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * The configuration seam: where the runtime reads its environment (with the model providers, the MCP
 * servers, the logger and telemetry, each given the same env). `leaseMs` falls back to
 * AGENT_RUNTIME_LEASE_MS (a positive number, else 15 s), `traceResultBytes` to
 * AGENT_RUNTIME_TRACE_RESULT_BYTES (else 16 KiB), `maxFileBytes` is AGENT_RUNTIME_MAX_FILE_BYTES (else
 * 4 MiB); a bad `traceResultBytes` is bad input.
 */
export function runtimeConfig(
  options: {
    leaseMs?: number | undefined;
    traceResultBytes?: number | undefined;
    ablation?: Ablation | undefined;
  },
  env: Env,
): RuntimeConfig {
  const ablation = checkAblation(options.ablation);
  return {
    leaseMs: options.leaseMs ?? leaseFromEnv(env),
    traceResultBytes: traceResultBytes(options.traceResultBytes, env),
    maxFileBytes: maxFileBytes(env),
    ...(ablation ? { ablation } : {}),
  };
}

/** The ablation switches as given, or RunError REQUEST_INVALID naming the bad value (library callers pass any value). */
function checkAblation(ablation: Ablation | undefined): Ablation | undefined {
  if (ablation === undefined) return undefined;
  const { observations, guards } = ablation;
  if (observations !== undefined && observations !== 'typed' && observations !== 'plain')
    throw new RunError(
      'REQUEST_INVALID',
      `ablation.observations must be typed or plain, not ${String(observations)}`,
    );
  if (guards !== undefined && guards !== 'on' && guards !== 'off')
    throw new RunError('REQUEST_INVALID', `ablation.guards must be on or off, not ${String(guards)}`);
  return ablation;
}

function leaseFromEnv(env: Env): number {
  const raw = env.AGENT_RUNTIME_LEASE_MS;
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_LEASE_MS;
}

function traceResultBytes(option: number | undefined, env: Env): number {
  try {
    return option === undefined ? resultBytesFromEnv(env) : checkResultBytes(option, 'traceResultBytes');
  } catch (error) {
    throw new RunError('REQUEST_INVALID', (error as Error).message, { cause: error });
  }
}
