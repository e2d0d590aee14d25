import { approvalExpiryOf, type ApprovalExpiry } from '../domain/flow-approval.js';
import { hint } from '../domain/hints.js';
import { RunError } from '../domain/run-error.js';
import { markPending } from '../engine/pending-marks.js';
import type { Logger } from '../log/logger.js';
import type { z } from 'zod';
import type { ApprovalPendingSchema, RunSuspension, WaitingItem } from '../records/pending.js';
import { isVersionConflict, type RunRecord, type Store, type StoredEvent } from '../store/store.js';
import { startPeriodicPass, suspendedTopLevelHeads, type PeriodicPass } from './periodic-pass.js';
import type { Runtime } from './runtime.js';

/** How many suspended runs one pass looks at (the newest first). */
const SCAN_LIMIT = 1000;

/** Who a rejection by expiry is recorded as (`run.resumed.who`). */
export const EXPIRY_WHO = 'expiry';

/** A background task firing approval deadlines; `tick` runs one pass now (tests). */
export type ExpiryTimer = PeriodicPass;

interface Due {
  nodeId: string;
  pending: z.infer<typeof ApprovalPendingSchema> & { id: string; expiresAt: string };
}

/**
 * Fires approval deadlines (docs/notifications.md, "Expiry"), now and every `intervalMs`: an approval
 * whose `expiresAt` has passed is claimed by one process with a compare-and-set commit (the item gets
 * `expiredAt`, the trace `approval.expired` or `approval.escalated`), then — `onExpiry: reject`, the
 * default — rejected with a reason the model reads, like a person's rejection. The deadline lives in the
 * run's record, so any `serve` or `worker` fires it, also when the process that suspended the run died;
 * a claim left without its rejection (a crash between the two) is rejected by the next pass.
 */
export function startExpiryTimer(
  runtime: Runtime,
  options: { intervalMs: number; logger: Logger },
): ExpiryTimer {
  const busy = new Set<string>();
  return startPeriodicPass(
    async (stopped) => {
      const store = await runtime.db();
      const now = runtime.clock();
      for (const runId of await dueRuns(store, now)) {
        if (stopped() || busy.has(runId)) continue;
        busy.add(runId);
        try {
          await fire(runtime, store, runId, now, options.logger);
        } finally {
          busy.delete(runId);
        }
      }
    },
    { ...options, failure: 'APPROVAL expiry pass failed' },
  );
}

/** Ids of suspended runs with an approval past its deadline (read from the heads, no state loaded). */
async function dueRuns(store: Store, now: number): Promise<string[]> {
  // A delegated child's item is also its parent's: it is answered through the top-level run.
  const heads = await suspendedTopLevelHeads(store, SCAN_LIMIT);
  return heads
    .filter((h) => h.suspension && dueItems(h.suspension, null, now).length > 0)
    .map((h) => h.runId);
}

/** The approvals of a suspension whose deadline is at or before `now`. */
function dueItems(suspension: RunSuspension, nodeId: string | null, now: number): Due[] {
  const items: WaitingItem[] = suspension.items ?? [
    { kind: suspension.kind, nodeId: nodeId ?? '', pending: suspension.pending },
  ];
  return items.flatMap((item) => {
    const p = item.pending as Partial<Due['pending']>;
    // An escalated item keeps waiting for a person: it is not due again.
    if (item.kind !== 'APPROVAL' || !p.id || !p.tool || !p.expiresAt || p.escalatedAt) return [];
    return Date.parse(p.expiresAt) <= now ? [{ nodeId: item.nodeId, pending: p as Due['pending'] }] : [];
  });
}

async function fire(
  runtime: Runtime,
  store: Store,
  runId: string,
  now: number,
  logger: Logger,
): Promise<void> {
  const record = await store.getRun(runId);
  if (!record?.suspension || record.status !== 'suspended') return;
  for (const due of dueItems(record.suspension, record.state.nodeId, now)) {
    const expiry = await expiryPolicy(store, record, due.pending.tool);
    const escalate = expiry?.onExpiry === 'escalate';
    if (due.pending.expiredAt === undefined) {
      const claimed = await claim(store, record, due, now, expiry?.escalateTo ?? [], escalate);
      if (!claimed) return; // another process claimed it, or the run moved on: the next pass looks again
      logger.info(`APPROVAL expired (${escalate ? 'escalated' : 'rejected'})`, {
        runId,
        pendingId: due.pending.id,
      });
    }
    if (escalate) continue;
    const after = expiry?.expiresAfter ?? '';
    try {
      await runtime.reject(runId, {
        expect: due.pending.id,
        who: EXPIRY_WHO,
        comment: hint(record.flow.locale, 'APPROVAL_EXPIRED', { after }),
      });
    } catch (error) {
      // Another process rejects it, or a person decided first: expected, not worth a log line.
      if (!(error instanceof RunError && error.code === 'RUN_CONFLICT')) throw error;
    }
    return; // the run moved on: another item due is handled from its new record by the next pass
  }
}

/**
 * The tool's expiry policy: in the run's flow, or — for an item a delegated child waits for — in the flow
 * of the child (and its children) that suspended it.
 */
async function expiryPolicy(store: Store, record: RunRecord, tool: string): Promise<ApprovalExpiry | null> {
  let run: RunRecord | null = record;
  for (let depth = 0; run && depth < 8; depth++) {
    const childRunId = run.state.loop.suspended?.childRunId;
    if (!childRunId) return approvalExpiryOf(run.flow.tools[tool]);
    run = await store.getRun(childRunId);
  }
  return null;
}

/**
 * Marks the item expired and traces it, at the run's version: true when this process won the claim.
 * A person's decision (or another process) that changed the run first makes it false, nothing changed.
 */
async function claim(
  store: Store,
  record: RunRecord,
  due: Due,
  now: number,
  escalateTo: string[],
  escalate: boolean,
): Promise<boolean> {
  const ts = new Date(now).toISOString();
  // On the branch's item too, or another branch's response would drop the mark (and escalate it again).
  const state = structuredClone(record.state);
  const marked = markPending(record.suspension as RunSuspension, state, due.pending.id, (pending) => ({
    ...pending,
    [escalate ? 'escalatedAt' : 'expiredAt']: ts,
  }));
  const base = {
    seq: record.lastSeq + 1,
    ts,
    runId: record.runId,
    nodeId: due.nodeId,
    pendingId: due.pending.id,
    tool: due.pending.tool,
    expiresAt: due.pending.expiresAt,
  };
  const event: StoredEvent = escalate
    ? { ...base, type: 'approval.escalated', escalateTo }
    : { ...base, type: 'approval.expired' };
  try {
    await store.commit({
      runId: record.runId,
      expectedVersion: record.version,
      patch: { suspension: marked, state },
      events: [event],
    });
    return true;
  } catch (error) {
    if (isVersionConflict(error)) return false;
    throw error;
  }
}

/** The default interval of the expiry pass, ms. */
export const EXPIRY_POLL_MS = 5000;

/**
 * The interval of the expiry pass: env `AGENT_RUNTIME_EXPIRY_POLL_MS` (a whole number of ms from 50), else
 * EXPIRY_POLL_MS. An approval expires at most this long after its deadline.
 */
export function expiryPollMs(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env.AGENT_RUNTIME_EXPIRY_POLL_MS;
  if (raw === undefined || raw === '') return EXPIRY_POLL_MS;
  const ms = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(ms >= 50))
    throw new Error(`AGENT_RUNTIME_EXPIRY_POLL_MS must be a number of ms ≥ 50, not ${JSON.stringify(raw)}`);
  return ms;
}
