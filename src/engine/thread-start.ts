import { RunError } from '../domain/run-error.js';
import type { EvidenceRecord } from '../records/run-state.js';
import type { RunRecord, Store, ThreadRecord } from '../store/store.js';
import { historyOf, threadMessages } from './thread-messages.js';
import type { ThreadTurn } from '../records/run-state.js';

/** What a new run in a thread starts with (docs/threads.md), read from the thread's earlier runs. */
export interface ThreadStartSpec {
  id: string;
  /** The thread's last run id (null: a new thread): the run is appended only after it. */
  after: string | null;
  /** The earlier turns its conversations start with. */
  history: ThreadTurn[];
  /** What the user said earlier in the thread (counts for `source: user`). */
  userTexts: string[];
  /** The evidence of the thread so far (the last run's, which carries the earlier ones): citable, ids go on. */
  evidence: EvidenceRecord[];
  /** Who started the thread (its first run's starter), when known: not one of several approvers. */
  startedBy?: string;
}

/** Where a thread stands for a new message: its last run and what a new run would start with. */
export interface ThreadPlan {
  /** `free`: start a run; `answer`: the last run waits on a follow-up, the message answers it; `busy`: refused. */
  state: 'free' | 'answer' | 'busy';
  last: RunRecord | null;
  start: ThreadStartSpec;
}

const THREAD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Throws RunError REQUEST_INVALID for a thread id that is not 1–128 of `A–Z a–z 0–9 . _ : -`. */
export function checkThreadId(threadId: string): void {
  if (!THREAD_ID.test(threadId))
    throw new RunError(
      'REQUEST_INVALID',
      `thread id ${JSON.stringify(threadId)} must be 1 to 128 letters, digits or . _ : -`,
    );
}

/** The store's thread methods, or RunError REQUEST_INVALID when it keeps no threads. */
export function threadStore(
  store: Store,
): Store & Required<Pick<Store, 'appendThreadRun' | 'getThread' | 'listThreads'>> {
  if (!store.appendThreadRun || !store.getThread || !store.listThreads)
    throw new RunError('REQUEST_INVALID', 'this store keeps no threads (use memory, SQLite or PostgreSQL)');
  return store as Store & Required<Pick<Store, 'appendThreadRun' | 'getThread' | 'listThreads'>>;
}

/** Reads where the tenant's thread stands and what a new run in it starts with. */
export async function planThread(store: Store, tenant: string | null, threadId: string): Promise<ThreadPlan> {
  checkThreadId(threadId);
  const threads = threadStore(store);
  const thread: ThreadRecord | null = await threads.getThread(tenant, threadId);
  const runIds = thread?.runIds ?? [];
  const last = await lastRun(store, runIds);
  const start: ThreadStartSpec = {
    id: threadId,
    after: runIds.at(-1) ?? null,
    history: historyOf(await threadMessages(store, runIds)),
    userTexts: last
      ? [
          ...last.state.run.inputTexts,
          ...last.state.run.followUps.map((f) => f.answer),
          ...(last.state.run.steerTexts ?? []),
        ]
      : [],
    evidence: last ? await store.evidence(last.runId) : [],
  };
  const starter = last?.state.run.threadStartedBy ?? last?.state.run.startedBy;
  if (starter) start.startedBy = starter;
  return { state: stateOf(last), last, start };
}

/** The thread refusal of a message while its last run runs or waits for an approval. */
export function threadBusy(threadId: string, last: RunRecord): RunError {
  const why = last.status === 'running' ? 'is running' : 'waits for an approval (approve or reject it first)';
  return new RunError('THREAD_BUSY', `thread ${threadId}: its last run ${last.runId} ${why}`, {
    threadId,
    runId: last.runId,
  });
}

function stateOf(last: RunRecord | null): ThreadPlan['state'] {
  if (!last) return 'free';
  if (last.status === 'running') return 'busy';
  if (last.status === 'suspended') return last.suspension?.kind === 'FOLLOW_UP' ? 'answer' : 'busy';
  return 'free';
}

/** The newest run of the thread that exists (an id appended by a process that died before creating it is skipped). */
async function lastRun(store: Store, runIds: readonly string[]): Promise<RunRecord | null> {
  for (let i = runIds.length - 1; i >= 0; i -= 1) {
    const run = await store.getRun(runIds[i] as string);
    if (run) return run;
  }
  return null;
}
