import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
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
import { sqliteHeads } from '../heads.js';
import { fromJson } from '../json.js';
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
import {
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
import {
  AppendedKeys,
  JOURNAL_SQL,
  eventsAfter,
  evidenceOf,
  appendsAny,
  journalRow,
  keysOf,
  messagesOf,
  type RunKeys,
} from './journal.js';
import {
  RUN_COLUMNS,
  commitUpdate,
  definitionParams,
  newRunParams,
  runFromRow,
  type RunRow,
} from './rows.js';
import { migrate } from './schema.js';
import { connectionInfo } from './info.js';
import { rollback } from './tx.js';
import { insertSql, isConstraint, unreachable } from './sql.js';
import { SqliteThreads } from './threads.js';
import { SqliteRunMessages } from './run-messages.js';
import { SqliteOutbox } from './outbox.js';
import type { SqliteStoreInfo, SqliteStoreOptions } from './options.js';
import { preparePrivateDbFile } from './private-file.js';
import { loadSqlite } from './load.js';

export type { Durability, SqliteStoreInfo, SqliteStoreOptions } from './options.js';

const LEASE_SQL = `${leaseSql('runs', {
  runId: ':run_id',
  owner: ':owner',
  expires: ':expires_at',
  now: ':now',
  updatedAt: ':updated_at',
})} RETURNING *`;

/** A run row with its definition. */
const SELECT_RUN =
  'SELECT runs.*, d.flow, d.input FROM runs JOIN run_definitions d ON d.run_id = runs.run_id';

const INSERT_SQL = {
  runs: insertSql('runs', RUN_COLUMNS),
  definitions: insertSql('run_definitions', ['run_id', 'flow', 'input']),
} as const;

/**
 * The default Store: one SQLite file (node:sqlite) in WAL mode, shared safely by several processes
 * (each write is a `BEGIN IMMEDIATE` transaction; others wait up to the busy timeout). A commit is one
 * transaction: a compare-and-set `UPDATE … WHERE version = ?` of the run row plus one journal row of
 * what it appends (journal.ts), so its cost does not grow with the run's history. Opening migrates the schema
 * (schema.ts) and refuses a database written by a newer version.
 */
export class SqliteStore implements Store {
  readonly path: string;
  #db: DatabaseSync | null;
  readonly #statements = new Map<string, StatementSync>();
  readonly #definitions = new DefinitionCache();
  readonly #keys = new AppendedKeys();
  readonly #now: () => Date;
  readonly outbox = new SqliteOutbox((sql) => this.#stmt(sql));
  readonly #threads = new SqliteThreads(
    (sql) => this.#stmt(sql),
    () => this.#now(),
  );
  readonly #messages = new SqliteRunMessages((sql) => this.#stmt(sql));

  constructor(options: SqliteStoreOptions) {
    this.path = options.path;
    this.#now = options.now ?? (() => new Date());
    if (options.path !== ':memory:') preparePrivateDbFile(options.path);
    const { DatabaseSync: Database } = loadSqlite();
    const db = new Database(options.path, { enableForeignKeyConstraints: true });
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
      db.exec('PRAGMA journal_mode = WAL');
      db.exec(`PRAGMA synchronous = ${options.durability === 'strict' ? 'FULL' : 'NORMAL'}`);
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
  }

  /** The settings the connection runs with, read back from SQLite. */
  info(): SqliteStoreInfo {
    return connectionInfo(this.path, this.#open(), (sql) => this.#stmt(sql));
  }

  createRun(run: NewRun, events: StoredEvent[]): Promise<RunRecord> {
    return this.#sync(() => {
      const lastSeq = checkNewRun(run, events);
      const ts = this.#now().toISOString();
      const created = this.#transaction(() => {
        const head = events.length > 0 ? this.#nextPos() : null;
        try {
          this.#stmt(INSERT_SQL.runs).run(newRunParams(run, lastSeq, ts, head));
          this.#stmt(INSERT_SQL.definitions).run(definitionParams(run));
        } catch (error) {
          throw isConstraint(error) ? duplicateRun(run.runId) : error;
        }
        if (head !== null)
          this.#stmt(JOURNAL_SQL.insert).run(
            ...journalRow({ pos: head, prev: null }, run.runId, events, [], []),
          );
        return this.#readRun(run.runId) ?? unreachable(run.runId);
      });
      this.#keys.created(run.runId, created.version);
      return created;
    });
  }

  getRun(runId: string): Promise<RunRecord | null> {
    return this.#sync(() => this.#readRun(runId));
  }

  listRuns(filter: RunFilter = {}): Promise<RunRecord[]> {
    return this.#sync(() => {
      const params: SQLInputValue[] = [];
      const where = listConditions(filter, (value) => `?${params.push(value)}`);
      params.push(listLimit(filter) ?? -1);
      const sql = `${SELECT_RUN} ${whereSql(where)} ORDER BY runs.created_at DESC, runs.rowid DESC LIMIT ?${params.length}`;
      return (this.#stmt(sql).all(...params) as unknown as RunRow[]).map((row) => this.#fromRow(row));
    });
  }

  listRunHeads(filter: RunFilter = {}): Promise<RunHead[]> {
    return sqliteHeads(filter, (sql, params) => this.#stmt(sql).all(...params));
  }

  commit(commit: Commit): Promise<RunRecord> {
    return this.#sync(() => {
      const events = commit.events ?? [];
      checkEvents(commit.runId, 0, events);
      checkBatch(commit);
      const appends = appendsAny(commit);
      const { sql, values } = commitUpdate(commit.patch, {
        runId: commit.runId,
        expectedVersion: commit.expectedVersion,
        firstSeq: events[0]?.seq ?? null,
        newLastSeq: events.at(-1)?.seq ?? null,
        updatedAt: this.#now().toISOString(),
        appends,
      });
      const committed = this.#transaction(() => {
        const row = this.#stmt(sql).get(...values) as RunRow | undefined;
        if (!row) refusedCommit(commit, this.#current(commit.runId));
        const stored = row ?? unreachable(commit.runId);
        this.#keys.check(commit, () => this.#storedKeys(stored.journal_prev, commit.expectedVersion));
        if (appends) {
          // The update moved the head to the next position: the row goes there, after the old head.
          const at = { pos: stored.journal_head ?? unreachable(commit.runId), prev: stored.journal_prev };
          this.#stmt(JOURNAL_SQL.insert).run(
            ...journalRow(at, commit.runId, events, commit.messages ?? [], commit.evidence ?? []),
          );
        }
        return runFromRow(
          stored,
          this.#definition(stored.run_id),
          patches(commit.patch, 'state') ? commit.patch.state : undefined,
        );
      });
      this.#keys.committed(commit, committed.version);
      return committed;
    });
  }

  events(runId: string, afterSeq = 0): Promise<StoredEvent[]> {
    return this.#sync(() =>
      eventsAfter(
        this.#stmt(JOURNAL_SQL.events).all(runId, afterSeq) as unknown as { events: string }[],
        afterSeq,
      ),
    );
  }

  messages(runId: string, nodeRun: string): Promise<StoredMessage[]> {
    return this.#sync(() =>
      messagesOf(
        this.#stmt(JOURNAL_SQL.messages).all(runId, nodeRun) as unknown as { messages: string }[],
        nodeRun,
      ),
    );
  }

  evidence(runId: string): Promise<EvidenceRecord[]> {
    return this.#sync(() =>
      evidenceOf(this.#stmt(JOURNAL_SQL.evidence).all(runId) as unknown as { evidence: string }[]),
    );
  }

  acquireLease(runId: string, owner: string, expiresAt: number, now: number): Promise<RunRecord | null> {
    return this.#sync(() => {
      const params = {
        run_id: runId,
        owner,
        expires_at: expiresAt,
        now,
        updated_at: this.#now().toISOString(),
      };
      const row = this.#stmt(LEASE_SQL).get(params) as RunRow | undefined;
      if (row) {
        this.#keys.moved(runId, row.version - 1, row.version);
        return runFromRow(row, this.#definition(row.run_id));
      }
      if (!this.#stmt('SELECT 1 FROM runs WHERE run_id = ?').get(runId)) throw runNotFound(runId);
      return null;
    });
  }

  unleasedRuns(now: number, limit = 100): Promise<string[]> {
    return this.#sync(() =>
      (this.#stmt(abandonedSql('runs', '?1', '?2')).all(now, limit) as { run_id: string }[]).map(
        (r) => r.run_id,
      ),
    );
  }

  appendThreadRun(
    tenant: string | null,
    threadId: string,
    runId: string,
    after: string | null,
  ): Promise<ThreadRecord | null> {
    return this.#sync(() => this.#threads.append(tenant, threadId, runId, after));
  }

  getThread(tenant: string | null, threadId: string): Promise<ThreadRecord | null> {
    return this.#sync(() => this.#threads.get(tenant, threadId));
  }

  listThreads(filter: ThreadFilter): Promise<ThreadRecord[]> {
    return this.#sync(() => this.#threads.list(filter));
  }

  addRunMessage(message: NewRunMessage, limit: PendingLimit): Promise<AddRunMessageResult> {
    return this.#sync(() => this.#messages.add(message, limit));
  }

  runMessages(runId: string, afterSeq = 0): Promise<RunMessage[]> {
    return this.#sync(() => this.#messages.list(runId, afterSeq));
  }

  /**
   * Closes the connection. The last connection to a file checkpoints the WAL into it on close (a few ms
   * once per store): kept on purpose, it leaves one self-contained file and syncs the last commits
   * (docs/storage.md, "Durability").
   */
  close(): Promise<void> {
    const db = this.#db;
    this.#db = null;
    this.#statements.clear();
    if (db?.isOpen) db.close();
    return Promise.resolve();
  }

  #open(): DatabaseSync {
    if (!this.#db) throw storeClosed();
    return this.#db;
  }

  /** A prepared statement, prepared once per connection. */
  #stmt(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#open().prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  #readRun(runId: string): RunRecord | null {
    const row = this.#stmt(`${SELECT_RUN} WHERE runs.run_id = ?`).get(runId) as RunRow | undefined;
    return row ? this.#fromRow(row) : null;
  }

  /** A run read with its definition columns: the definition decoded once, then from the cache. */
  #fromRow(row: RunRow): RunRecord {
    const known = this.#definitions.get(row.run_id);
    return runFromRow(
      row,
      known ??
        this.#definitions.remember(
          row.run_id,
          { flow: fromJson(row.flow ?? null), input: fromJson(row.input ?? null) },
          (row.flow?.length ?? 0) + (row.input?.length ?? 0),
        ),
    );
  }

  /** The journal position the next appended row takes (inside a write transaction). */
  #nextPos(): number {
    return (this.#stmt(JOURNAL_SQL.nextPos).get() as { pos: number }).pos;
  }

  /** The message keys and evidence ids in the journal rows from `from` back (the run's, before this commit). */
  #storedKeys(from: number | null, version: number): RunKeys {
    const rows =
      from === null
        ? []
        : (this.#stmt(JOURNAL_SQL.keys).all(from) as unknown as {
            messages: string | null;
            evidence: string | null;
          }[]);
    return keysOf(rows, version);
  }

  /** The stored version and last seq of a run (to explain a refused commit). */
  #current(runId: string): { version: number; lastSeq: number } | undefined {
    const row = this.#stmt('SELECT version, last_seq FROM runs WHERE run_id = ?').get(runId) as
      { version: number; last_seq: number } | undefined;
    return row && { version: row.version, lastSeq: row.last_seq };
  }

  /** A run's decoded definition: from the cache, else read and decoded once. */
  #definition(runId: string): Definition {
    const known = this.#definitions.get(runId);
    if (known) return known;
    const stored = this.#stmt('SELECT flow, input FROM run_definitions WHERE run_id = ?').get(runId) as
      { flow: string; input: string | null } | undefined;
    if (!stored) throw new Error(`run ${runId} has no definition row`);
    return this.#definitions.remember(
      runId,
      { flow: fromJson(stored.flow), input: fromJson(stored.input) },
      stored.flow.length + (stored.input?.length ?? 0),
    );
  }

  /** Runs `body` in one `BEGIN IMMEDIATE` transaction: all of it lands, or (on any throw) none. */
  #transaction<T>(body: () => T): T {
    const db = this.#open();
    // Prepared once like every statement here (an exec parses its SQL each time).
    this.#stmt('BEGIN IMMEDIATE').run();
    try {
      const result = body();
      this.#stmt('COMMIT').run();
      return result;
    } catch (error) {
      rollback(db, error);
    }
  }

  /** Runs a synchronous operation as a promise; errors become rejections. */
  #sync<T>(operation: () => T): Promise<T> {
    try {
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
