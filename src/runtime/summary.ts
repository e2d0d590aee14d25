import type { RunRecord, RunStatus, Usage } from '../store/store.js';
import type { PendingItem } from '../trace/events.js';

/** The run summary (docs/api.md), printed by `--json` and answered by the HTTP API. */
export interface RunSummary {
  runId: string;
  status: RunStatus;
  suspension?: { kind: 'APPROVAL' | 'FOLLOW_UP'; pending: PendingItem };
  outputs: Record<string, Record<string, unknown>>;
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
  /** The thread the run belongs to (docs/threads.md), when it is in one. */
  threadId?: string;
  createdAt: string;
  updatedAt: string;
}

/** The summary of a stored run. */
export function summarize(record: RunRecord): RunSummary {
  const summary: RunSummary = {
    runId: record.runId,
    status: record.status,
    outputs: record.outputs,
    reply: record.status === 'completed' ? (record.state.reply ?? null) : null,
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
  if (record.state.thread) summary.threadId = record.state.thread.id;
  return summary;
}
