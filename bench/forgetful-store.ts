/**
 * The store of the bench's "runtime alone" column: a MemoryStore that keeps the run row (version, lease,
 * status, state) and nothing a step appends — of each commit's events it keeps only the last one's seq,
 * and no message or evidence. A run on it does all of the runtime's own work per step (the loop, the
 * guard chain, the trace events, building the commit) and almost none of persisting it, so its cost per
 * step is the floor of the runtime itself, against which a store's share is read. Not a store for runs:
 * nothing of their history can be read back.
 */
import { MemoryStore } from '../src/index.js';
import type { Commit, RunRecord } from '../src/store/store.js';

export class ForgetfulStore extends MemoryStore {
  override commit(commit: Commit): Promise<RunRecord> {
    const last = commit.events?.at(-1);
    return super.commit({
      runId: commit.runId,
      expectedVersion: commit.expectedVersion,
      patch: commit.patch,
      events: last ? [{ seq: last.seq, runId: last.runId, type: last.type, ts: last.ts }] : [],
    });
  }
}
