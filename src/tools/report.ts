import type { Observation } from '../domain/observation.js';
import type { CallContext } from './call.js';
import type { Settled } from './compose.js';
import type { ReadyCall } from './stages.js';

/**
 * Writes what a call came to, and what its steps learnt before it ended, onto its context for the
 * runtime (CallReport), and returns its observation. The only place the report is written.
 */
export function report(ctx: CallContext, settled: Settled<ReadyCall>): Observation {
  const { reached, outcome } = settled;
  ctx.executed = outcome.executed;
  ctx.reused = settled.reused;
  ctx.approved = reached.approved ?? false;
  if (outcome.effect) ctx.effect = outcome.effect;
  if (outcome.lookBack) ctx.lookBack = outcome.lookBack;
  if (reached.descriptor) ctx.descriptor = reached.descriptor;
  if (reached.policy) ctx.policy = reached.policy;
  if (reached.isWrite !== undefined) ctx.isWrite = reached.isWrite;
  if (reached.args) ctx.args = reached.args;
  if (reached.fingerprint !== undefined) ctx.fingerprint = reached.fingerprint;
  if (reached.counted) ctx.counted = true;
  if (reached.provenance) ctx.provenance = { ...reached.provenance };
  if (reached.userProvenance) ctx.userProvenance = { ...reached.userProvenance };
  if (reached.matches) ctx.matches = { ...reached.matches };
  return outcome.observation;
}
