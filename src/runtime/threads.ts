import { planThread, threadStore } from '../engine/thread-start.js';
import { threadMessages, type ThreadMessage } from '../engine/thread-messages.js';
import type { RunRecord, Store, ThreadFilter } from '../store/store.js';
import { summarize, type RunSummary } from '../records/summary.js';

export type { ThreadMessage, ThreadMessageKind } from '../engine/thread-messages.js';

/** A thread as `runtime.thread()` and `GET /v1/threads/{threadId}` answer it (docs/threads.md). */
export interface ThreadView {
  threadId: string;
  tenant: string | null;
  createdAt: string;
  updatedAt: string;
  /** What the user and the assistant said, oldest first. */
  messages: ThreadMessage[];
  /** The runs of the thread, oldest first. */
  runs: RunSummary[];
  /** Where the thread stands: `idle` (a message starts a run), `waiting` (the last run asks a question: a message answers it), `busy` (refused: running or waiting for an approval). */
  state: 'idle' | 'waiting' | 'busy';
}

/** One line of `runtime.threads()` and `GET /v1/threads`. */
export interface ThreadListItem {
  threadId: string;
  createdAt: string;
  updatedAt: string;
  /** How many runs the thread has. */
  runs: number;
  /** Its last run's id. */
  lastRunId: string | null;
}

/** The tenant's thread with its messages and runs, or throws RunError REQUEST_INVALID (bad id, no thread store). */
export async function viewThread(
  store: Store,
  tenant: string | null,
  threadId: string,
): Promise<ThreadView | null> {
  const plan = await planThread(store, tenant, threadId);
  const thread = await threadStore(store).getThread(tenant, threadId);
  if (!thread) return null;
  const runs = (await Promise.all(thread.runIds.map((id) => store.getRun(id)))).filter(
    (r): r is RunRecord => r !== null,
  );
  return {
    threadId,
    tenant,
    createdAt: thread.createdAt,
    updatedAt: thread.updatedAt,
    messages: await threadMessages(store, thread.runIds),
    runs: runs.map(summarize),
    state: plan.state === 'free' ? 'idle' : plan.state === 'answer' ? 'waiting' : 'busy',
  };
}

/** A tenant's threads, most recently updated first, paged with `after`. */
export async function listThreads(store: Store, filter: ThreadFilter): Promise<ThreadListItem[]> {
  return (await threadStore(store).listThreads(filter)).map((t) => ({
    threadId: t.threadId,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    runs: t.runIds.length,
    lastRunId: t.runIds.at(-1) ?? null,
  }));
}
