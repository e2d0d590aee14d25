import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  AppendedKeys,
  JOURNAL_SQL,
  appendsAny,
  eventsAfter,
  evidenceOf,
  journalRow,
  keysOf,
  messagesOf,
  type RunKeys,
} from '../../src/store/sqlite/journal.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { StoreError, type Commit } from '../../src/store/store.js';
import { event, evidence, message, newRun } from './store.contract.js';

/**
 * The journal of the SQLite store (src/store/sqlite/journal.ts, docs/storage.md "What is stored
 * where"): the row a commit appends, the readers of its JSON columns, the in-memory duplicate keys,
 * and the chain of rows in a real file.
 */

const root = mkdtempSync(join(tmpdir(), 'sqlite-journal-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
let files = 0;
const newFile = (): string => join(root, `db${++files}.db`);

describe('journalRow', () => {
  it('gives positions, run and nulls for a commit that appends nothing', () => {
    expect(journalRow({ pos: 7, prev: null }, 'r1', [], [], [])).toEqual([
      7,
      null,
      'r1',
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
  });

  it('takes the first and last seq of the events and stores each kind as one JSON array', () => {
    const events = [event('r1', 3), event('r1', 4), event('r1', 9)];
    const row = journalRow({ pos: 12, prev: 5 }, 'r1', events, [message('q#1', 0)], [evidence(1)]);
    expect(row.slice(0, 6)).toEqual([12, 5, 'r1', 3, 9, 'q#1']);
    expect(JSON.parse(row[6] as string)).toEqual(events);
    expect(row[7]).toBe(JSON.stringify([message('q#1', 0)]));
    expect(row[8]).toBe(JSON.stringify([evidence(1)]));
  });

  it('sets node_run only when every message is of one node run', () => {
    const one = journalRow({ pos: 1, prev: null }, 'r', [], [message('a#1', 0), message('a#1', 1)], []);
    expect(one[5]).toBe('a#1');
    const mixed = journalRow({ pos: 1, prev: null }, 'r', [], [message('a#1', 0), message('b#1', 0)], []);
    expect(mixed[5]).toBeNull();
    // A later message of another node run counts as much as an earlier one.
    const lateOther = journalRow(
      { pos: 1, prev: null },
      'r',
      [],
      [message('a#1', 0), message('a#1', 1), message('a#2', 0)],
      [],
    );
    expect(lateOther[5]).toBeNull();
  });
});

describe('appendsAny', () => {
  it('is false for absent or empty lists, true as soon as one kind has an item', () => {
    expect(appendsAny({})).toBe(false);
    expect(appendsAny({ events: [], messages: [], evidence: [] })).toBe(false);
    expect(appendsAny({ events: [event('r', 1)] })).toBe(true);
    expect(appendsAny({ messages: [message('q#1', 0)] })).toBe(true);
    expect(appendsAny({ evidence: [evidence(1)], events: [] })).toBe(true);
  });
});

describe('readers of journal rows', () => {
  const rowOf = <T>(items: T[]): string => JSON.stringify(items);

  it('eventsAfter keeps only seqs strictly above afterSeq, across rows, in row order', () => {
    const rows = [
      { events: rowOf([event('r', 1), event('r', 2)]) },
      { events: rowOf([event('r', 3)]) },
      { events: rowOf([event('r', 5), event('r', 6)]) },
    ];
    expect(eventsAfter(rows, 0).map((e) => e.seq)).toEqual([1, 2, 3, 5, 6]);
    expect(eventsAfter(rows, 2).map((e) => e.seq)).toEqual([3, 5, 6]);
    expect(eventsAfter(rows, 4).map((e) => e.seq)).toEqual([5, 6]);
    expect(eventsAfter(rows, 6)).toEqual([]);
    expect(eventsAfter([], 0)).toEqual([]);
  });

  it('messagesOf keeps one node run and sorts it by index, whatever the rows hold', () => {
    const rows = [
      { messages: rowOf([message('a#1', 2), message('b#1', 0)]) },
      { messages: rowOf([message('a#1', 0), message('a#10', 1)]) },
      { messages: rowOf([message('a#1', 1)]) },
    ];
    expect(messagesOf(rows, 'a#1')).toEqual([message('a#1', 0), message('a#1', 1), message('a#1', 2)]);
    expect(messagesOf(rows, 'a#10')).toEqual([message('a#10', 1)]);
    expect(messagesOf(rows, 'a')).toEqual([]);
  });

  it('evidenceOf flattens rows in the order appended', () => {
    expect(
      evidenceOf([{ evidence: rowOf([evidence(2), evidence(1)]) }, { evidence: rowOf([evidence(3)]) }]).map(
        (e) => e.id,
      ),
    ).toEqual(['ev_2', 'ev_1', 'ev_3']);
  });

  it('throws the JSON parser’s SyntaxError for a row that is not JSON', () => {
    expect(() => eventsAfter([{ events: '[{' }], 0)).toThrow(SyntaxError);
    expect(() => evidenceOf([{ evidence: 'nope' }])).toThrow(SyntaxError);
  });

  it('keysOf skips NULL columns and keeps node run and index apart', () => {
    const keys = keysOf(
      [
        { messages: rowOf([message('a#1', 10), message('a#11', 0)]), evidence: null },
        { messages: null, evidence: rowOf([evidence(1), evidence(2)]) },
        { messages: null, evidence: null },
      ],
      7,
    );
    expect(keys.version).toBe(7);
    // `a#1` index 10 and `a#11` index 0 must not collide.
    expect(keys.messages.size).toBe(2);
    expect([...keys.evidence]).toEqual(['ev_1', 'ev_2']);
    expect(keysOf([], 1)).toEqual({ version: 1, messages: new Set(), evidence: new Set() });
  });
});

describe('AppendedKeys', () => {
  const commit = (fields: Partial<Commit> & { expectedVersion: number }): Commit => ({
    runId: 'r1',
    patch: {},
    ...fields,
  });
  const stored = (version: number, messages: [string, number][] = [], ids: string[] = []): RunKeys =>
    keysOf(
      [
        {
          messages: JSON.stringify(messages.map(([nodeRun, index]) => message(nodeRun, index))),
          evidence: JSON.stringify(ids.map((id) => evidence(Number(id.slice(3))))),
        },
      ],
      version,
    );
  const thrown = (fn: () => void): StoreError => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(StoreError);
      return error as StoreError;
    }
    throw new Error('did not throw');
  };

  it('never loads for a commit that appends no message or evidence (events do not count)', () => {
    const keys = new AppendedKeys();
    const load = vi.fn(() => stored(1));
    keys.check(commit({ expectedVersion: 1, events: [event('r1', 5)] }), load);
    keys.check(commit({ expectedVersion: 1, messages: [], evidence: [] }), load);
    expect(load).not.toHaveBeenCalled();
  });

  it('loads an unknown run once, then checks against memory at the same version', () => {
    const keys = new AppendedKeys();
    const load = vi.fn(() => stored(3, [['q#1', 0]], ['ev_1']));
    keys.check(commit({ expectedVersion: 3, messages: [message('q#1', 1)] }), load);
    keys.check(commit({ expectedVersion: 3, evidence: [evidence(2)] }), load);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('refuses a stored message or evidence id with DUPLICATE and the exact message', () => {
    const keys = new AppendedKeys();
    const load = () => stored(2, [['q#1', 0]], ['ev_1']);
    const m = thrown(() => keys.check(commit({ expectedVersion: 2, messages: [message('q#1', 0)] }), load));
    expect(m.code).toBe('DUPLICATE');
    expect(m.message).toBe('run r1 already has message 0 of node run q#1');
    const e = thrown(() => keys.check(commit({ expectedVersion: 2, evidence: [evidence(1)] }), load));
    expect(e.code).toBe('DUPLICATE');
    expect(e.message).toBe('run r1 already has evidence ev_1');
  });

  it('remembers a landed commit at the new version; a check at that version needs no load', () => {
    const keys = new AppendedKeys();
    keys.created('r1', 1);
    const load = vi.fn(() => stored(99));
    const first = commit({ expectedVersion: 1, messages: [message('q#1', 0)], evidence: [evidence(1)] });
    keys.check(first, load);
    keys.committed(first, 2);
    const again = thrown(() => keys.check(commit({ expectedVersion: 2, evidence: [evidence(1)] }), load));
    expect(again.message).toBe('run r1 already has evidence ev_1');
    expect(load).not.toHaveBeenCalled();
  });

  it('reloads when the run moved past the version it knows (another writer)', () => {
    const keys = new AppendedKeys();
    keys.created('r1', 1);
    const load = vi.fn(() => stored(4, [['q#1', 3]]));
    const error = thrown(() =>
      keys.check(commit({ expectedVersion: 4, messages: [message('q#1', 3)] }), load),
    );
    expect(error.code).toBe('DUPLICATE');
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('forgets a run when a commit lands at a version it did not know, so the next check loads', () => {
    const keys = new AppendedKeys();
    keys.created('r1', 1);
    keys.committed(commit({ expectedVersion: 5, messages: [message('q#1', 0)] }), 6);
    const load = vi.fn(() => stored(1));
    // Had the entry survived at version 1, this check would not load.
    keys.check(commit({ expectedVersion: 1, messages: [message('q#1', 0)] }), load);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('moves the version of a lease taken here only from the version it knows', () => {
    const keys = new AppendedKeys();
    keys.created('r1', 1);
    keys.moved('r1', 1, 2);
    const load = vi.fn(() => stored(2));
    keys.check(commit({ expectedVersion: 2, messages: [message('q#1', 0)] }), load);
    expect(load).not.toHaveBeenCalled();
    keys.moved('r1', 7, 8); // not the version it holds: ignored
    keys.check(commit({ expectedVersion: 2, messages: [message('q#1', 1)] }), load);
    expect(load).not.toHaveBeenCalled();
    keys.moved('unknown', 1, 2); // an unknown run: nothing to move, no throw
  });

  it('forgets the least recently used run beyond its limit', () => {
    const keys = new AppendedKeys(1);
    keys.created('r1', 1);
    keys.created('r2', 1);
    const load = vi.fn(() => stored(1));
    keys.check(commit({ expectedVersion: 1, messages: [message('q#1', 0)] }), load);
    expect(load).toHaveBeenCalledTimes(1);
    keys.check({ ...commit({ expectedVersion: 1, messages: [message('q#1', 0)] }), runId: 'r2' }, load);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('the journal chain in a SQLite file', () => {
  interface JournalRow {
    pos: number;
    prev: number | null;
    run_id: string;
    first_seq: number | null;
    last_seq: number | null;
    node_run: string | null;
  }
  const journal = (path: string): JournalRow[] => {
    const raw = new DatabaseSync(path, { readOnly: true });
    try {
      return raw
        .prepare('SELECT pos, prev, run_id, first_seq, last_seq, node_run FROM journal ORDER BY pos')
        .all() as unknown as JournalRow[];
    } finally {
      raw.close();
    }
  };
  const heads = (
    path: string,
    runId: string,
  ): { journal_head: number | null; journal_prev: number | null } => {
    const raw = new DatabaseSync(path, { readOnly: true });
    try {
      return raw.prepare('SELECT journal_head, journal_prev FROM runs WHERE run_id = ?').get(runId) as {
        journal_head: number | null;
        journal_prev: number | null;
      };
    } finally {
      raw.close();
    }
  };

  it('a run created without events has no head; its first appending commit starts the chain', async () => {
    const path = newFile();
    const store = new SqliteStore({ path });
    await store.createRun(newRun('r1'), []);
    expect(heads(path, 'r1')).toEqual({ journal_head: null, journal_prev: null });
    expect(journal(path)).toEqual([]);
    expect(await store.events('r1')).toEqual([]);
    expect(await store.evidence('r1')).toEqual([]);
    const after = await store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, evidence: [evidence(1)] });
    expect(after.lastSeq).toBe(0);
    expect(heads(path, 'r1')).toEqual({ journal_head: 1, journal_prev: null });
    expect(journal(path)).toEqual([
      { pos: 1, prev: null, run_id: 'r1', first_seq: null, last_seq: null, node_run: null },
    ]);
    await store.close();
  });

  it('chains each run’s rows to its own previous row when runs interleave, and skips commits that append nothing', async () => {
    const path = newFile();
    const store = new SqliteStore({ path });
    await store.createRun(newRun('a'), [event('a', 1)]);
    await store.createRun(newRun('b'), [event('b', 1)]);
    let a = (await store.commit({ runId: 'a', expectedVersion: 1, patch: {}, events: [event('a', 2)] }))
      .version;
    await store.commit({ runId: 'b', expectedVersion: 1, patch: {}, messages: [message('n#1', 0)] });
    a = (await store.commit({ runId: 'a', expectedVersion: a, patch: { status: 'completed' } })).version;
    await store.commit({
      runId: 'a',
      expectedVersion: a,
      patch: {},
      events: [event('a', 3), event('a', 4)],
      messages: [message('n#1', 0), message('n#2', 0)],
    });
    expect(journal(path)).toEqual([
      { pos: 1, prev: null, run_id: 'a', first_seq: 1, last_seq: 1, node_run: null },
      { pos: 2, prev: null, run_id: 'b', first_seq: 1, last_seq: 1, node_run: null },
      { pos: 3, prev: 1, run_id: 'a', first_seq: 2, last_seq: 2, node_run: null },
      { pos: 4, prev: 2, run_id: 'b', first_seq: null, last_seq: null, node_run: 'n#1' },
      { pos: 5, prev: 3, run_id: 'a', first_seq: 3, last_seq: 4, node_run: null },
    ]);
    expect(heads(path, 'a')).toEqual({ journal_head: 5, journal_prev: 3 });
    expect(heads(path, 'b')).toEqual({ journal_head: 4, journal_prev: 2 });
    expect((await store.events('a')).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect((await store.events('b')).map((e) => e.seq)).toEqual([1]);
    expect(await store.messages('a', 'n#1')).toEqual([message('n#1', 0)]);
    expect(await store.messages('b', 'n#1')).toEqual([message('n#1', 0)]);
    expect(await store.messages('a', 'n#3')).toEqual([]);
    await store.close();
  });

  it('reads nothing for a run that does not exist', async () => {
    const store = new SqliteStore({ path: ':memory:' });
    expect(await store.events('nope')).toEqual([]);
    expect(await store.messages('nope', 'q#1')).toEqual([]);
    expect(await store.evidence('nope')).toEqual([]);
    await store.close();
  });

  it('JOURNAL_SQL.keys reads the keys of the chain from a given row back, not of later rows', async () => {
    const path = newFile();
    const store = new SqliteStore({ path });
    await store.createRun(newRun('r1'), []);
    let v = 1;
    for (let n = 1; n <= 3; n++)
      v = (
        await store.commit({
          runId: 'r1',
          expectedVersion: v,
          patch: {},
          messages: [message('q#1', n)],
          evidence: [evidence(n)],
        })
      ).version;
    await store.close();
    const raw = new DatabaseSync(path, { readOnly: true });
    try {
      const rows = raw.prepare(JOURNAL_SQL.keys).all(2) as unknown as {
        messages: string | null;
        evidence: string | null;
      }[];
      const keys = keysOf(rows, 0);
      expect([...keys.evidence].sort()).toEqual(['ev_1', 'ev_2']);
      expect(keys.messages.size).toBe(2);
      expect((raw.prepare(JOURNAL_SQL.nextPos).get() as { pos: number }).pos).toBe(4);
    } finally {
      raw.close();
    }
  });

  it('a refused commit leaves the chain as it was', async () => {
    const path = newFile();
    const store = new SqliteStore({ path });
    await store.createRun(newRun('r1'), [event('r1', 1)]);
    await store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, evidence: [evidence(1)] });
    const before = journal(path);
    await expect(
      store.commit({ runId: 'r1', expectedVersion: 2, patch: {}, evidence: [evidence(1)] }),
    ).rejects.toMatchObject({ code: 'DUPLICATE', message: 'run r1 already has evidence ev_1' });
    await expect(
      store.commit({ runId: 'r1', expectedVersion: 2, patch: {}, events: [event('r1', 1)] }),
    ).rejects.toMatchObject({ code: 'INVALID_APPEND', message: 'event seq 1 of run r1 is not above 1' });
    await expect(
      store.commit({ runId: 'r1', expectedVersion: 1, patch: {}, evidence: [evidence(2)] }),
    ).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    expect(journal(path)).toEqual(before);
    expect(heads(path, 'r1')).toEqual({ journal_head: 2, journal_prev: 1 });
    expect((await store.getRun('r1'))?.version).toBe(2);
    await store.close();
  });
});
