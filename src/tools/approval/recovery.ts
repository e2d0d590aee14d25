import { code } from '../../domain/error-codes.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { InFlightWrite } from '../../records/run-state.js';
import { canonicalJson } from '../../domain/fingerprint.js';
import { lookBack } from '../guards/look-back.js';
import { openApproval } from './gate.js';
import type { CallInput, CallReport, CallResult } from '../call.js';
import { landed } from '../../records/changes.js';

/**
 * Crash recovery of a write that was in flight when its driver died (docs/durability.md). The interrupted call
 * is never re-sent blindly:
 * - `idempotent: true` → re-sent through the pipeline with the same idempotency key (its approval,
 *   not yet consumed, lets exactly that call through once more; the server deduplicates);
 * - `recover` → the look-back query decides: found → SUCCESS citing the look-back's evidence (not
 *   re-sent; approval consumed); not found → DEFERRED WRITE_NOT_EXECUTED (approval still valid);
 * - otherwise, or when the look-back fails → FAILED WRITE_RESULT_UNKNOWN (approval consumed) and the
 *   run asks the person how to go on.
 * In every branch the in-flight mark is cleared.
 */
export async function recoverWrite(
  ctx: CallInput,
  mark: InFlightWrite,
  pipeline: (input: CallInput) => Promise<CallReport>,
): Promise<CallResult> {
  ctx.changes.record(landed(mark));
  const policy = ctx.flow.tools[mark.tool];
  if (policy?.idempotent) {
    // Sent even after a stop: the server deduplicates, this settles the first send.
    const resent = await pipeline({ ...ctx, resending: true });
    return {
      observation: resent.observation,
      effect: resent.effect,
      args: resent.args ?? mark.args,
      executed: resent.executed,
    };
  }
  if (policy?.recover) {
    const notFound = Observation.deferred(
      code('WRITE_NOT_EXECUTED'),
      code('WRITE_NOT_EXECUTED').reason(ctx.locale, { tool: mark.tool }),
      hint(ctx.locale, 'NEXT_WRITE_NOT_EXECUTED', { tool: mark.tool }),
    );
    const write = { ...ctx, args: mark.args, fingerprint: mark.fingerprint, isWrite: true };
    const looked = await lookBack(write, notFound, mark.key, policy.recover);
    if (looked.lookBack?.found) {
      consumeApproval(ctx, mark);
      return { observation: looked.observation, args: mark.args, executed: true };
    }
    // Not found: the call did not take effect and was not executed now; its approval still holds.
    if (looked.lookBack?.decided)
      return { observation: looked.observation, args: mark.args, executed: false };
  }
  consumeApproval(ctx, mark);
  const observation = Observation.failed(
    code('WRITE_RESULT_UNKNOWN'),
    code('WRITE_RESULT_UNKNOWN').reason(ctx.locale, { tool: mark.tool }),
    hint(ctx.locale, 'NEXT_WRITE_RESULT_UNKNOWN'),
  );
  const question = hint(ctx.locale, 'RECOVERY_QUESTION', { tool: mark.tool, args: canonicalJson(mark.args) });
  return { observation, args: mark.args, executed: true, runtimeQuestion: question };
}

/** The interrupted write may have executed: its approval is used up and its gated call cleared. */
function consumeApproval(ctx: CallInput, mark: InFlightWrite): void {
  const fingerprint = mark.fingerprint;
  if (openApproval(ctx.run.approvals, fingerprint)) ctx.changes.record({ kind: 'approvalUsed', fingerprint });
  if (ctx.node.gatedCall?.fingerprint === fingerprint) ctx.changes.record({ kind: 'ungate', fingerprint });
}
