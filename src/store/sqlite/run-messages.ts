import type { StatementSync } from 'node:sqlite';
import type { NewRunMessage, PendingLimit, RunMessage } from '../../records/run-message.js';
import { refusal, runMessageFromRow, type RunMessageRow } from '../run-messages.js';
import type { AddRunMessageResult } from '../store.js';

const SQL = {
  // One statement, so atomic: the run's status, the pending count and the next seq are read where it writes.
  add:
    'INSERT INTO run_messages (run_id, seq, message_id, text, who, at) ' +
    'SELECT ?1, coalesce((SELECT max(seq) FROM run_messages WHERE run_id = ?1), 0) + 1, ?2, ?3, ?4, ?5 ' +
    "FROM runs WHERE run_id = ?1 AND status IN ('running', 'suspended') " +
    'AND (SELECT count(*) FROM run_messages WHERE run_id = ?1 AND seq > ?6) < ?7 RETURNING *',
  status: 'SELECT status FROM runs WHERE run_id = ?1',
  list: 'SELECT * FROM run_messages WHERE run_id = ?1 AND seq > ?2 ORDER BY seq',
} as const;

/** The steering messages of SqliteStore over its prepared statements. */
export class SqliteRunMessages {
  constructor(private readonly stmt: (sql: string) => StatementSync) {}

  add(m: NewRunMessage, limit: PendingLimit): AddRunMessageResult {
    const row = this.stmt(SQL.add).get(
      m.runId,
      m.messageId,
      m.text,
      m.who,
      m.at,
      limit.afterSeq,
      limit.maxPending,
    );
    if (row) return { added: runMessageFromRow(row as unknown as RunMessageRow) };
    const run = this.stmt(SQL.status).get(m.runId) as { status: string } | undefined;
    return refusal(m.runId, run?.status);
  }

  list(runId: string, afterSeq: number): RunMessage[] {
    return (this.stmt(SQL.list).all(runId, afterSeq) as unknown as RunMessageRow[]).map(runMessageFromRow);
  }
}
