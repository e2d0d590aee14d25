import { code } from '../../domain/error-codes.js';
import { durationMs, type ApprovalPolicy } from '../../domain/flow-approval.js';
import { hint } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import type { ApprovalPending } from '../../records/pending.js';
import type { GatedCall } from '../../records/run-state.js';
import type { CallInput } from '../call.js';
import { evaluateCondition, ExpressionError } from '../expressions.js';

/** Which rule of an approval policy decided a call, if one did. */
export type RuleDecision = 'auto' | 'reject' | null;

/**
 * Evaluates the policy's `reject`, then `auto` rule over the pending call (`tool`, `args`, `summary`,
 * `matches`, `provenance`, `userProvenance`) with the bounded evaluator (sandboxed for flows sent over
 * HTTP). The first that holds decides; none (or no rule): null, a person decides. A rule that fails to
 * evaluate is the flow's bug: logged, and it decides nothing (the call waits for a person).
 */
export async function decideByRule(
  ctx: CallInput,
  policy: ApprovalPolicy,
  pending: ApprovalPending,
): Promise<RuleDecision> {
  const scope = {
    tool: pending.tool,
    args: pending.args,
    summary: pending.summary,
    matches: pending.matches ?? {},
    provenance: pending.provenance,
    userProvenance: pending.userProvenance ?? {},
  };
  for (const rule of ['reject', 'auto'] as const) {
    const expression = policy[rule];
    if (expression === undefined) continue;
    try {
      if (await evaluateCondition(expression, scope)) return rule;
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error;
      ctx.services.logger.warn('TOOL approval rule failed; a person decides', {
        tool: pending.tool,
        rule,
        error: error.message,
      });
    }
  }
  return null;
}

/**
 * Applies a rule's decision to the gated call, as a person's decision would be: `auto` adds an
 * approval bound to exactly this call (`rule: 'auto'`, consumed once the write executes); `reject`
 * marks the call declined. Returns builtin_node_approval's observation, whose text names the rule.
 */
export function applyRule(ctx: CallInput, gated: GatedCall, rule: 'auto' | 'reject'): Observation {
  const tool = gated.tool;
  const fingerprint = gated.fingerprint;
  ctx.changes.record({ kind: 'gateDecided', fingerprint, declined: rule === 'reject', decidedBy: rule });
  if (rule === 'reject') {
    const comment = hint(ctx.locale, 'APPROVAL_RULE_REJECTED');
    return Observation.rejected(
      code('APPROVAL_DENIED'),
      code('APPROVAL_DENIED').reason(ctx.locale, { tool, comment }),
      hint(ctx.locale, 'NEXT_APPROVAL_DENIED'),
    );
  }
  const open = ctx.run.approvals.some((a) => a.fingerprint === gated.fingerprint && !a.consumed);
  if (!open) {
    const approval = {
      fingerprint,
      tool,
      args: gated.args,
      nodeId: ctx.node.nodeId,
      grantedAt: ctx.services.now().toISOString(),
      who: null,
      comment: null,
      consumed: false,
      rule: 'auto' as const,
    };
    ctx.changes.record({ kind: 'approval', approval });
  }
  return Observation.success(hint(ctx.locale, 'APPROVAL_RULE_GRANTED', { tool }), {
    tool,
    args: gated.args,
    decidedBy: 'auto',
  });
}

/** The pending item's policy fields: who must approve and when it expires (docs/approvals.md). */
export function policyFields(
  policy: ApprovalPolicy | undefined,
  now: Date,
): Pick<ApprovalPending, 'approvers' | 'expiresAt'> {
  if (!policy) return {};
  const count = policy.approvers?.count ?? 1;
  const roles = policy.approvers?.roles;
  return {
    ...(count > 1 || roles ? { approvers: { count, ...(roles ? { roles: [...roles] } : {}) } } : {}),
    ...(policy.expiresAfter
      ? { expiresAt: new Date(now.getTime() + durationMs(policy.expiresAfter)).toISOString() }
      : {}),
  };
}
