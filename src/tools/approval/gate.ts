import { code } from '../../domain/error-codes.js';
import { canonicalJson } from '../../domain/fingerprint.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { Approval, EvidenceRecord, PendingWrite } from '../../records/run-state.js';
import { evaluateCondition, evaluateMap, ExpressionError } from '../expressions.js';
import type { CallInput } from '../call.js';
import type { After, Check } from '../compose.js';
import type { Admission, CallOutcome, ParsedCall, SourcedCall, Stop } from '../stages.js';
import type { ProducedCase } from '../produces.js';
import { idempotencyKey } from '../guards/keys.js';

/** What the write gate produces (for docs/observations.md). */
export const WRITE_GATE_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'WriteGate',
    case: 'a SUCCESS evidence (or a confirming look-back) exists for the same fingerprint: reused, not executed again',
    code: null,
  },
  {
    producer: 'WriteGate',
    case: 'the same write is executing (in flight)',
    code: 'WRITE_IN_FLIGHT',
    next: 'NEXT_IN_FLIGHT',
  },
  {
    producer: 'WriteGate',
    case: 'a write of this node is pending verification',
    code: 'WRITE_PENDING_VERIFY',
    next: 'NEXT_PENDING_VERIFY',
  },
  {
    producer: 'WriteGate',
    case: 'no unconsumed approval for this fingerprint: the gated call is recorded',
    code: 'APPROVAL_REQUIRED',
    next: 'NEXT_APPROVAL_REQUIRED',
  },
  {
    producer: 'WriteGate.after',
    case: 'an approved write ended FAILED: the FAILED observation keeps its code; its next step is replaced',
    code: null,
    outcome: 'FAILED',
    next: 'NEXT_APPROVED_FAILED',
  },
];

/** The SUCCESS evidence a write's fingerprint can be reused from (its own, or a confirming look-back). */
export function reusableEvidence(
  evidence: readonly EvidenceRecord[],
  fp: string,
): EvidenceRecord | undefined {
  return evidence.find(
    (e) =>
      e.outcome === 'SUCCESS' &&
      ((e.fingerprint === fp && e.lookBack !== true) || e.confirmsFingerprint === fp),
  );
}

/** The unconsumed approval of exactly this fingerprint, if any. */
export function openApproval(approvals: readonly Approval[], fp: string): Approval | undefined {
  return approvals.find((a) => a.fingerprint === fp && !a.consumed);
}

/**
 * Step 4 (WriteGateInterceptor), before the call — for write tools, in order: (a) reuse of a SUCCESS
 * evidence of the same fingerprint → SUCCESS citing it, not executed; (b) the same write in flight →
 * DEFERRED WRITE_IN_FLIGHT; (c) a write of this node pending verification → DEFERRED
 * WRITE_PENDING_VERIFY; (d) an unconsumed approval of this fingerprint → pass, learning `approved`;
 * (e) else the gated call is recorded → DEFERRED APPROVAL_REQUIRED. Reads and builtins pass.
 */
export function writeGateGuard(): Check<SourcedCall, Admission> {
  return function writeGate(ctx) {
    return ctx.isWrite ? before(ctx) : { approved: false };
  };
}

/**
 * Step 8 (WriteGateInterceptor.after), on the way back: an executed write consumes its approval and
 * clears the gated call; FAILED gets NEXT_APPROVED_FAILED; a result satisfying `pending` is marked
 * pending verification; and any SUCCESS of a verify tool with exactly a pending write's verify args
 * that satisfies `done` clears it.
 */
export function writeGateAfter(): After<ParsedCall & Admission> {
  return async function writeGateSettle(ctx, outcome) {
    if (!outcome.executed) return outcome;
    return { ...outcome, observation: await after(ctx, outcome) };
  };
}

