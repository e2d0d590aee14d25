import { fingerprint } from '../../domain/fingerprint.js';
import type { Observation } from '../../domain/observation.js';
import type { EvidenceRecord } from '../../records/run-state.js';
import type { CallInput } from '../call.js';
import type { After } from '../compose.js';
import type { ParsedCall } from '../stages.js';

/** What an evidence record is made of besides what the context gives. */
export interface EvidenceInput {
  tool: string;
  args: Record<string, unknown>;
  observation: Observation;
  lookBack?: boolean;
  confirmsFingerprint?: string;
  /** The fingerprint of `tool` and `args` when the caller knows it (saves hashing them again). */
  fingerprint?: string;
}

/**
 * The next evidence id of a run: `ev_<n+1>` where n is the number of the last record (records are
 * appended in id order, so this is the highest; constant time however long the run).
 */
export function nextEvidenceId(evidence: readonly EvidenceRecord[]): string {
  const last = evidence[evidence.length - 1];
  const n = last ? Number(/^ev_(\d+)$/.exec(last.id)?.[1] ?? evidence.length) : 0;
  return `ev_${n + 1}`;
}

/**
 * Appends an evidence record for an executed SUCCESS or FAILED call to `ctx.run.evidence` and
 * returns it (pipeline step 9, docs/design.md). The runtime persists new records with the next checkpoint.
 */
export function recordEvidence(ctx: CallInput, input: EvidenceInput): EvidenceRecord {
  const obs = input.observation;
  if (obs.outcome.name !== 'SUCCESS' && obs.outcome.name !== 'FAILED') {
    throw new Error(`evidence is only recorded for executed calls, not ${obs.outcome.name}`);
  }
  const record: EvidenceRecord = {
    id: nextEvidenceId(ctx.run.evidence),
    tool: input.tool,
    args: input.args,
    fingerprint: input.fingerprint ?? fingerprint(input.tool, input.args),
    outcome: obs.outcome.name,
    errorCode: obs.errorCode,
    payload: obs.data,
    ts: ctx.services.now().toISOString(),
    nodeId: ctx.nodeId,
    callId: ctx.call.callId,
  };
  if (input.lookBack) record.lookBack = true;
  if (input.confirmsFingerprint) record.confirmsFingerprint = input.confirmsFingerprint;
  ctx.changes.record({ kind: 'evidence', record });
  return record;
}

/**
 * Step 9 (EvidenceInterceptor, after): a SUCCESS or FAILED call of a real tool that executed becomes
 * evidence `ev_N`, and its observation cites it. Calls stopped before execution, reuses, builtin calls
 * and observations that already cite an evidence (a confirmed look-back) are left alone.
 */
export function evidenceGuard(): After<ParsedCall> {
  return function evidence(ctx, outcome) {
    const obs = outcome.observation;
    if (!outcome.executed || ctx.descriptor.kind === 'builtin' || obs.evidenceId !== null) return outcome;
    if (obs.outcome.name !== 'SUCCESS' && obs.outcome.name !== 'FAILED') return outcome;
    const { args, fingerprint: fp } = ctx;
    const record = recordEvidence(ctx, { tool: ctx.call.tool, args, fingerprint: fp, observation: obs });
    return { ...outcome, observation: obs.withEvidence(record.id) };
  };
}
