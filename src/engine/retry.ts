import type { Flow } from '../domain/flow.js';
import { newNodeState } from '../records/run-state.js';
import { retryNotice } from '../loop/conversation.js';
import { newLoopState } from '../records/loop-state.js';
import type { ModelSpec } from '../model/resolve.js';
import type { RunRecord } from '../store/store.js';
import { runConflict } from '../domain/run-error.js';
import type { RunSummary } from '../records/summary.js';
import type { RunEngine } from './engine.js';
import type { RunSession } from './session.js';
import { flowRefOf } from './toolbox.js';
import { isParallelFlow } from '../graph/parallel.js';

/** How a retry is asked for (the facade's RespondOptions). */
export interface RetryOptions {
  who?: string | null;
  model?: ModelSpec;
  onAccepted?: (summary: RunSummary) => void;
}

/**
 * Takes a `failed` run up again in its failed node and continues it like a response does (driven
 * here, or handed to the queue). RunError RUN_CONFLICT, nothing changed, when the run has not failed (or
 * failed outside a node), or another request or process is continuing it.
 */
export function retryRun(engine: RunEngine, runId: string, options: RetryOptions): Promise<RunSummary> {
  return engine.exclusive(runId, async () => {
    const before = await engine.require(runId);
    checkRetryable(before);
    const model = engine.models.forRun(before, options.model); // a bad model fails before anything changes
    const record = await engine.acquire(runId);
    if (!record || record.status !== 'failed') {
      if (record) await engine.release(record);
      throw runConflict(runId, `run ${runId} is being continued by another process`);
    }
    const ref = flowRefOf(record);
    const session = await engine.openSession(reopenFailedNode(record), 'retry');
    const named = typeof options.model === 'string' ? options.model : undefined;
    applyRetry(session, ref.flow, options.who ?? null, named);
    return engine.proceed(session, ref, model, { commit: true, onAccepted: options.onAccepted });
  });
}

/**
 * The failure reasons `retry` takes up, and how: for MODEL_FAILED and TOOLS_UNAVAILABLE (an outage, a
 * key fixed since) the same round is asked again; for the others the node's round and stall counts
 * start afresh and the model is told why the node is retried. A failure outside a node (EDGE_ERROR) or
 * of another kind cannot be retried.
 */
export const RETRYABLE_REASONS: Readonly<Record<string, 'same-round' | 'fresh-counts'>> = Object.freeze({
  MODEL_FAILED: 'same-round',
  TOOLS_UNAVAILABLE: 'same-round',
  TOOLS_UNAUTHORIZED: 'same-round',
  NO_PROGRESS: 'fresh-counts',
  ROUND_LIMIT: 'fresh-counts',
  FAILED_BY_MODEL: 'fresh-counts',
  // A code node runs its function again; the calls it made before return their recorded results.
  CODE_NODE_ERROR: 'same-round',
  CODE_NODE_UNAVAILABLE: 'same-round',
});

/**
 * Throws RunError RUN_CONFLICT (nothing changed) unless the run is a top-level run that failed in a node for
 * a reason `retry` takes up.
 */
export function checkRetryable(record: RunRecord): void {
  if (record.status !== 'failed') {
    throw runConflict(
      record.runId,
      `run ${record.runId} is ${record.status}; only a failed run can be retried`,
    );
  }
  if (record.parentRunId !== null) {
    // The parent's delegate call has already taken the child's failure as its observation.
    throw runConflict(
      record.runId,
      `run ${record.runId} is a delegated child run of ${record.parentRunId}; retry the parent run instead`,
    );
  }
  if (isParallelFlow(record.flow)) {
    // Its branches' states are not taken up yet: a retry would continue one node and drop the others.
    throw runConflict(
      record.runId,
      `run ${record.runId} runs a flow with parallel branches or a map, which retry does not take up yet: start a new run`,
    );
  }
  const reason = record.reason ?? '';
  if (!Object.hasOwn(RETRYABLE_REASONS, reason) || record.failedNode === null) {
    throw runConflict(
      record.runId,
      `run ${record.runId} failed with ${reason || 'no reason'}, which retry does not take up (it retries ${Object.keys(RETRYABLE_REASONS).join(', ')})`,
    );
  }
}

/**
 * Points a failed run's state at its failed node before its session is opened, so that the node run's
 * conversation is loaded (runs that failed before failed runs kept their node have `nodeId: null`).
 */
export function reopenFailedNode(record: RunRecord): RunRecord {
  const doc = record.state;
  if (doc.nodeId !== null || record.failedNode === null) return record;
  return { ...record, state: { ...doc, nodeId: record.failedNode, node: null, loop: newLoopState() } };
}

/**
 * Prepares a failed run to continue in its failed node (the caller holds its lease and checked it with
 * `checkRetryable`): the node's state, evidence, approvals, outputs and conversation stay; for
 * MODEL_FAILED the round that got no answer is asked again (its number is reused), otherwise rounds and
 * stalls start from zero and a user message tells the model that the node is retried and why it
 * failed. Traces `run.retried` and stages the run as `running` again (no reason, node or message).
 */
export function applyRetry(
  session: RunSession,
  flow: Flow,
  who: string | null,
  model: string | undefined,
): void {
  const record = session.current;
  const nodeId = record.failedNode ?? '';
  const reason = record.reason ?? '';
  const message = record.message ?? '';
  const doc = session.doc;
  doc.nodeId = nodeId;
  doc.node ??= newNodeState(nodeId);
  doc.loop = newLoopState();
  if (RETRYABLE_REASONS[reason] === 'same-round') {
    if (reason === 'MODEL_FAILED' && doc.node.rounds > 0) doc.node.rounds -= 1;
  } else {
    doc.node.rounds = 0;
    doc.node.stalls = 0;
    session.addMessage({ role: 'user', content: retryNotice(flow.locale, reason, message) });
  }
  session.emit({ type: 'run.retried', nodeId, reason, message, who });
  session.update({
    status: 'running',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    ...(model !== undefined ? { model } : {}),
  });
}
