import type { EvidenceRecord } from '../../records/run-state.js';
import {
  checkBatch,
  checkEvents,
  checkNewRun,
  duplicateRun,
  patches,
  runNotFound,
  storeClosed,
} from '../checks.js';
import {
  StoreError,
  type Commit,
  type NewRun,
  type RunFilter,
  type RunHead,
  type RunRecord,
  type Store,
  type StoredEvent,
  type StoredMessage,
  type ThreadFilter,
  type ThreadRecord,
  type AddRunMessageResult,
  type NewRunMessage,
  type PendingLimit,
  type RunMessage,
} from '../store.js';
import type { Queryable } from './queryable.js';
import {
  Params,
  RUN_SELECT,
  RUN_SELECT_MUTABLE,
  eventRows,
  evidenceRows,
  insertBatch,
  messageRows,
  newRunValues,
  patchAssignments,
  runFromPgRow,
  type AppendRows,
  type PgRunRow,
} from './rows.js';
import {
  DefinitionCache,
  abandonedSql,
  leaseSql,
  listConditions,
  listLimit,
  refusedCommit,
  whereSql,
  type Definition,
} from '../shared.js';
import { headFromRow, headsSql, type HeadRow } from '../heads.js';
import { PgThreads } from './threads.js';
import { PgRunMessages } from './run-messages.js';
import { PgOutbox } from './outbox.js';
import { DEFAULT_PG_SCHEMA, pgMigrate, pgSchemaVersion, quoteSchema } from './schema.js';

/** Options of `PostgresStore.open`. */
export interface PostgresStoreOptions {
  /** Where statements go: a Queryable over a `pg` Pool or PGlite (see `createPostgresStore`). */
  db: Queryable;
  /** The schema (namespace) of the tables; created and migrated on open. Default `agent_runtime`. */
  schema?: string;
  /** The clock for `createdAt` / `updatedAt` (injected for deterministic tests). */
  now?: () => Date;
  /** Whether `close()` also closes `db`. Default true. */
  ownsDb?: boolean;
}

const UNIQUE_VIOLATION = '23505';

/**
 * The Store for several processes and machines sharing one PostgreSQL (docs/durability.md; docs/scale-out.md). A commit is
 * one statement, hence one transaction: the compare-and-set `UPDATE … WHERE version = $n` of the run
 * row, with the appended rows inserted only if it matched — one round trip whose cost does not grow
 * with the run's history. Concurrent commits on one run serialise on its row lock; the loser sees
 * the new version and gets StoreError VERSION_CONFLICT. `acquireLease` is one conditional UPDATE. Opening
 * migrates the schema (`schema_migrations`) and refuses one written by a newer version.
 */
export class PostgresStore implements Store {
  readonly schema: string;
  readonly #s: string;
  #db: Queryable | null;
  readonly #now: () => Date;
  readonly #ownsDb: boolean;
  readonly #fixed = new DefinitionCache();
  readonly #threads: PgThreads;
  readonly #messages: PgRunMessages;
  readonly outbox: PgOutbox;

  private constructor(options: PostgresStoreOptions) {
    this.schema = options.schema ?? DEFAULT_PG_SCHEMA;
    this.#s = quoteSchema(this.schema);
    this.#db = options.db;
    this.#now = options.now ?? (() => new Date());
    this.#ownsDb = options.ownsDb ?? true;
    this.outbox = new PgOutbox(() => this.#open(), this.#s);
    this.#threads = new PgThreads(
      () => this.#open(),
      this.#s,
      () => this.#now(),
    );
    this.#messages = new PgRunMessages(() => this.#open(), this.#s);
  }

  appendThreadRun(
    tenant: string | null,
    threadId: string,
    runId: string,
    after: string | null,
  ): Promise<ThreadRecord | null> {
    return this.#threads.append(tenant, threadId, runId, after);
  }

