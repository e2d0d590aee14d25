import type { NewRunMessage, PendingLimit, RunMessage } from '../records/run-message.js';
import { runNotFound } from './checks.js';
import type { AddRunMessageResult, RunStatus } from './store.js';

/**
 * What the stores share about steering messages (docs/approvals.md, "Steering"): which runs take one,
 * why a refused one was refused, and the table the memory store keeps.
 */

/** The statuses of a run that may still take a message: it has not ended. */
export const OPEN_STATUSES: readonly RunStatus[] = ['running', 'suspended'];

/**
 * Why a message matched no row of its conditional insert, read after it: the run is unknown (throws
 * StoreError `RUN_NOT_FOUND`), has ended, or else enough messages wait.
 */
export function refusal(runId: string, status: string | undefined): AddRunMessageResult {
  if (status === undefined) throw runNotFound(runId);
  return { refused: OPEN_STATUSES.includes(status as RunStatus) ? 'PENDING_LIMIT' : 'RUN_ENDED' };
}

/** A `run_messages` row of the SQL stores (schema 2; `seq` a bigint a PostgreSQL driver may hand back as text). */
export interface RunMessageRow {
  run_id: string;
  seq: number | string;
  message_id: string;
  text: string;
  who: string | null;
  at: string;
}

/** The message of a `run_messages` row. */
export function runMessageFromRow(row: RunMessageRow): RunMessage {
  return {
    runId: row.run_id,
    seq: Number(row.seq),
    messageId: row.message_id,
    text: row.text,
    who: row.who,
    at: row.at,
  };
}

/** The messages of a MemoryStore, per run in seq order; values handed out are copies. */
export class MemoryRunMessages {
  readonly #byRun = new Map<string, RunMessage[]>();

  /** `status` is the run's, or undefined when there is no such run. */
  add(message: NewRunMessage, limit: PendingLimit, status: RunStatus | undefined): AddRunMessageResult {
    const kept = this.#byRun.get(message.runId) ?? [];
    const pending = kept.filter((m) => m.seq > limit.afterSeq).length;
    if (status === undefined || !OPEN_STATUSES.includes(status) || pending >= limit.maxPending)
      return refusal(message.runId, status);
    const added: RunMessage = { ...message, seq: (kept.at(-1)?.seq ?? 0) + 1 };
    this.#byRun.set(message.runId, [...kept, added]);
    return { added: { ...added } };
  }

  list(runId: string, afterSeq: number): RunMessage[] {
    return (this.#byRun.get(runId) ?? []).filter((m) => m.seq > afterSeq).map((m) => ({ ...m }));
  }
}
