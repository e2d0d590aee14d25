import { RunError, runConflict } from '../domain/run-error.js';
import type { ApproverVote, PendingItem } from '../records/pending.js';
import { summarize, type RunSummary } from '../records/summary.js';
import type { RunRecord } from '../store/store.js';
import { markPending } from './pending-marks.js';
import type { RunSession } from './session.js';

/** A person's approval decision as the engine gets it (src/engine/respond.ts `PersonResponse`). */
export interface ApprovalDecision {
  decision: 'approved' | 'rejected';
  who: string | null;
  /** The token role of the person (null or absent: no server, roles are not checked). */
  role?: string | null;
  comment: string | null;
  /** Edited arguments (approve only). */
  args?: Record<string, unknown>;
}

/** What a decision that passed the policy's checks comes to. */
export type DecisionStep =
  /** The decision settles the item: a rejection, or the last approval needed (`approvers`: everyone who approved). */
  | { final: true; approvers: string[] }
  /** More approvals are needed: this one is recorded and the run keeps waiting. */
  | { final: false; votes: ApproverVote[] };

/**
 * Checks a person's decision on the pending write `pending` against its tool's approval policy
 * (docs/approvals.md), before anything changes. RunError APPROVER_REFUSED for a role the policy does
 * not allow, or for the person who started the run when two or more approvers are needed;
 * RUN_CONFLICT for a second approval of the same person; REQUEST_INVALID for a nameless approval
 * where several are needed, or edited arguments where several people approve.
 */
export function checkDecision(record: RunRecord, pending: PendingItem, d: ApprovalDecision): DecisionStep {
  if (!('tool' in pending)) return { final: true, approvers: d.who ? [d.who] : [] };
  const runId = record.runId;
  const policy = record.flow.tools[pending.tool]?.approval?.approvers;
  const count = pending.approvers?.count ?? policy?.count ?? 1;
  const roles = pending.approvers?.roles ?? policy?.roles;
  const votes = pending.approvedBy ?? [];
  if (roles && d.role != null && !roles.includes(d.role)) {
    throw new RunError(
      'APPROVER_REFUSED',
      `run ${runId}: ${d.who ?? 'this person'} (role ${d.role}) may not decide ${pending.tool}; the policy allows ${roles.join(', ')}`,
      { runId },
    );
  }
  if (d.decision === 'rejected') return { final: true, approvers: votes.map((v) => v.who) };
  if (count < 2) return { final: true, approvers: d.who ? [d.who] : [] };
  if (d.args !== undefined) {
    throw new RunError(
      'REQUEST_INVALID',
      `run ${runId}: ${pending.tool} needs ${count} approvers, who approve the call as the model made it; reject it with a comment instead of editing its arguments`,
      { runId },
    );
  }
  const who = d.who;
  if (!who) {
    throw new RunError(
      'REQUEST_INVALID',
      `run ${runId}: ${pending.tool} needs ${count} different approvers, and this approval names nobody; expected who approves (HTTP: a token with a name; CLI: env USER; library: the who option)`,
      { runId },
    );
  }
  const started = record.state.run;
  if (started.startedBy === who || started.threadStartedBy === who) {
    const what = started.startedBy === who ? 'the run' : 'its thread';
    throw new RunError(
      'APPROVER_REFUSED',
      `run ${runId}: ${who} started ${what} and cannot count as one of the ${count} approvers of ${pending.tool}`,
      { runId },
    );
  }
  if (votes.some((v) => v.who === who))
    throw runConflict(
      runId,
      `run ${runId}: ${who} has already approved ${pending.tool}; another person must`,
    );
  const vote: ApproverVote = { who, role: d.role ?? null, at: '', comment: d.comment };
  if (votes.length + 1 >= count) return { final: true, approvers: [...votes.map((v) => v.who), who] };
  return { final: false, votes: [...votes, vote] };
}

/**
 * Records an approval that is not yet the last one needed: the pending item (and the matching entry
 * of `items`) lists it in `approvedBy`, `approval.voted` is traced, and the run stays suspended with
 * its lease released. Returns the summary as the run keeps waiting.
 */
export async function recordVote(
  session: RunSession,
  pending: PendingItem,
  votes: ApproverVote[],
  now: Date,
): Promise<RunSummary> {
  const stamped = votes.map((v) => (v.at === '' ? { ...v, at: now.toISOString() } : v));
  const suspension = session.current.suspension;
  if (!suspension || !('tool' in pending)) throw new Error(`run ${session.runId} has no approval to vote on`);
  // Kept on the branch's item too: another branch's response rebuilds the run's suspension from them.
  const next = markPending(suspension, session.doc, pending.id ?? '', (item) =>
    'tool' in item ? { ...item, approvedBy: stamped } : item,
  );
  const last = stamped.at(-1);
  const count = pending.approvers?.count ?? stamped.length;
  session.emit({
    type: 'approval.voted',
    ...(session.doc.nodeId ? { nodeId: session.doc.nodeId } : {}),
    tool: pending.tool,
    who: last?.who ?? '',
    role: last?.role ?? null,
    approvals: stamped.length,
    count,
  });
  session.update({ suspension: next, leaseOwner: null, leaseExpiresAt: null });
  await session.checkpoint();
  return summarize(session.current);
}
