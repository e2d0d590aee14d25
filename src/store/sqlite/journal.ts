import { LRUCache } from 'lru-cache';
import type { EvidenceRecord } from '../../records/run-state.js';
import { duplicateEvidence, duplicateMessage } from '../checks.js';
import type { Commit, StoredEvent, StoredMessage } from '../store.js';
import type { SQLInputValue } from 'node:sqlite';

/**
 * The `journal` table (schema v2): what one commit appends — its events, messages and evidence — is
 * one row, appended at the end of the table. The run row points at its last journal row
 * (`journal_head`) and each row at the run's one before it (`prev`), so a step writes about three
 * b-tree pages (the run row, the journal's last page, and every other step or so a new journal page
 * with the header) however much it appends, where one table per kind of row, each with its keys,
 * wrote ten. Reading walks the chain back from the head: all of it for a
 * conversation or the evidence (when a run is opened), only the new rows when following events.
 */
export const JOURNAL_SQL = {
  insert:
    'INSERT INTO journal (pos, prev, run_id, first_seq, last_seq, node_run, events, messages, evidence) ' +
    'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  nextPos: 'SELECT coalesce(max(pos), 0) + 1 AS pos FROM journal',
  events: `WITH RECURSIVE chain (pos, prev, last_seq) AS (
      SELECT j.pos, j.prev, j.last_seq FROM runs r JOIN journal j ON j.pos = r.journal_head WHERE r.run_id = ?1
      UNION ALL
      SELECT j.pos, j.prev, j.last_seq FROM chain c JOIN journal j ON j.pos = c.prev
      WHERE c.last_seq IS NULL OR c.last_seq > ?2)
    SELECT j.events FROM chain c JOIN journal j ON j.pos = c.pos
    WHERE j.events IS NOT NULL AND j.last_seq > ?2 ORDER BY c.pos`,
  messages: `${wholeChain()}
    SELECT j.messages FROM chain c JOIN journal j ON j.pos = c.pos
    WHERE j.messages IS NOT NULL AND (j.node_run = ?2 OR j.node_run IS NULL) ORDER BY c.pos`,
  evidence: `${wholeChain()}
    SELECT j.evidence FROM chain c JOIN journal j ON j.pos = c.pos WHERE j.evidence IS NOT NULL ORDER BY c.pos`,
  /** From row ?1 back (a commit reads them after its update moved the head past its own row). */
  keys: `${wholeChain('SELECT j.pos, j.prev FROM journal j WHERE j.pos = ?1')}
    SELECT j.messages, j.evidence FROM chain c JOIN journal j ON j.pos = c.pos
    WHERE j.messages IS NOT NULL OR j.evidence IS NOT NULL`,
} as const;

/**
 * Every journal row of run ?1 from its head back, or from the row `start` selects: only positions,
 * the bodies are read by the caller.
 */
function wholeChain(
  start = 'SELECT j.pos, j.prev FROM runs r JOIN journal j ON j.pos = r.journal_head WHERE r.run_id = ?1',
): string {
  return `WITH RECURSIVE chain (pos, prev) AS (
      ${start}
      UNION ALL
      SELECT j.pos, j.prev FROM chain c JOIN journal j ON j.pos = c.prev)`;
}

/**
 * The values of `JOURNAL_SQL.insert` for what a commit (or a new run) appends at `pos` after `prev`,
 * or null when it appends nothing: positions, run, first and last seq, node run, then events,
 * messages and evidence as JSON arrays.
 */
export function journalRow(
  at: { pos: number; prev: number | null },
  runId: string,
  events: readonly StoredEvent[],
  messages: readonly StoredMessage[],
  evidence: readonly EvidenceRecord[],
): SQLInputValue[] {
  const nodeRun = messages[0]?.nodeRun;
  return [
    at.pos,
    at.prev,
    runId,
    events[0]?.seq ?? null,
    events.at(-1)?.seq ?? null,
    // Set when every message is of one node run, so a node run's conversation is read without the others'.
    nodeRun !== undefined && messages.every((m) => m.nodeRun === nodeRun) ? nodeRun : null,
    events.length > 0 ? JSON.stringify(events) : null,
    messages.length > 0 ? JSON.stringify(messages) : null,
    evidence.length > 0 ? JSON.stringify(evidence) : null,
  ];
}

