import type { RunChange } from '../records/changes.js';
import type { CallReport } from './call.js';
import type { Settled } from './compose.js';
import type { ReadyCall } from './stages.js';

const NONE: Readonly<Record<string, never>> = Object.freeze({});
const NO_CHANGES: readonly RunChange[] = Object.freeze([]);

/**
 * The one value a call comes to: what it was told (its observation, its effect, what the invoke step
 * looked back) and what its stages learnt before it ended, picked from the typed values they handed
 * on. Frozen; nothing writes it afterwards.
 */
export function callReport(settled: Settled<ReadyCall>): CallReport {
  const { reached, outcome } = settled;
  // Built by assignment, not by spreads: this runs once per call on the hot path.
  const report: Writable<CallReport> = {
    observation: outcome.observation,
    changes: reached.changes?.list() ?? NO_CHANGES,
    executed: outcome.executed,
    reused: settled.reused,
    approved: reached.approved ?? false,
    counted: reached.counted === true,
    provenance: reached.provenance ?? NONE,
    userProvenance: reached.userProvenance ?? NONE,
    matches: reached.matches ?? NONE,
  };
  if (outcome.effect) report.effect = outcome.effect;
  if (outcome.lookBack) report.lookBack = outcome.lookBack;
  if (reached.descriptor) report.descriptor = reached.descriptor;
  if (reached.policy) report.policy = reached.policy;
  if (reached.isWrite !== undefined) report.isWrite = reached.isWrite;
  if (reached.args) report.args = reached.args;
  if (reached.fingerprint !== undefined) report.fingerprint = reached.fingerprint;
  return Object.freeze(report);
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };
