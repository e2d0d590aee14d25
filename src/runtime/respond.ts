import { code } from '../domain/error-codes.js';
import type { Flow } from '../domain/flow.js';
import { hint } from '../domain/hints.js';
import { Observation } from '../domain/observation.js';
import type { NodeState, RunState } from '../domain/run-state.js';
import type { SuspendedCall } from '../loop/loop-state.js';
import type { RunSession } from './session.js';

/** A person's response to a suspended run. */
export type PersonResponse =
  | { kind: 'APPROVAL'; decision: 'approved' | 'rejected'; comment: string | null; who: string | null }
  | { kind: 'FOLLOW_UP'; answer: string; who: string | null };

/**
 * Applies a person's response to the suspending call (SPEC §5, §6): records the approval or the
 * answer, traces `run.resumed`, and leaves the call's final observation for the loop to count.
 * The caller has checked that the run waits for exactly this kind of input.
 */
export function applyResponse(session: RunSession, flow: Flow, response: PersonResponse): void {
  const suspended = session.doc.loop.suspended;
  const node = session.doc.node;
  if (!suspended || !node) throw new Error(`run ${session.runId} is suspended without a suspending call`);
  const observation =
    response.kind === 'APPROVAL'
      ? decide(session.run, node, suspended, response, flow)
      : answer(session.run, node, suspended, response.answer, flow);
  session.emit(
    response.kind === 'APPROVAL'
      ? { type: 'run.resumed', nodeId: node.nodeId, kind: 'APPROVAL', decision: response.decision, comment: response.comment, who: response.who }
      : { type: 'run.resumed', nodeId: node.nodeId, kind: 'FOLLOW_UP', answer: response.answer, who: response.who },
  );
  session.doc.loop.suspended = null;
  session.doc.loop.resolved = { call: suspended, observation: observation.toJSON() };
}

function decide(
  run: RunState,
  node: NodeState,
  call: SuspendedCall,
  response: Extract<PersonResponse, { kind: 'APPROVAL' }>,
  flow: Flow,
): Observation {
  const gated = node.gatedCall;
  if (!gated || gated.fingerprint !== call.fingerprint) {
    throw new Error(`run ${run.runId}: the approval's gated call is missing from node ${node.nodeId}`);
  }
  const locale = flow.locale;
  if (response.decision === 'approved') {
    run.approvals.push({
      fingerprint: gated.fingerprint,
      tool: gated.tool,
      args: gated.args,
      nodeId: node.nodeId,
      grantedAt: new Date().toISOString(),
      who: response.who,
      comment: response.comment,
      consumed: false,
    });
    return Observation.success(hint(locale, 'APPROVAL_GRANTED', { tool: gated.tool }), { tool: gated.tool, args: gated.args });
  }
  gated.declined = true;
  const comment = response.comment?.trim() || (locale === 'zh-CN' ? '（未说明原因）' : '(no reason given)');
  return Observation.rejected(
    code('APPROVAL_DENIED'),
    code('APPROVAL_DENIED').reason(locale, { tool: gated.tool, comment }),
    hint(locale, 'NEXT_APPROVAL_DENIED'),
  );
}

function answer(run: RunState, node: NodeState, call: SuspendedCall, text: string, flow: Flow): Observation {
  const question = typeof call.args.question === 'string' ? call.args.question : '';
  const options = Array.isArray(call.args.options) ? call.args.options.map(String) : null;
  run.followUps.push({ question, options, answer: text, nodeId: node.nodeId });
  node.approvedWriteFailed = false;
  return Observation.success(hint(flow.locale, 'FOLLOW_UP_ANSWER', { answer: text }), { answer: text });
}