/** Whether a commit appends anything (and so gets a journal row). */
export function appendsAny(commit: Pick<Commit, 'events' | 'messages' | 'evidence'>): boolean {
  return (
    (commit.events ?? []).length > 0 ||
    (commit.messages ?? []).length > 0 ||
    (commit.evidence ?? []).length > 0
  );
}

/** The events of journal rows (in seq order) with seq above `afterSeq`. */
export function eventsAfter(rows: readonly { events: string }[], afterSeq: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const row of rows) {
    for (const event of JSON.parse(row.events) as StoredEvent[]) if (event.seq > afterSeq) out.push(event);
  }
  return out;
}

/** The messages of one node run in index order, from journal rows that may hold other node runs' too. */
export function messagesOf(rows: readonly { messages: string }[], nodeRun: string): StoredMessage[] {
  const out: StoredMessage[] = [];
  for (const row of rows) {
    for (const message of JSON.parse(row.messages) as StoredMessage[])
      if (message.nodeRun === nodeRun) out.push(message);
  }
  return out.sort((a, b) => a.index - b.index);
}

/** The evidence of journal rows, in the order appended. */
export function evidenceOf(rows: readonly { evidence: string }[]): EvidenceRecord[] {
  return rows.flatMap((row) => JSON.parse(row.evidence) as EvidenceRecord[]);
}

/** The message keys and evidence ids stored for a run. */
export interface RunKeys {
  version: number;
  messages: Set<string>;
  evidence: Set<string>;
}

/** The keys stored in journal rows. */
export function keysOf(
  rows: readonly { messages: string | null; evidence: string | null }[],
  version: number,
): RunKeys {
  const keys: RunKeys = { version, messages: new Set(), evidence: new Set() };
  for (const row of rows) {
    if (row.messages !== null)
      for (const m of JSON.parse(row.messages) as StoredMessage[]) keys.messages.add(messageKey(m));
    if (row.evidence !== null)
      for (const e of JSON.parse(row.evidence) as EvidenceRecord[]) keys.evidence.add(e.id);
  }
  return keys;
}

/**
 * Which message keys and evidence ids each run holds, so that a commit colliding with a stored one is
 * refused (StoreError `DUPLICATE`) without an index per kind of row. An entry is valid at the run
 * version it was taken at: the store that wrote the run's last commit checks against memory; after
 * another writer moved the run, the keys are read again from its journal rows (once). Bounded: the
 * least recently used runs are forgotten.
 */
export class AppendedKeys {
  readonly #runs: LRUCache<string, RunKeys>;

  constructor(limit = 256) {
    this.#runs = new LRUCache({ max: limit });
  }

  /** Throws `DUPLICATE` when the commit appends a key the run holds; `load` reads them when not known. */
  check(commit: Commit, load: () => RunKeys): void {
    if ((commit.messages ?? []).length === 0 && (commit.evidence ?? []).length === 0) return;
    let keys = this.#runs.get(commit.runId);
    if (!keys || keys.version !== commit.expectedVersion) {
      keys = load();
      this.#remember(commit.runId, keys);
    }
    for (const m of commit.messages ?? []) {
      if (keys.messages.has(messageKey(m))) throw duplicateMessage(commit.runId, m.nodeRun, m.index);
    }
    for (const e of commit.evidence ?? []) {
      if (keys.evidence.has(e.id)) throw duplicateEvidence(commit.runId, e.id);
    }
  }

  /** Records a landed commit: its keys, and the run's version after it. */
  committed(commit: Commit, version: number): void {
    const keys = this.#runs.get(commit.runId);
    if (!keys || keys.version !== commit.expectedVersion) {
      this.#runs.delete(commit.runId);
      return;
    }
    for (const m of commit.messages ?? []) keys.messages.add(messageKey(m));
    for (const e of commit.evidence ?? []) keys.evidence.add(e.id);
    keys.version = version;
    this.#remember(commit.runId, keys);
  }

  /** A new run: nothing appended yet. */
  created(runId: string, version: number): void {
    this.#remember(runId, { version, messages: new Set(), evidence: new Set() });
  }

  /** The run's version moved from `from` to `to` without appends (a lease taken here). */
  moved(runId: string, from: number, to: number): void {
    const keys = this.#runs.get(runId);
    if (keys?.version === from) keys.version = to;
  }

  #remember(runId: string, keys: RunKeys): void {
    this.#runs.set(runId, keys);
  }
}

function messageKey(m: StoredMessage): string {
  return `${m.nodeRun}\u0000${m.index}`;
}
