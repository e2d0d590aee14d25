import type { Flow } from '../domain/flow.js';
import type { Logger } from '../log/logger.js';
import type { ModelSpec } from '../model/resolve.js';
import { runConflict } from '../domain/run-error.js';
import { summarize, type RunSummary } from '../records/summary.js';
import type { RunRecord } from '../store/store.js';
import { delegateObservation } from '../tools/builtin/delegate.js';
import { answer, type Resolution, type ResolutionState } from '../tools/builtin/resolution.js';
import { applyChanges } from '../records/changes.js';
import { approve, reject } from '../tools/approval/index.js';
import { delegateResult } from './delegation.js';
import type { RunEngine } from './engine.js';
import { checkExpected, respondedItem, waitingFor } from './pending-id.js';
import type { PendingItem } from '../records/pending.js';
import type { RunSession } from './session.js';
import { flowRefOf, type FlowRef } from './toolbox.js';
import { answerServer, elicitationAnswer, type ElicitationAction } from './elicit-answer.js';
import { answerIfHeld, heldHost } from './held-question.js';
import type { ElicitationAnswer } from '../records/run-state.js';
import type { FollowUpPending } from '../tools/call.js';
import { RunError } from '../domain/run-error.js';
import { applyAuthorization, authorizationOf } from './authorization.js';
import { checkDecision, recordVote, type ApprovalDecision, type DecisionStep } from './approval-step.js';
import { checkEdit } from './approval-edit.js';
import type { GatedCall } from '../records/run-state.js';

/** A person's response to a suspended run. */
export type PersonResponse =
  | ({ kind: 'APPROVAL' } & ApprovalDecision)
  | {
      kind: 'FOLLOW_UP';
      answer: string;
      who: string | null;
      /** An MCP server's question (docs/mcp.md, "Elicitation"): accept (default), decline or cancel. */
      action?: ElicitationAction;
    };

/** How a response is given (the facade's RespondOptions). */
export interface ResponseOptions {
  comment?: string | null;
  who?: string | null;
  model?: ModelSpec;
  /** The id of the pending item the response is for; refused when the run waits for another. */
  expect?: string;
  onAccepted?: (summary: RunSummary) => void;
}

/**
 * Records a person's response to a suspended run and continues it (driven here, or handed to the
 * queue); an answer to a question a driver holds open goes through the store (held-question.ts).
 * RunError RUN_CONFLICT, nothing changed, when the run does not wait for this kind of response (or
 * for the item `expect` names), or another request or process is continuing it.
 */
export function respondToRun(
  engine: RunEngine,
  runId: string,
  response: PersonResponse,
  options: ResponseOptions,
): Promise<RunSummary> {
  const respond = () => engine.exclusive(runId, () => respondOnce(engine, runId, response, options));
  if (response.kind !== 'FOLLOW_UP') return respond();
  // Not exclusive: a held question's run goes on in its driver (maybe a continuation in this process).
  return answerIfHeld(heldHost(engine), runId, response, options).then((held) => held ?? respond());
}

async function respondOnce(
  engine: RunEngine,
  runId: string,
  response: PersonResponse,
  options: ResponseOptions,
): Promise<RunSummary> {
  const before = await engine.require(runId);
  // Parallel branches may wait for items of both kinds: the response is for the one `expect` names.
  const item = respondedItem(before, options.expect);
  if (before.status !== 'suspended' || item?.kind !== response.kind) {
    throw runConflict(runId, conflictMessage(runId, before.status, item?.kind, response.kind));
  }
  checkExpected(before, options.expect);
  const elicited =
    response.kind === 'FOLLOW_UP' ? serverQuestion(before.runId, item.pending, response) : undefined;
  const authorization = authorizationOf(item.pending);
  const model = engine.models.forRun(before, options.model); // a bad model fails before anything changes
  const record = await takeSuspended(engine, before, response.kind, options.expect);
  const step = await decisionStep(engine, record, response, options.expect);
  const ref = flowRefOf(record);
  const session = await engine.openSession(record, response.kind === 'APPROVAL' ? 'approval' : 'answer');
  if (!step.final) {
    // More approvals are needed: this one is recorded and the run keeps waiting.
    const waiting = await recordVote(session, item.pending, step.votes, new Date(engine.clock()));
    engine.end(session);
    options.onAccepted?.(waiting);
    return waiting;
  }
  if (typeof options.model === 'string') session.update({ model: options.model });
  // In a flow with parallel branches, the response goes to the branch that waits for this item.
  const settled = await session.inSuspendedBranch(async () => {
    const childRunId = session.doc.loop.suspended?.childRunId;
    if (!childRunId) {
      if (response.kind === 'FOLLOW_UP' && authorization) {
        applyAuthorization(session, ref.flow, authorization, response);
      } else {
        const edited = await editedCall(engine, session, ref, response);
        const approval = { approvers: step.approvers, ...(edited ? { edited } : {}) };
        applyResponse(
          session,
          ref.flow,
          response,
          engine.logger,
          new Date(engine.clock()),
          elicited,
          approval,
        );
      }
      return null;
    }
    return respondThroughChild(engine, session, ref, childRunId, response, {
      comment: options.comment ?? null,
      who: options.who ?? null,
      ...(options.expect !== undefined ? { expect: options.expect } : {}),
    });
  }, options.expect);
  if (settled) {
    engine.end(session);
    options.onAccepted?.(settled);
    return settled;
  }
  session.update({ status: 'running', suspension: null });
  return engine.proceed(session, ref, model, { commit: true, onAccepted: options.onAccepted });
}

