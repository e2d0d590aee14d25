import type { PendingItem, RunSuspension } from '../records/pending.js';
import type { RunStateDoc } from '../records/state-doc.js';

/**
 * A pending item is kept twice while the run waits: in the run's suspension (`pending` and `items`, what
 * the API shows and responses are checked against) and, in a flow with parallel branches, in the
 * suspension of the branch that waits for it (from which the run's suspension is built again whenever
 * the run suspends). A mark on the item — approvers' votes, an expiry's `escalatedAt` — goes to both,
 * or it is lost as soon as another branch's response drives the run on. Returns the run's suspension
 * marked; the branches of `doc` are marked in place.
 */
export function markPending(
  suspension: RunSuspension,
  doc: RunStateDoc,
  id: string,
  change: (item: PendingItem) => PendingItem,
): RunSuspension {
  const mark = (item: PendingItem): PendingItem => (item.id === id ? change(item) : item);
  for (const branch of doc.branches ?? []) {
    if (branch.suspension)
      branch.suspension = { ...branch.suspension, pending: mark(branch.suspension.pending) };
  }
  return {
    ...suspension,
    pending: mark(suspension.pending),
    ...(suspension.items ? { items: suspension.items.map((i) => ({ ...i, pending: mark(i.pending) })) } : {}),
  };
}
