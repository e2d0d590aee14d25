import { createHash } from 'node:crypto';
import { nodeRunKey } from '../records/state-doc.js';
import type { RunRecord } from '../store/store.js';
import type { PendingItem } from '../records/pending.js';
import { runConflict } from '../domain/run-error.js';
import type { RunSession } from './session.js';

/**
 * The stable id of a suspension's pending item: `pnd_` and 16 hex digits of a hash of the run, the
 * node run, the suspending call and the kind. The same suspension always has the same id (also after
 * a restart); the next approval or question of the run has another one, so a late response naming
 * the previous item is refused instead of answering the next.
 */
export function pendingId(session: RunSession, callId: string, kind: string): string {
  const digest = createHash('sha256')
    .update(`${session.runId}\n${nodeRunKey(session.doc)}\n${callId}\n${kind}`)
    .digest('hex');
  return `pnd_${digest.slice(0, 16)}`;
}

/** The id of the item a stored run waits for, or null (not suspended, or suspended before ids existed). */
export function waitingFor(record: RunRecord): string | null {
  const pending = record.suspension?.pending;
  return typeof pending?.id === 'string' ? pending.id : null;
}

/**
 * Refuses a response that names (`expect`) another pending item than the one(s) the run waits for
 * (RunError RUN_CONFLICT: exit 4, HTTP 409, nothing changed). No `expect`: nothing to check.
 */
export function checkExpected(record: RunRecord, expect: string | undefined): void {
  if (expect === undefined) return;
  const id = waitingFor(record);
  if (id === expect) return;
  // Parallel branches may wait on several items at once: any of them may be answered.
  if (record.state.branches?.some((b) => b.loop.suspended && b.suspension?.pending.id === expect)) return;
  const now = id === null ? 'an item without an id' : `pending item ${id}`;
  throw runConflict(record.runId, `run ${record.runId} waits for ${now}, not for ${expect}`);
}

/**
 * The item a response is for: among the items a run waits for (several when parallel branches wait
 * at once), the one `expect` names, else the first. Null when the run is not suspended. An `expect`
 * naming no item gives the first too (`checkExpected` refuses it).
 */
export function respondedItem(
  record: RunRecord,
  expect: string | undefined,
): { kind: 'APPROVAL' | 'FOLLOW_UP' | 'TASK'; pending: PendingItem } | null {
  const suspension = record.suspension;
  if (!suspension) return null;
  const named = expect === undefined ? undefined : suspension.items?.find((i) => i.pending.id === expect);
  return named
    ? { kind: named.kind, pending: named.pending }
    : { kind: suspension.kind, pending: suspension.pending };
}
