import type { RunOutputs } from '../flow/typed-outputs.js';
import type { RunHead, RunRecord, RunStatus, Usage } from '../store/store.js';
import type { PendingItem } from '../trace/events.js';

/**
 * The run summary (docs/api.md), printed by `--json` and answered by the HTTP API. `outputs` holds the
 * values as written (a number stays a number, an object an object); `O` is their type, inferred from a
 * code flow's zod output schemas (src/flow/typed-outputs.ts).
 */
export interface RunSummary<O = RunOutputs> {
  runId: string;
  status: RunStatus;
  suspension?: { kind: 'APPROVAL' | 'FOLLOW_UP'; pending: PendingItem };
  outputs: O;
  /**
   * The run's answer to the person: for a completed run, the finish summary or text answer
   * (`answer: text`) of its last node; null while the run is not completed or when that node gave none.
   */
  reply: string | null;
  reason?: string;
  failedNode?: string;
  message?: string;
  usage: Usage;
  flowId: string;
  parentRunId?: string;
  /** For a forked run: the run and the event it continues from (docs/evals.md, "Fork"). */
  forkedFrom?: { runId: string; seq: number };
  /** The thread the run belongs to (docs/threads.md), when it is in one. */
  threadId?: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The summary of a stored run. A listing passes only the run's head (no state document, only its
 * `reply` and thread id), so its summaries carry no `forkedFrom`; the run's own summary (status, API
 * `GET /v1/runs/{id}`) does.
 */
export function summarize(record: RunHead | RunRecord): RunSummary {
  const summary: RunSummary = {
    runId: record.runId,
    status: record.status,
    outputs: record.outputs,
    reply:
      record.status === 'completed'
        ? (('state' in record ? record.state.reply : record.reply) ?? null)
        : null,
    usage: record.usage,
    flowId: record.flowId,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
  if (record.status === 'suspended' && record.suspension) {
    summary.suspension = record.suspension;
  }
  if (record.reason !== null) summary.reason = record.reason;
  if (record.failedNode !== null) summary.failedNode = record.failedNode;
  if (record.message !== null) summary.message = record.message;
  if (record.parentRunId !== null) summary.parentRunId = record.parentRunId;
  const forked = 'state' in record ? record.state.forkedFrom : undefined;
  if (forked) summary.forkedFrom = { runId: forked.runId, seq: forked.seq };
  const threadId = 'state' in record ? record.state.thread?.id : record.threadId;
  if (threadId) summary.threadId = threadId;
  return summary;
}
