import type { FlowInput } from '../domain/flow.js';
import { checkResultBytes, resultBytesFromEnv } from '../trace/result.js';
import { RuntimeInputError } from './errors.js';
import type { FlowRef } from '../engine/toolbox.js';

/** True for a loaded flow (`loadFlow`'s result or `{flow, dir}`), false for a plain flow object. */
export function isFlowRef(source: FlowRef | FlowInput): source is FlowRef {
  const flow = (source as { flow?: unknown }).flow;
  return typeof flow === 'object' && flow !== null && Array.isArray((flow as { nodes?: unknown }).nodes);
}

/** Why a response of kind `wanted` does not fit the run as it stands. */
export function conflictMessage(
  runId: string,
  status: string,
  waiting: string | undefined,
  wanted: string,
): string {
  const what = wanted === 'APPROVAL' ? 'an approval' : 'an answer';
  if (status !== 'suspended') return `run ${runId} is ${status}; it is not waiting for ${what}`;
  return `run ${runId} waits for ${waiting === 'APPROVAL' ? 'an approval' : 'an answer'}, not for ${what}`;
}

/** The lease length from env AGENT_RUNTIME_LEASE_MS, else 15 s. */
export function leaseFromEnv(): number {
  const raw = process.env.AGENT_RUNTIME_LEASE_MS;
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? value : 15_000;
}

/** The bound of traced tool results: the option, else the env, else 16 KiB; a bad value is bad input. */
export function traceResultBytes(option: number | undefined): number {
  try {
    return option === undefined ? resultBytesFromEnv() : checkResultBytes(option, 'traceResultBytes');
  } catch (error) {
    throw new RuntimeInputError((error as Error).message, { cause: error });
  }
}
