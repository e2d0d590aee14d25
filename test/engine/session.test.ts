import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { EventHub } from '../../src/trace/event-hub.js';
import { newRun } from '../../src/engine/new-run.js';
import { RunSession } from '../../src/engine/session.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Commit, RunRecord } from '../../src/store/store.js';

/** A memory store whose next commit, once armed, waits until released (a slow database). */
class GatedStore extends MemoryStore {
  private gate: Promise<void> | null = null;
  private open: () => void = () => undefined;
  failNext = false;

  arm(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }

  release(): void {
    this.open();
  }

  override async commit(commit: Commit): Promise<RunRecord> {
    const gate = this.gate;
    this.gate = null;
    if (gate) await gate;
    if (this.failNext) {
      this.failNext = false;
      throw new Error('database is locked');
    }
    return super.commit(commit);
  }
}

async function openSession(store: GatedStore): Promise<RunSession> {
  const flow = (await loadFlow({ id: 'f', locale: 'en', nodes: [{ id: 'work' }] }, { knownTools: [] })).flow;
  const { run, events } = newRun('run_session', {
    flow,
    flowDir: null,
    input: { text: 'x' },
    model: null,
    parentRunId: null,
    rootRunId: null,
    tenant: null,
    lease: { owner: 'me', expiresAt: Date.now() + 60_000 },
  });
  return RunSession.open(store, new EventHub(), await store.createRun(run, events));
}

/** A commit may be in flight while the step goes on (a slow read); nothing is lost or renumbered. */
describe('RunSession commits', () => {
  it('keeps what is buffered while a commit is in flight for the next one, with its seqs and indexes', async () => {
    const store = new GatedStore();
    const session = await openSession(store);
    const base = session.current.lastSeq;
    session.emit({ type: 'react.round', nodeId: 'work', round: 1 });
    session.addMessage({ role: 'user', content: 'first' });
    session.addUsage({ inputTokens: 10, outputTokens: 1, totalTokens: 11 });
    store.arm();
    const first = session.checkpoint();
    await Promise.resolve();
    session.emit({ type: 'react.round', nodeId: 'work', round: 2 });
    session.addMessage({ role: 'user', content: 'second' });
    session.addUsage({ inputTokens: 5, outputTokens: 1, totalTokens: 6 });
    store.release();
    await first;
    expect((await store.events('run_session', base)).map((e) => e.seq)).toEqual([base + 1]);
    await session.checkpoint();
    const events = await store.events('run_session', base);
    expect(events.map((e) => [e.seq, e.round])).toEqual([
      [base + 1, 1],
      [base + 2, 2],
    ]);
    const messages = await store.messages('run_session', 'work#1');
    expect(messages.map((m) => [m.index, (m.message as { content: string }).content])).toEqual([
      [0, 'first'],
      [1, 'second'],
    ]);
    expect((await store.getRun('run_session'))?.usage).toEqual({
      inputTokens: 15,
      outputTokens: 2,
      totalTokens: 17,
    });
  });

  it('a failed commit leaves everything buffered, and the next one writes it all', async () => {
    const store = new GatedStore();
    const session = await openSession(store);
    const base = session.current.lastSeq;
    session.emit({ type: 'react.round', nodeId: 'work', round: 1 });
    session.addUsage({ inputTokens: 10, outputTokens: 1, totalTokens: 11 });
    store.failNext = true;
    await expect(session.checkpoint()).rejects.toThrow('database is locked');
    session.addUsage({ inputTokens: 5, outputTokens: 1, totalTokens: 6 });
    await session.checkpoint();
    expect((await store.events('run_session', base)).map((e) => e.seq)).toEqual([base + 1]);
    expect((await store.getRun('run_session'))?.usage).toEqual({
      inputTokens: 15,
      outputTokens: 2,
      totalTokens: 17,
    });
  });
});
