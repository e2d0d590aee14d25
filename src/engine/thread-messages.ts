import { ApprovalPendingSchema, type PendingItem } from '../records/pending.js';
import type { ThreadTurn } from '../records/run-state.js';
import { renderInput } from '../loop/conversation.js';
import type { Store, StoredEvent } from '../store/store.js';

/**
 * The messages of a thread (docs/threads.md), read from the trace of its runs — so they are exactly
 * what was committed, and a refused message leaves none.
 */

/** What a message of a thread is. */
export type ThreadMessageKind =
  /** The user's message that started a run. */
  | 'input'
  /** The user's answer to a follow-up question. */
  | 'answer'
  /** The person's decision on a gated write (`approved` or `rejected`, and the comment). */
  | 'decision'
  /** A follow-up question of the assistant. */
  | 'question'
  /** A gated write waiting for approval (its summary). */
  | 'approval'
  /** The run's reply (its answer to the person). */
  | 'reply'
  /** The run failed or was cancelled (the reason). */
  | 'failure';

/** One message of a thread: who said what, in which run, when. */
export interface ThreadMessage {
  role: 'user' | 'assistant';
  kind: ThreadMessageKind;
  text: string;
  runId: string;
  /** ISO 8601: when the message was committed. */
  at: string;
  /** For `approval`: the pending write (`{tool, args, summary, id, …}`), as the run summary shows it. */
  pending?: PendingItem;
}

/** The messages of the thread's runs (oldest first), from their events; runs that do not exist are skipped. */
export async function threadMessages(store: Store, runIds: readonly string[]): Promise<ThreadMessage[]> {
  const out: ThreadMessage[] = [];
  for (const runId of runIds) {
    for (const event of await store.events(runId)) {
      const message = messageOf(event);
      if (message) out.push(message);
    }
  }
  return out;
}

/** The message an event stands for, or null. */
export function messageOf(e: StoredEvent): ThreadMessage | null {
  const base = { runId: e.runId, at: e.ts };
  switch (e.type) {
    case 'run.started':
      return e.parentRunId ? null : { ...base, role: 'user', kind: 'input', text: renderInput(e.input) };
    case 'run.suspended': {
      const pending = (e.pending ?? {}) as Record<string, unknown>;
      if (e.kind === 'FOLLOW_UP')
        return { ...base, role: 'assistant', kind: 'question', text: textOf(pending.question) };
      // The event's pending item, checked against its record (an event is data: a malformed one shows no item).
      const approval = ApprovalPendingSchema.safeParse(e.pending);
      return {
        ...base,
        role: 'assistant',
        kind: 'approval',
        text: textOf(pending.summary),
        ...(approval.success ? { pending: approval.data } : {}),
      };
    }
    case 'run.resumed':
      if (e.kind === 'FOLLOW_UP' && typeof e.answer === 'string')
        return { ...base, role: 'user', kind: 'answer', text: e.answer };
      if (e.kind === 'APPROVAL' && typeof e.decision === 'string') {
        const comment = typeof e.comment === 'string' && e.comment !== '' ? `: ${e.comment}` : '';
        return { ...base, role: 'user', kind: 'decision', text: `${e.decision}${comment}` };
      }
      return null;
    case 'run.completed':
      return typeof e.reply === 'string'
        ? { ...base, role: 'assistant', kind: 'reply', text: e.reply }
        : null;
    case 'run.failed':
      return { ...base, role: 'assistant', kind: 'failure', text: textOf(e.message ?? e.reason) };
    case 'run.cancelled':
      return { ...base, role: 'assistant', kind: 'failure', text: 'cancelled' };
    default:
      return null;
  }
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** At most this many earlier turns, and about this many characters of them, start a run in a thread. */
const HISTORY_TURNS = 40;
const HISTORY_CHARS = 32_000;

/**
 * The earlier turns a new run of the thread starts with: what the user said and what the assistant
 * answered or asked (not the approvals and decisions, which the evidence and outcomes carry), the
 * newest kept when there are too many.
 */
export function historyOf(messages: readonly ThreadMessage[]): ThreadTurn[] {
  const turns = messages
    .filter((m) => m.kind === 'input' || m.kind === 'answer' || m.kind === 'question' || m.kind === 'reply')
    .map((m): ThreadTurn => ({ role: m.role, text: m.text }));
  const kept: ThreadTurn[] = [];
  let chars = 0;
  for (const turn of turns.reverse()) {
    if (kept.length >= HISTORY_TURNS || chars + turn.text.length > HISTORY_CHARS) break;
    kept.unshift(turn);
    chars += turn.text.length;
  }
  return kept;
}
