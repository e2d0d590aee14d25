import type { Flow } from '../domain/flow.js';
import type { Observation } from '../domain/observation.js';
import type { Logger } from '../log/logger.js';
import { answer, approve, reject, type ResolutionState } from '../tools/builtin/resolution.js';
import type { RunSession } from './session.js';

/** A person's response to a suspended run. */
export type PersonResponse =
  | { kind: 'APPROVAL'; decision: 'approved' | 'rejected'; comment: string | null; who: string | null }
  | { kind: 'FOLLOW_UP'; answer: string; who: string | null };

/**
 * Applies a person's response to the suspending call (docs/observations.md; docs/design.md): records the approval or the
 * answer, traces `run.resumed`, and leaves the call's final observation for the loop to count.
 * The caller has checked that the run waits for exactly this kind of input.
 */
export function applyResponse(
  session: RunSession,
  flow: Flow,
  response: PersonResponse,
  logger: Logger,
): void {
  const suspended = session.doc.loop.suspended;
  const node = session.doc.node;
  if (!suspended || !node) throw new Error(`run ${session.runId} is suspended without a suspending call`);
  const state: ResolutionState = {
    run: session.run,
    node,
    nodeId: node.nodeId,
    locale: flow.locale,
    now: new Date(),
    logger,
  };
  let observation: Observation;
  if (response.kind === 'APPROVAL') {
    const gated = node.gatedCall;
    if (!gated || gated.fingerprint !== suspended.fingerprint) {
      throw new Error(`run ${session.runId}: the approval's gated call is missing from node ${node.nodeId}`);
    }
    const target = { tool: gated.tool, args: gated.args, fingerprint: gated.fingerprint };
    const decision = { who: response.who, comment: response.comment };
    observation =
      response.decision === 'approved' ? approve(state, target, decision) : reject(state, target, decision);
    session.emit({
      type: 'run.resumed',
      nodeId: node.nodeId,
      kind: 'APPROVAL',
      decision: response.decision,
      comment: response.comment,
      who: response.who,
    });
  } else {
    const question = typeof suspended.args.question === 'string' ? suspended.args.question : '';
    const options = Array.isArray(suspended.args.options) ? suspended.args.options.map(String) : null;
    observation = answer(state, { question, options }, response.answer);
    session.emit({
      type: 'run.resumed',
      nodeId: node.nodeId,
      kind: 'FOLLOW_UP',
      answer: response.answer,
      who: response.who,
    });
  }
  session.doc.loop.suspended = null;
  session.doc.loop.resolved = { call: suspended, observation: observation.toJSON() };
}