/**
 * A decision on an approval checked against the tool's approval policy under the run's lease (the
 * lease is released when it is refused). A run waiting on a delegated child leaves the checks to the
 * child's own response. Answers are always final.
 */
async function decisionStep(
  engine: RunEngine,
  record: RunRecord,
  response: PersonResponse,
  expect: string | undefined,
): Promise<DecisionStep> {
  const item = respondedItem(record, expect);
  if (response.kind !== 'APPROVAL' || !item || delegated(record, item.pending.id)) {
    return { final: true, approvers: [] };
  }
  try {
    return checkDecision(record, item.pending, response);
  } catch (error) {
    await engine.release(record);
    throw error;
  }
}

/** True when the item `id` is a delegated child's, which the child run decides. */
function delegated(record: RunRecord, id: string | undefined): boolean {
  const branch = record.state.branches?.find((b) => b.suspension?.pending.id === id);
  return (branch ? branch.loop : record.state.loop).suspended?.childRunId !== undefined;
}

/**
 * An approval with edited arguments: the edited call once the guards passed it (the write gate
 * recorded it as the gated call), with the call as the model made it; the lease is released and the
 * session ended when they refuse it (RunError ARGS_REFUSED).
 */
async function editedCall(
  engine: RunEngine,
  session: RunSession,
  ref: FlowRef,
  response: PersonResponse,
): Promise<{ from: GatedCall; to: GatedCall } | undefined> {
  if (response.kind !== 'APPROVAL' || response.decision !== 'approved' || !response.args) return undefined;
  const from = session.doc.node?.gatedCall;
  if (!from) return undefined;
  try {
    const to = await checkEdit(engine, session, ref, response.args);
    return to.fingerprint === from.fingerprint ? undefined : { from, to };
  } catch (error) {
    await engine.release(session.current);
    engine.end(session);
    throw error;
  }
}

/** The run's lease, taken for a response: RunError RUN_CONFLICT (lease released) when it moved on meanwhile. */
async function takeSuspended(
  engine: RunEngine,
  before: RunRecord,
  kind: string,
  expect: string | undefined,
): Promise<RunRecord> {
  const runId = before.runId;
  const record = await engine.acquire(runId);
  if (!record || record.status !== 'suspended' || respondedItem(record, expect)?.kind !== kind) {
    if (record) await engine.release(record);
    const what = kind === 'APPROVAL' ? 'an approval' : 'an answer';
    throw runConflict(runId, `run ${runId} is no longer waiting for ${what}`);
  }
  if (expect !== undefined) {
    // The item named is still among those waited for (another may have been answered meanwhile).
    try {
      checkExpected(record, expect);
    } catch (error) {
      await engine.release(record);
      throw error;
    }
  } else if (waitingFor(record) !== waitingFor(before)) {
    // It moved on to another item meanwhile (a racing response): this one was meant for the previous.
    await engine.release(record);
    throw runConflict(runId, `run ${runId} now waits for another item (${waitingFor(record) ?? 'none'})`);
  }
  return record;
}

/**
 * The answer to an MCP server's question the run waits for, checked before anything changes
 * (RunError REQUEST_INVALID); undefined when the run waits for a question of the model.
 */
function serverQuestion(
  runId: string,
  item: PendingItem,
  response: Extract<PersonResponse, { kind: 'FOLLOW_UP' }>,
): ElicitationAnswer | undefined {
  const pending = item as FollowUpPending;
  const action = response.action ?? 'accept';
  if (!pending.elicitation) {
    if (action === 'accept') return undefined;
    throw new RunError(
      'REQUEST_INVALID',
      `run ${runId} waits for an answer to the model's question; ${action} only answers an MCP server's question`,
      { runId },
    );
  }
  return elicitationAnswer(runId, pending.elicitation, action, response.answer);
}

