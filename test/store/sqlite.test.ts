import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/store/sqlite/schema.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { type Commit, type RunRecord, type StoredEvent } from '../../src/store/store.js';
import { runStoreChild, spawnStoreChild } from './child/spawn.js';

import { event, evidence, message, newRun, runState, storeContract } from './store.contract.js';

const root = mkdtempSync(join(tmpdir(), 'store-sqlite-'));
afterAll(() => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
let files = 0;
/** A path for a new database, in a folder that does not exist yet. */
const newFile = (): string => join(root, `db${++files}`, 'runtime.db');

storeContract('SqliteStore', (now) => Promise.resolve(new SqliteStore({ path: newFile(), now })));
storeContract('SqliteStore (:memory:)', (now) => Promise.resolve(new SqliteStore({ path: ':memory:', now })));

/** A file holding run `r1` (events 1..2) at version 1. */
async function seeded(): Promise<{ path: string; store: SqliteStore; run: RunRecord }> {
  const path = newFile();
  const store = new SqliteStore({ path });
  const run = await store.createRun(newRun('r1'), [event('r1', 1, 'run.started'), event('r1', 2)]);
  return { path, store, run };
}

describe('SqliteStore settings', () => {
  it('runs WAL, synchronous NORMAL and a busy timeout by default', async () => {
    const store = new SqliteStore({ path: newFile() });
    expect(store.info()).toMatchObject({
      journalMode: 'wal',
      synchronous: 'NORMAL',
      busyTimeoutMs: 5000,
      schemaVersion: SCHEMA_VERSION,
    });
    await store.close();
  });

  it('runs synchronous FULL with durability strict', async () => {
    const store = new SqliteStore({ path: newFile(), durability: 'strict', busyTimeoutMs: 250 });
    expect(store.info()).toMatchObject({ journalMode: 'wal', synchronous: 'FULL', busyTimeoutMs: 250 });
    await store.close();
  });

  it('creates the folder and keeps everything across close and reopen', async () => {
    const { path, store } = await seeded();
    await store.commit({
      runId: 'r1',
      expectedVersion: 1,
      patch: { status: 'completed' },
      evidence: [evidence(1)],
      messages: [message('q#1', 0)],
    });
    await store.close();
    const again = new SqliteStore({ path });
    expect(await again.getRun('r1')).toMatchObject({ status: 'completed', version: 2 });
    expect(await again.evidence('r1')).toEqual([evidence(1)]);
    expect(await again.messages('r1', 'q#1')).toEqual([message('q#1', 0)]);
    await again.close();
  });
});

describe('SqliteStore journal', () => {
  /** WAL frames (pages) the next `step` writes: the WAL is emptied first, then counted after. */
  async function pagesWritten(path: string, step: () => Promise<unknown>): Promise<number> {
    const raw = new DatabaseSync(path);
    try {
      raw.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      await step();
      const result = raw.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() as { log: number };
      return result.log;
    } finally {
      raw.close();
    }
  }

  it('writes a step (run row, events, messages, evidence) in about three pages, however long the run', async () => {
    const { path, store } = await seeded();
    let version = 1;
    let seq = 2;
    const step = async (n: number) => {
      const events = [
        event('r1', ++seq, 'react.round'),
        event('r1', ++seq, 'model.response'),
        event('r1', ++seq, 'tool.invoked'),
      ];
      const messages = [message('work#1', 2 * n), message('work#1', 2 * n + 1)];
      const next = await store.commit({
        runId: 'r1',
        expectedVersion: version,
        patch: { state: runState('r1', { n }), leaseOwner: 'me', leaseExpiresAt: 1_000 + n },
        events,
        messages,
        evidence: [evidence(n + 1)],
      });
      version = next.version;
    };
    for (let n = 0; n < 300; n++) await step(n);
    const pages: number[] = [];
    for (let n = 300; n < 310; n++) pages.push(await pagesWritten(path, () => step(n)));
    // The run row and the journal's last page; every other step or so a new journal page, with its
    // parent and the header. (One table per kind of row, with their keys, wrote ten.)
    expect(Math.max(...pages)).toBeLessThanOrEqual(4);
    expect(pages.reduce((a, b) => a + b, 0) / pages.length).toBeLessThanOrEqual(3.5);
    await store.close();
  });

  it('refuses a duplicate appended since another store wrote the run', async () => {
    const { path, store } = await seeded();
    const other = new SqliteStore({ path });
    let version = (
      await store.commit({
        runId: 'r1',
        expectedVersion: 1,
        patch: {},
        messages: [message('q#1', 0)],
        evidence: [evidence(1)],
      })
    ).version;
    version = (
      await other.commit({
        runId: 'r1',
        expectedVersion: version,
        patch: {},
        messages: [message('q#1', 1)],
        evidence: [evidence(2)],
      })
    ).version;
    // `store` last saw version 2: it must read what `other` appended before judging.
    for (const collide of [
      { messages: [message('q#1', 1, 'again')] },
      { evidence: [evidence(2, { tool: 'again' })] },
    ]) {
      await expect(
        store.commit({ runId: 'r1', expectedVersion: version, patch: { status: 'failed' }, ...collide }),
      ).rejects.toMatchObject({
        code: 'DUPLICATE',
      });
    }
    const next = await store.commit({
      runId: 'r1',
      expectedVersion: version,
      patch: {},
      messages: [message('q#1', 2)],
      evidence: [evidence(3)],
    });
    expect(next.version).toBe(version + 1);
    expect((await store.messages('r1', 'q#1')).map((m) => m.index)).toEqual([0, 1, 2]);
    expect((await other.evidence('r1')).map((e) => e.id)).toEqual(['ev_1', 'ev_2', 'ev_3']);
    await other.close();
    await store.close();
  });

  it('lists by status, tenant and parent through their indexes (tenant and parent hold only runs that have one)', async () => {
    const { path, store } = await seeded();
    await store.close();
    const raw = new DatabaseSync(path, { readOnly: true });
    try {
      const plan = (where: string, params: Record<string, string>) =>
        raw
          .prepare(`EXPLAIN QUERY PLAN SELECT * FROM runs WHERE ${where} ORDER BY created_at DESC LIMIT 10`)
          .all(params)
          .map((r) => String(r.detail))
          .join(' | ');
      expect(plan('status = :s', { s: 'running' })).toContain('USING INDEX runs_status');
      expect(plan('tenant = :t', { t: 'acme' })).toContain('USING INDEX runs_tenant');
      expect(plan('parent_run_id = :p', { p: 'r1' })).toContain('USING INDEX runs_parent');
      expect(plan('tenant IS NULL', {})).toContain('USING INDEX runs_created');
    } finally {
      raw.close();
    }
  });

  it('follows events across commits without events, and reads them back after reopening', async () => {
    const { path, store } = await seeded();
    let version = 1;
    const commit = async (extra: Partial<Commit>) =>
      (version = (await store.commit({ runId: 'r1', expectedVersion: version, patch: {}, ...extra }))
        .version);
    await commit({ events: [event('r1', 3), event('r1', 4)] });
    await commit({ messages: [message('q#1', 0)] });
    await commit({ evidence: [evidence(1)] });
    await commit({ events: [event('r1', 5)] });
    await commit({ patch: { leaseOwner: 'me', leaseExpiresAt: 5 } });
    await commit({ events: [event('r1', 7)] });
    for (const after of [0, 2, 3, 4, 5, 6, 7, 9]) {
      expect((await store.events('r1', after)).map((e) => e.seq)).toEqual(
        [1, 2, 3, 4, 5, 7].filter((s) => s > after),
      );
    }
    await store.close();
    const again = new SqliteStore({ path });
    expect((await again.events('r1', 4)).map((e) => e.seq)).toEqual([5, 7]);
    expect(await again.messages('r1', 'q#1')).toEqual([message('q#1', 0)]);
    expect(await again.evidence('r1')).toEqual([evidence(1)]);
    await again.close();
  });

  it('reads a node run out of commits that mix node runs, and keeps events, messages and evidence queryable as views', async () => {
    const { path, store } = await seeded();
    await store.commit({
      runId: 'r1',
      expectedVersion: 1,
      patch: {},
      events: [event('r1', 3)],
      messages: [message('a#1', 1), message('b#1', 0), message('a#1', 0)],
      evidence: [evidence(1), evidence(2)],
    });
    expect(await store.messages('r1', 'a#1')).toEqual([message('a#1', 0), message('a#1', 1)]);
    expect(await store.messages('r1', 'b#1')).toEqual([message('b#1', 0)]);
    expect((await store.events('r1', 1)).map((e) => e.seq)).toEqual([2, 3]);
    const raw = new DatabaseSync(path, { readOnly: true });
    try {
      expect(
        raw
          .prepare("SELECT seq, type FROM events WHERE run_id = 'r1' ORDER BY seq")
          .all()
          .map((r) => r.seq),
      ).toEqual([1, 2, 3]);
      expect(
        raw.prepare("SELECT idx FROM messages WHERE run_id = 'r1' AND node_run = 'a#1' ORDER BY idx").all(),
      ).toEqual([{ idx: 0 }, { idx: 1 }]);
      expect(
        raw.prepare("SELECT id, outcome FROM evidence WHERE run_id = 'r1' ORDER BY pos, item").all(),
      ).toEqual([
        { id: 'ev_1', outcome: 'SUCCESS' },
        { id: 'ev_2', outcome: 'SUCCESS' },
      ]);
    } finally {
      raw.close();
    }
    await store.close();
  });
});

describe('SqliteStore across processes', () => {
  it('shows committed data to a second process, and its commits back to this one', async () => {
    const { path, store } = await seeded();
    const mine = await store.commit({
      runId: 'r1',
      expectedVersion: 1,
      patch: { state: runState('r1', { by: 'parent' }) },
      evidence: [evidence(1)],
      messages: [message('query#1', 0)],
    });
    const seen = await runStoreChild<{
      run: RunRecord;
      events: StoredEvent[];
      evidence: unknown[];
      messages: unknown[];
    }>(['read', path, 'r1']);
    expect(seen.run).toEqual(mine);
    expect(seen.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(seen.evidence).toEqual([evidence(1)]);
    expect(seen.messages).toEqual([message('query#1', 0)]);

    const theirs = await runStoreChild<RunRecord>(['write', path, 'r1']);
    expect(theirs).toMatchObject({ version: 3, lastSeq: 3, state: { note: 'from child' } });
    expect(await store.getRun('r1')).toEqual(theirs);
    expect((await store.events('r1', 2))[0]).toMatchObject({ type: 'step', note: 'from child' });
    await store.close();
  });

  it('lets exactly one of two processes racing a commit at the same version win', async () => {
    const { path, store } = await seeded();
    for (let round = 0; round < 3; round++) {
      const version = (await store.getRun('r1'))!.version;
      const racers = ['a', 'b'].map((owner) => spawnStoreChild(['race', path, 'r1', String(version), owner]));
      expect(await Promise.all(racers.map((r) => r.nextLine()))).toEqual(['ready', 'ready']);
      for (const r of racers) r.process.stdin.end('go\n');
      const results = (await Promise.all(racers.map((r) => r.nextLine()))).map(
        (l) => JSON.parse(l) as { owner: string; result: string },
      );
      expect(await Promise.all(racers.map((r) => r.exited))).toEqual([0, 0]);
      const winners = results.filter((r) => r.result === 'won');
      expect(winners).toHaveLength(1);
      expect(results.filter((r) => r.result === 'conflict')).toHaveLength(1);
      const run = await store.getRun('r1');
      expect(run).toMatchObject({ version: version + 1, state: { note: winners[0]!.owner } });
      expect(await store.events('r1', run!.lastSeq - 1)).toHaveLength(1);
    }
    await store.close();
  });

  it('keeps every commit whole when the writing process is killed mid-stream', async () => {
    const { path, store } = await seeded();
    await store.close();
    const churn = spawnStoreChild(['churn', path, 'r1']);
    for (let i = 0; i < 25; i++) await churn.nextLine();
    churn.process.kill('SIGKILL');
    expect(await churn.exited).toBeNull();

    const after = new SqliteStore({ path });
    const run = (await after.getRun('r1'))!;
    const steps = run.version - 1;
    expect(steps).toBeGreaterThanOrEqual(25);
    const events = await after.events('r1');
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 2 + steps }, (_, i) => i + 1));
    expect(run.lastSeq).toBe(2 + steps);
    expect(run.state).toMatchObject({ note: 'churn', seq: run.lastSeq });
    expect(await after.evidence('r1')).toHaveLength(steps);
    expect(await after.messages('r1', 'child#1')).toHaveLength(steps);
    await after.close();
  });
});
