import { RunError } from '../domain/run-error.js';
import type { RunMessage } from '../records/run-message.js';
import type { RunRecord, Store } from '../store/store.js';
import { isoAt, randomMessageId, type Clock, type IdSource } from './seams.js';
import type { RunSession } from './session.js';

/**
 * Steering (docs/approvals.md, "Steering"): a person's words added to a running or suspended run. The
 * store keeps a message from the moment it is accepted; the run reads the unread ones at the start of
 * its next model round, in whatever process drives it, and marks them read (its state's `steerSeq`) in
 * the same commit as that round. A crash before that commit leaves them unread: the round is asked
 * again and reads them then, once.
 */

/** The longest steering message, in characters. */
export const MAX_MESSAGE_CHARS = 4000;
/** How many steering messages may wait unread per run. */
export const MAX_PENDING_MESSAGES = 20;

/** Reads a run's messages after a seq (the store's `runMessages`). */
export type MessageReader = (runId: string, afterSeq: number) => Promise<RunMessage[]>;

/** What accepting a message needs. */
export interface SteerDeps {
  store: Store;
  clock: Clock;
  ids: IdSource;
}

/**
 * Keeps `text` as a steering message of `record`'s run. RunError REQUEST_INVALID for an empty text or
 * a store without messages, MESSAGE_TOO_LONG, RUN_ENDED for a run that has ended, TOO_MANY_MESSAGES
 * when the limit of unread ones already wait; nothing is kept then.
 */
export async function acceptMessage(
  deps: SteerDeps,
  record: RunRecord,
  text: string,
  who: string | null,
): Promise<RunMessage> {
  const runId = record.runId;
  if (text.trim() === '') throw new RunError('REQUEST_INVALID', 'the message text is empty', { runId });
  if (text.length > MAX_MESSAGE_CHARS)
    throw new RunError(
      'MESSAGE_TOO_LONG',
      `the message has ${text.length} characters; at most ${MAX_MESSAGE_CHARS} are taken`,
      { runId },
    );
  if (!deps.store.addRunMessage)
    throw new RunError('REQUEST_INVALID', 'this store keeps no steering messages', { runId });
  const result = await deps.store.addRunMessage(
    { runId, messageId: deps.ids.messageId?.() ?? randomMessageId(), text, who, at: isoAt(deps.clock()) },
    { afterSeq: record.state.run.steerSeq ?? 0, maxPending: MAX_PENDING_MESSAGES },
  );
  if ('added' in result) return result.added;
  if (result.refused === 'RUN_ENDED')
    throw new RunError('RUN_ENDED', `run ${runId} has ended; it takes no more messages`, { runId });
  throw new RunError(
    'TOO_MANY_MESSAGES',
    `run ${runId} already has ${MAX_PENDING_MESSAGES} messages it has not read yet; send more once it has`,
    { runId },
  );
}

/**
 * At the start of a model round: adds the run's unread messages to the conversation as the user's
 * words, traces each as `run.message` and marks them read — all buffered for the round's commit.
 */
export async function readMessages(
  session: RunSession,
  read: MessageReader | undefined,
  nodeId: string,
  round: number,
): Promise<void> {
  if (!read) return;
  const found = await read(session.runId, session.run.steerSeq ?? 0);
  // Parallel branches read at once: what another one took meanwhile is not taken twice.
  const fresh = found.filter((m) => m.seq > (session.run.steerSeq ?? 0));
  const last = fresh.at(-1);
  if (!last) return;
  for (const m of fresh) {
    session.addMessage({ role: 'user', content: m.text });
    session.emit({
      type: 'run.message',
      nodeId,
      round,
      messageId: m.messageId,
      messageSeq: m.seq,
      text: m.text,
      who: m.who,
      acceptedAt: m.at,
    });
  }
  session.run.steerSeq = last.seq;
  session.run.steerTexts = [...(session.run.steerTexts ?? []), ...fresh.map((m) => m.text)];
}