/** Why a response of kind `wanted` does not fit the run as it stands. */
function conflictMessage(runId: string, status: string, waiting: string | undefined, wanted: string): string {
  const what = wanted === 'APPROVAL' ? 'an approval' : 'an answer';
  if (status !== 'suspended') return `run ${runId} is ${status}; it is not waiting for ${what}`;
  if (waiting === 'TASK') return `run ${runId} waits for an MCP task to end, not for ${what}`;
  return `run ${runId} waits for ${waiting === 'APPROVAL' ? 'an approval' : 'an answer'}, not for ${what}`;
}

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
  now: Date,
  elicited?: ElicitationAnswer,
  approval: { approvers?: string[]; edited?: { from: GatedCall; to: GatedCall } } = {},
): void {
  const suspended = session.doc.loop.suspended;
  const node = session.doc.node;
  if (!suspended || !node) throw new Error(`run ${session.runId} is suspended without a suspending call`);
  const state: ResolutionState = {
    run: session.run,
    node,
    nodeId: node.nodeId,
    locale: flow.locale,
    now,
    logger,
  };
  let resolution: Resolution;
  if (response.kind === 'APPROVAL') {
    const edited = approval.edited;
    const gated = edited ? edited.from : node.gatedCall;
    if (!gated || gated.fingerprint !== suspended.fingerprint) {
      throw new Error(`run ${session.runId}: the approval's gated call is missing from node ${node.nodeId}`);
    }
    const call = edited ? edited.to : gated;
    const target = { tool: call.tool, args: call.args, fingerprint: call.fingerprint };
    const approvers = approval.approvers ?? [];
    const decision = {
      who: response.who,
      comment: response.comment,
      ...(approvers.length > 1 ? { approvers } : {}),
      ...(edited ? { editedFrom: gated.args } : {}),
    };
    resolution =
      response.decision === 'approved' ? approve(state, target, decision) : reject(state, target, decision);
    session.emit({
      type: 'run.resumed',
      nodeId: node.nodeId,
      kind: 'APPROVAL',
      decision: response.decision,
      comment: response.comment,
      who: response.who,
      ...(approvers.length > 1 ? { approvers } : {}),
      ...(edited ? { args: call.args, editedFrom: gated.args } : {}),
    });
  } else if (elicited) {
    resolution = answerServer(state, session, elicited, response.who);
  } else {
    const question = typeof suspended.args.question === 'string' ? suspended.args.question : '';
    const options = Array.isArray(suspended.args.options) ? suspended.args.options.map(String) : null;
    resolution = answer(state, { question, options }, response.answer);
    session.emit({
      type: 'run.resumed',
      nodeId: node.nodeId,
      kind: 'FOLLOW_UP',
      answer: response.answer,
      who: response.who,
    });
  }
  applyChanges({ run: session.run, node }, resolution.changes);
  session.doc.loop.suspended = null;
  session.doc.loop.resolved = { call: suspended, observation: resolution.observation.toJSON() };
}

/**
 * A parent suspended by a delegated child: the person's response goes to the child (docs/observations.md).
 * When the child waits again, the parent keeps waiting with the child's new pending item (that
 * summary is returned); when the child ends, its result becomes the delegate call's observation
 * (left for the loop to count) and null is returned.
 */
async function respondThroughChild(
  engine: RunEngine,
  session: RunSession,
  ref: FlowRef,
  childRunId: string,
  response: PersonResponse,
  options: ResponseOptions,
): Promise<RunSummary | null> {
  let child: RunSummary;
  try {
    child = await respondToRun(engine, childRunId, response, options);
  } catch (error) {
    await engine.release(session.current);
    throw error;
  }
  const suspended = session.doc.loop.suspended;
  const nodeId = session.doc.nodeId;
  if (!suspended || !nodeId) throw new Error(`run ${session.runId} lost its suspended delegate call`);
  session.emit({
    type: 'run.resumed',
    nodeId,
    kind: response.kind,
    ...(response.kind === 'APPROVAL'
      ? { decision: response.decision, comment: response.comment, who: response.who }
      : { answer: response.answer, who: response.who }),
  });
  if (child.status === 'suspended' && child.suspension) {
    // The child waits again: so does the parent, with the child's new pending item.
    const { kind, pending } = child.suspension;
    session.emit({ type: 'node.suspended', nodeId, kind, pending });
    session.emit({ type: 'run.suspended', nodeId, kind, pending });
    session.update({ suspension: child.suspension, leaseOwner: null, leaseExpiresAt: null });
    await session.checkpoint();
    return summarize(session.current);
  }
  const result = delegateResult(child);
  if (result.status === 'suspended')
    throw new Error(`child run ${childRunId} is suspended without a pending item`);
  const flowId = typeof suspended.args.flow === 'string' ? suspended.args.flow : '';
  const observation = delegateObservation(result, flowId, ref.flow.locale);
  session.doc.loop.suspended = null;
  session.doc.loop.resolved = { call: suspended, observation: observation.toJSON() };
  return null;
}
