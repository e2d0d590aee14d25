import type { NewRunMessage, PendingLimit, RunMessage } from '../../records/run-message.js';
import { refusal, runMessageFromRow, type RunMessageRow } from '../run-messages.js';
import type { AddRunMessageResult } from '../store.js';
import type { QueryRunner } from './queryable.js';

const UNIQUE_VIOLATION = '23505';
/** Concurrent messages to one run take the same next seq: the loser of the key tries again. */
const ATTEMPTS = 8;

/** The steering messages of PostgresStore. `s` is the quoted schema. */
export class PgRunMessages {
  constructor(
    private readonly db: () => QueryRunner,
    private readonly s: string,
  ) {}

  async add(m: NewRunMessage, limit: PendingLimit): Promise<AddRunMessageResult> {
    const s = this.s;
    // One statement: the run's status, the pending count and the next seq are read where it writes;
    // two at once compete for the primary key (run_id, seq), and the one that lost reads again.
    const sql =
      `INSERT INTO ${s}.run_messages (run_id, seq, message_id, text, who, at) ` +
      `SELECT $1, coalesce((SELECT max(seq) FROM ${s}.run_messages WHERE run_id = $1), 0) + 1, $2, $3, $4, $5 ` +
      `FROM ${s}.runs WHERE run_id = $1 AND status IN ('running', 'suspended') ` +
      `AND (SELECT count(*) FROM ${s}.run_messages WHERE run_id = $1 AND seq > $6) < $7 RETURNING *`;
    const params = [m.runId, m.messageId, m.text, m.who, m.at, limit.afterSeq, limit.maxPending];
    for (let attempt = 1; ; attempt += 1) {
      try {
        const row = (await this.db().query<RunMessageRow>(sql, params)).rows[0];
        if (row) return { added: runMessageFromRow(row) };
        break;
      } catch (error) {
        const code = (error as { code?: unknown } | null)?.code;
        if (code !== UNIQUE_VIOLATION || attempt >= ATTEMPTS) throw error;
      }
    }
    const run = await this.db().query<{ status: string }>(`SELECT status FROM ${s}.runs WHERE run_id = $1`, [
      m.runId,
    ]);
    return refusal(m.runId, run.rows[0]?.status);
  }

  async list(runId: string, afterSeq: number): Promise<RunMessage[]> {
    const sql = `SELECT * FROM ${this.s}.run_messages WHERE run_id = $1 AND seq > $2 ORDER BY seq`;
    return (await this.db().query<RunMessageRow>(sql, [runId, afterSeq])).rows.map(runMessageFromRow);
  }
}
