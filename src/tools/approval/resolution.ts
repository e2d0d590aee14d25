import { code } from '../../domain/error-codes.js';
import { canonicalJson } from '../../domain/fingerprint.js';
import { hint, list } from '../../domain/hints.js';
import { Observation } from '../../domain/observation.js';
import { logToolCall } from '../guards/log.js';
import type { CallChange } from '../../records/changes.js';
import type { Resolution, ResolutionState } from '../builtin/resolution.js';

/** The gated call an approval suspension is about. */
export interface ApprovalTarget {
  tool: string;
  args: Record<string, unknown>;
  fingerprint: string;
}

/** Who decided and why. */
export interface Decision {
  who?: string | null;
  comment?: string | null;
  /** Several approvers: each person who approved, in order. */
  approvers?: readonly string[];
  /** The person edited the arguments: those the model had given (the target holds the edited ones). */
  editedFrom?: Record<string, unknown>;
}

/**
 * The person approved: adds an Approval bound to exactly the gated call's fingerprint (consumed once
 * the write executes) and returns SUCCESS "用户已批准：现在可以用完全相同的参数调用一次 <tool>" — or,
 * when the person edited the arguments (`editedFrom`), the changes old → new and the edited call.
 */
export function approve(state: ResolutionState, target: ApprovalTarget, decision: Decision = {}): Resolution {
  const exists = state.run.approvals.some((a) => a.fingerprint === target.fingerprint && !a.consumed);
  const changes: CallChange[] = [];
  if (!exists) {
    const approval = {
      fingerprint: target.fingerprint,
      tool: target.tool,
      args: target.args,
      nodeId: state.nodeId,
      grantedAt: state.now.toISOString(),
      who: decision.who ?? null,
      comment: decision.comment ?? null,
      consumed: false,
      ...(decision.approvers && decision.approvers.length > 1 ? { approvers: [...decision.approvers] } : {}),
      ...(decision.editedFrom ? { editedFrom: decision.editedFrom } : {}),
    };
    changes.push({ kind: 'approval', approval });
  }
  const obs = decision.editedFrom
    ? editedObservation(state, target, decision.editedFrom)
    : Observation.success(hint(state.locale, 'APPROVAL_GRANTED', { tool: target.tool }), {
        tool: target.tool,
        args: target.args,
      });
  if (state.logger) logToolCall(state.logger, 'builtin_node_approval', obs);
  return { observation: obs, changes };
}

/** The approval of edited arguments: what changed (old → new) and the call now allowed, once. */
function editedObservation(
  state: ResolutionState,
  target: ApprovalTarget,
  from: Record<string, unknown>,
): Observation {
  const keys = [...new Set([...Object.keys(from), ...Object.keys(target.args)])];
  const changes = keys
    .filter((k) => canonicalJson(from[k] ?? null) !== canonicalJson(target.args[k] ?? null))
    .map((k) => `${k}: ${shown(from[k])} → ${shown(target.args[k])}`);
  const params = {
    tool: target.tool,
    changes: list(state.locale, changes),
    args: canonicalJson(target.args),
  };
  return Observation.success(hint(state.locale, 'APPROVAL_GRANTED_EDITED', params), {
    tool: target.tool,
    args: target.args,
    editedFrom: from,
  });
}

function shown(value: unknown): string {
  return value === undefined ? '∅' : canonicalJson(value);
}

/**
 * The person declined: the gated call is marked declined (so a follow-up about it is no longer
 * a verbal confirmation) and the approval call is REJECTED APPROVAL_DENIED with the comment.
 */
export function reject(state: ResolutionState, target: ApprovalTarget, decision: Decision = {}): Resolution {
  const gated = state.node.gatedCall;
  const changes: CallChange[] =
    gated && gated.fingerprint === target.fingerprint
      ? [{ kind: 'gateDecided', fingerprint: target.fingerprint, declined: true }]
      : [];
  const comment = decision.comment?.trim() ? decision.comment.trim() : hint(state.locale, 'NO_COMMENT');
  const obs = Observation.rejected(
    code('APPROVAL_DENIED'),
    code('APPROVAL_DENIED').reason(state.locale, { tool: target.tool, comment }),
    hint(state.locale, 'NEXT_APPROVAL_DENIED'),
  );
  if (state.logger) logToolCall(state.logger, 'builtin_node_approval', obs);
  return { observation: obs, changes };
}