function before(ctx: SourcedCall): Admission | Stop {
  const fp = ctx.fingerprint;
  const tool = ctx.call.tool;
  const { locale } = ctx;
  const reused = reusableEvidence(ctx.run.evidence, fp);
  if (reused) {
    const stop = Observation.success(hint(locale, 'REUSED'), reused.payload).withEvidence(reused.id);
    return { stop, reused: true };
  }
  if (ctx.run.inFlight.some((w) => w.fingerprint === fp)) {
    return deferred(
      code('WRITE_IN_FLIGHT'),
      code('WRITE_IN_FLIGHT').reason(locale, { tool }),
      hint(locale, 'NEXT_IN_FLIGHT'),
    );
  }
  const pending = ctx.node.pendingWrites[0];
  if (pending) {
    return deferred(
      code('WRITE_PENDING_VERIFY'),
      code('WRITE_PENDING_VERIFY').reason(locale, { tool: pending.tool }),
      hint(locale, 'NEXT_PENDING_VERIFY', {
        verifyTool: pending.verifyTool,
        verifyArgs: canonicalJson(pending.verifyArgs),
      }),
    );
  }
  if (openApproval(ctx.run.approvals, fp)) return { approved: true };
  const said =
    Object.keys(ctx.userProvenance).length > 0 ? { userProvenance: { ...ctx.userProvenance } } : {};
  const call = {
    tool,
    args: ctx.args,
    fingerprint: fp,
    provenance: { ...ctx.provenance },
    ...said,
    ...(Object.keys(ctx.matches).length > 0 ? { matches: { ...ctx.matches } } : {}),
  };
  ctx.changes.record({ kind: 'gate', call });
  return deferred(
    code('APPROVAL_REQUIRED'),
    code('APPROVAL_REQUIRED').reason(locale),
    hint(locale, 'NEXT_APPROVAL_REQUIRED', { tool }),
  );
}

function deferred(...parts: Parameters<typeof Observation.deferred>): Stop {
  return { stop: Observation.deferred(...parts) };
}

async function after(ctx: ParsedCall & Admission, outcome: CallOutcome): Promise<Observation> {
  const obs = outcome.observation;
  let result = obs;
  if (ctx.isWrite) {
    const fp = ctx.fingerprint;
    if (openApproval(ctx.run.approvals, fp)) ctx.changes.record({ kind: 'approvalUsed', fingerprint: fp });
    if (ctx.node.gatedCall?.fingerprint === fp) ctx.changes.record({ kind: 'ungate', fingerprint: fp });
    if (obs.outcome.name === 'FAILED' && ctx.approved) {
      ctx.changes.record({ kind: 'approvedWriteFailed', value: true });
      result = obs.withNext(hint(ctx.locale, 'NEXT_APPROVED_FAILED'));
    }
    if (obs.ok && !outcome.lookBack) await markPending(ctx, obs.data);
  } else if (obs.ok) {
    await clearVerified(ctx, obs.data);
  }
  return result;
}

async function markPending(ctx: ParsedCall, result: unknown): Promise<void> {
  const policy = ctx.policy;
  const condition = policy?.pending;
  if (!policy || !condition) return;
  const args = ctx.args;
  const key = idempotencyKey(ctx.run.runId, ctx.fingerprint);
  const isPending = await guarded(ctx, () => evaluateCondition(condition, { args, result }), false);
  if (!isPending) return;
  if (!policy.verify) {
    ctx.services.logger.warn('TOOL pending without verify', { tool: ctx.call.tool });
    return;
  }
  const scope = { args, result, key };
  const verifyArgs = await guarded(ctx, () => evaluateMap(policy.verify?.args ?? {}, scope), null);
  if (!verifyArgs) return;
  const pending: PendingWrite = {
    tool: ctx.call.tool,
    fingerprint: ctx.fingerprint,
    verifyTool: policy.verify.tool,
    verifyArgs,
    done: policy.verify.done,
    scope,
  };
  ctx.changes.record({ kind: 'pendingWrite', pending });
}

async function clearVerified(ctx: ParsedCall, verify: unknown): Promise<void> {
  const args = canonicalJson(ctx.args);
  const matching = ctx.node.pendingWrites.filter(
    (p) => p.verifyTool === ctx.call.tool && canonicalJson(p.verifyArgs) === args,
  );
  for (const pending of matching) {
    const done = await guarded(
      ctx,
      () => evaluateCondition(pending.done, { ...pending.scope, verify }),
      false,
    );
    if (done) ctx.changes.record({ kind: 'verified', fingerprint: pending.fingerprint });
  }
}

/** Runs a flow expression; an evaluation error is the flow's bug: logged, and `fallback` is used. */
async function guarded<T>(ctx: CallInput, run: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
    ctx.services.logger.warn('TOOL write policy expression failed', {
      tool: ctx.call.tool,
      error: error.message,
    });
    return fallback;
  }
}
