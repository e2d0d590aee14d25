import type { NodeState, RunState, ThreadTurn } from '../domain/run-state.js';
import type { LoopState } from '../loop/loop-state.js';

/**
 * The small mutable state of a run as persisted in its row (`RunRecord.state`). Evidence and the
 * conversation live in their own append-only tables, so a step never re-serialises history.
 */
export interface RunStateDoc {
  schema: 1;
  run: Omit<RunState, 'evidence'>;
  /** The node being run; null once the run has completed or was cancelled (a failed run keeps its failed node for `retry`). */
  nodeId: string | null;
  /** How many node runs have started (the current one's key is `<nodeId>#<nodeRuns>`). */
  nodeRuns: number;
  node: NodeState | null;
  loop: LoopState;
  /** The run's model calls so far, across nodes and processes. */
  modelCalls: number;
  /** What the run's own model calls cost so far, from the flow's `prices` (absent: nothing priced yet). */
  cost?: number;
  /** For a delegated child run: the parent's delegate call that started it. */
  parentCallId?: string;
  /** The run's trace context (W3C traceparent) when telemetry is on, so every process joins one trace. */
  traceparent?: string;
  /**
   * Set when a cancel arrived while a write of the run was in flight: the driver records that write's
   * result, starts nothing new and ends the run `cancelled` (engine/cancel.ts).
   */
  cancelRequested?: true;
  /** For a forked run (docs/evals.md, "Fork"): the run and the event it continues from. */
  forkedFrom?: { runId: string; seq: number };
  /**
   * The answer to the person of the last node that completed (its finish summary or text answer);
   * the run summary's `reply` once the run completed. Absent: that node gave none.
   */
  reply?: string;
  /**
   * For a run in a thread (docs/threads.md): the thread's id and the earlier turns the run's
   * conversations start with, fixed when the run was created.
   */
  thread?: { id: string; history: ThreadTurn[] };
}

/** The key of the current node run's conversation. */
export function nodeRunKey(doc: RunStateDoc): string {
  return `${doc.nodeId ?? '-'}#${doc.nodeRuns}`;
}