  getThread(tenant: string | null, threadId: string): Promise<ThreadRecord | null> {
    return this.#threads.get(tenant, threadId);
  }

  listThreads(filter: ThreadFilter): Promise<ThreadRecord[]> {
    return this.#threads.list(filter);
  }

  addRunMessage(message: NewRunMessage, limit: PendingLimit): Promise<AddRunMessageResult> {
    return this.#messages.add(message, limit);
  }

  runMessages(runId: string, afterSeq = 0): Promise<RunMessage[]> {
    return this.#messages.list(runId, afterSeq);
  }

  /** Opens the store: creates or migrates its schema, then answers. Closes `db` if that fails (when owned). */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const store = new PostgresStore(options);
    try {
      await pgMigrate(options.db, store.schema);
    } catch (error) {
      if (store.#ownsDb) await options.db.close();
      throw error;
    }
    return store;
  }

  /** The schema version stored in the database. */
  schemaVersion(): Promise<number> {
    return pgSchemaVersion(this.#open(), this.schema);
  }

  async createRun(run: NewRun, events: StoredEvent[]): Promise<RunRecord> {
    const db = this.#open();
    const lastSeq = checkNewRun(run, events);
    const params = new Params();
    const values = newRunValues(run, lastSeq, this.#now().toISOString());
    const columns = values.map(([c]) => c.column).join(', ');
    const placeholders = values.map(([c, v]) => params.add(v, c.cast)).join(', ');
    const insertRun = `INSERT INTO ${this.#s}.runs (${columns}) VALUES (${placeholders}) RETURNING ${RUN_SELECT}`;
    const sql = events.length === 0 ? insertRun : this.#withAppends(insertRun, [eventRows(events)], params);
    try {
      const row = (await db.query<PgRunRow>(sql, params.values)).rows[0] ?? unreachable(run.runId);
      return runFromPgRow(row, this.#fixed.remember(run.runId, row));
    } catch (error) {
      if (constraintOf(error) === 'runs_pkey') throw duplicateRun(run.runId);
      throw this.#duplicate(error, run.runId);
    }
  }

  async getRun(runId: string): Promise<RunRecord | null> {
    const result = await this.#open().query<PgRunRow>(
      `SELECT ${RUN_SELECT} FROM ${this.#s}.runs WHERE run_id = $1`,
      [runId],
    );
    const row = result.rows[0];
    return row ? runFromPgRow(row, this.#fromRow(row)) : null;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    const db = this.#open();
    const params = new Params();
    const where = listConditions(filter, (value) => params.add(value));
    const max = listLimit(filter);
    const limit = max === null ? '' : ` LIMIT ${params.add(max, 'bigint')}`;
    const sql = `SELECT ${RUN_SELECT} FROM ${this.#s}.runs ${whereSql(where)} ORDER BY created_at DESC, pos DESC${limit}`;
    const rows = (await db.query<PgRunRow>(sql, params.values)).rows;
    return rows.map((row) => runFromPgRow(row, this.#fromRow(row)));
  }

  async listRunHeads(filter: RunFilter = {}): Promise<RunHead[]> {
    const params = new Params();
    const sql = headsSql(
      `${this.#s}.runs`,
      filter,
      (v) => params.add(v, typeof v === 'number' ? 'bigint' : undefined),
      'pos',
    );
    const rows = (await this.#open().query<HeadRow>(sql, params.values)).rows;
    return rows.map((row) => headFromRow(row, (value) => value));
  }

  async commit(commit: Commit): Promise<RunRecord> {
    const db = this.#open();
    const events = commit.events ?? [];
    checkEvents(commit.runId, 0, events);
    checkBatch(commit);
    const params = new Params();
    const runId = params.add(commit.runId);
    const sets = patchAssignments(commit.patch, params);
    sets.push(
      'version = version + 1',
      `updated_at = ${params.add(this.#now().toISOString(), 'timestamptz')}`,
    );
    const conditions = [`run_id = ${runId}`, `version = ${params.add(commit.expectedVersion, 'integer')}`];
    const first = events[0];
    const last = events.at(-1);
    if (first && last) {
      sets.push(`last_seq = ${params.add(last.seq, 'bigint')}`);
      conditions.push(`${params.add(first.seq, 'bigint')} > last_seq`);
    }
    const returning = this.#fixed.get(commit.runId) ? RUN_SELECT_MUTABLE : RUN_SELECT;
    const update = `UPDATE ${this.#s}.runs SET ${sets.join(', ')} WHERE ${conditions.join(' AND ')} RETURNING ${returning}`;
    const batches = [
      eventRows(events),
      messageRows(commit.messages ?? []),
      evidenceRows(commit.evidence ?? []),
    ];
    let row: PgRunRow | undefined;
    try {
      row = (await db.query<PgRunRow>(this.#withAppends(update, batches, params), params.values)).rows[0];
    } catch (error) {
      throw this.#duplicate(error, commit.runId);
    }
    if (!row) return this.#explainRefusedCommit(commit);
    const own = patches(commit.patch, 'state') ? commit.patch.state : undefined;
    return runFromPgRow(row, await this.#fixedFrom(commit.runId, row), own);
  }

  async events(runId: string, afterSeq = 0): Promise<StoredEvent[]> {
    return this.#bodies<StoredEvent>(
      `SELECT body FROM ${this.#s}.events WHERE run_id = $1 AND seq > $2::bigint ORDER BY seq`,
      [runId, afterSeq],
    );
  }

  async messages(runId: string, nodeRun: string): Promise<StoredMessage[]> {
    return this.#bodies<StoredMessage>(
      `SELECT body FROM ${this.#s}.messages WHERE run_id = $1 AND node_run = $2 ORDER BY idx`,
      [runId, nodeRun],
    );
  }

  async evidence(runId: string): Promise<EvidenceRecord[]> {
    return this.#bodies<EvidenceRecord>(
      `SELECT body FROM ${this.#s}.evidence WHERE run_id = $1 ORDER BY pos`,
      [runId],
    );
  }

  async workingSet(
    runId: string,
    nodeRun: string | null,
  ): Promise<{ evidence: EvidenceRecord[]; messages: StoredMessage[] }> {
    const result = await this.#open().query<{ k: number; body: unknown }>(
      `(SELECT 0 AS k, pos AS o, body FROM ${this.#s}.evidence WHERE run_id = $1)
       UNION ALL (SELECT 1, idx, body FROM ${this.#s}.messages WHERE run_id = $1 AND node_run = $2)
       ORDER BY k, o`,
      [runId, nodeRun],
    );
    const evidence: EvidenceRecord[] = [];
    const messages: StoredMessage[] = [];
    for (const row of result.rows) {
      if (Number(row.k) === 0) evidence.push(row.body as EvidenceRecord);
      else messages.push(row.body as StoredMessage);
    }
    return { evidence, messages };
  }

  async acquireLease(
    runId: string,
    owner: string,
    expiresAt: number,
    now: number,
  ): Promise<RunRecord | null> {
    const db = this.#open();
    const update = leaseSql(`${this.#s}.runs`, {
      runId: '$1',
      owner: '$2',
      expires: '$3::bigint',
      now: '$4::bigint',
      updatedAt: '$5::timestamptz',
    });
    const returning = this.#fixed.get(runId) ? RUN_SELECT_MUTABLE : RUN_SELECT;
    const result = await db.query<PgRunRow>(`${update} RETURNING ${returning}`, [
      runId,
      owner,
      expiresAt,
      now,
      this.#now().toISOString(),
    ]);
    const row = result.rows[0];
    if (row) return runFromPgRow(row, await this.#fixedFrom(runId, row));
    const exists = await db.query(`SELECT 1 FROM ${this.#s}.runs WHERE run_id = $1`, [runId]);
    if (exists.rows.length === 0) throw runNotFound(runId);
    return null;
  }

  /**
   * Top-level runs that are `running` while no live lease holds them at `now` (epoch ms): handed to a
   * queue (lease released) or left by a dead driver (lease expired). Least recently updated first.
   * Child runs are left out: their parent's driver drives them.
   */
  async unleasedRuns(now: number, limit = 100): Promise<string[]> {
    const result = await this.#open().query<{ run_id: string }>(
      abandonedSql(`${this.#s}.runs`, '$1::bigint', '$2::bigint'),
      [now, limit],
    );
    return result.rows.map((r) => r.run_id);
  }

  async close(): Promise<void> {
    const db = this.#db;
    this.#db = null;
    if (db && this.#ownsDb) await db.close();
  }

  /** A run's decoded definition after a statement that returned its row with `flow` and `input`. */
  #fromRow(row: PgRunRow): Definition {
    return this.#fixed.get(row.run_id) ?? this.#fixed.remember(row.run_id, row);
  }

  /**
   * A run's decoded definition after a statement that returned its row: from the cache, else from the
   * row (statements select them only when the cache lacks them), else read (evicted meanwhile).
   */
  async #fixedFrom(runId: string, row: Partial<PgRunRow>): Promise<Definition> {
    const known = this.#fixed.get(runId);
    if (known) return known;
    if ('flow' in row) return this.#fixed.remember(runId, { flow: row.flow, input: row.input });
    const result = await this.#open().query<{ flow: unknown; input: unknown }>(
      `SELECT flow, input FROM ${this.#s}.runs WHERE run_id = $1`,
      [runId],
    );
    return this.#fixed.remember(runId, result.rows[0] ?? unreachable(runId));
  }

  #open(): Queryable {
    if (!this.#db) throw storeClosed();
    return this.#db;
  }

  /**
   * Wraps a statement returning one run row so that the appended batches are inserted in the same
   * statement, only when it returned its row: `WITH r AS (…), a1 AS (INSERT … WHERE EXISTS r) SELECT * FROM r`.
   */
  #withAppends(statement: string, batches: AppendRows[], params: Params): string {
    const parts = [`r AS (${statement})`];
    for (const batch of batches) {
      if (batch.rows.length === 0) continue;
      const insert = insertBatch(this.#s, batch, '$1', params, 'EXISTS (SELECT 1 FROM r)');
      parts.push(`${batch.table} AS (${insert})`);
    }
    return `WITH ${parts.join(', ')} SELECT * FROM r`;
  }

  async #bodies<T>(sql: string, params: unknown[]): Promise<T[]> {
    const result = await this.#open().query<{ body: T }>(sql, params);
    return result.rows.map((r) => r.body);
  }

  /** Called when the compare-and-set matched no row: throws why (conflict, unknown run, or bad seq). */
  async #explainRefusedCommit(commit: Commit): Promise<never> {
    const result = await this.#open().query<{ version: number; last_seq: string | number }>(
      `SELECT version, last_seq FROM ${this.#s}.runs WHERE run_id = $1`,
      [commit.runId],
    );
    const row = result.rows[0];
    return refusedCommit(commit, row && { version: Number(row.version), lastSeq: Number(row.last_seq) });
  }

  /** A unique violation on an appended row becomes StoreError `DUPLICATE`; anything else is rethrown. */
  #duplicate(error: unknown, runId: string): unknown {
    if ((error as { code?: unknown } | null)?.code !== UNIQUE_VIOLATION) return error;
    const detail = (error as { detail?: string }).detail ?? (error as Error).message;
    return new StoreError(
      'DUPLICATE',
      `run ${runId}: ${constraintOf(error) ?? 'a row'} already holds ${detail}`,
      {
        cause: error,
      },
    );
  }
}

function constraintOf(error: unknown): string | undefined {
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

function unreachable(runId: string): never {
  throw new Error(`run ${runId} was inserted but not returned`);
}
