import type { InFlightWrite } from '../records/run-state.js';
import type { ModelClient } from '../model/model.js';
import type { RunRecord, Store } from '../store/store.js';
import { isVersionConflict } from '../store/store.js';
import { RunError, runConflict } from '../domain/run-error.js';
import { summarize, type RunSummary } from '../records/summary.js';
import { pause, type Clock } from './seams.js';

/** What cancelling needs from the runtime. */
export interface CancelHost {
  store(): Promise<Store>;
  read(runId: string): Promise<RunRecord>;
  /** The local driver of the run, if this process drives it: stop it and wait for it. */
  localDriver(runId: string): { stop(): void; done: Promise<unknown> } | undefined;
  /** Takes over a run no live lease holds and settles its write in flight (then it ends cancelled). */
  takeOver(runId: string): Promise<unknown>;
  /**
   * Ends the run `cancelled` (`run.cancelled`) through a session at the version read, delivering the
   * event like every commit; StoreError VERSION_CONFLICT when the run moved meanwhile.
   */
  endRun(record: RunRecord): Promise<RunSummary>;
  clock: Clock;
  /** How often to look again while another process settles a write in flight (ms). */
  pollMs: number;
  /** How long to wait for that at most (ms). */
  waitMs: number;
}

const ENDED = ['completed', 'failed', 'cancelled'];

/** The writes a stored run has marked in flight. */
export function inFlightOf(record: RunRecord): readonly InFlightWrite[] {
  return record.state.run.inFlight;
}

/**
 * Cancels a run that has not ended, never leaving a sent write unrecorded:
 * - no write marked in flight (what is stored at the version the cancel commits at): the run ends
 *   `cancelled` at once; a driver elsewhere fails its next commit, so nothing new starts (a write's
 *   in-flight mark is such a commit);
 * - a write in flight: a cancel request is recorded; the driver (here, or in another process) records
 *   the write's result as usual, starts nothing new and ends the run `cancelled` (`run.cancelled`
 *   after the write's `tool.invoked`); when its driver is dead (lease expired), this cancel takes the
 *   run over and settles the write with the usual look-back first.
 * Throws RunError RUN_CONFLICT when the run had already ended, or when another process is still settling
 * the write after `waitMs` (the request stands: that process ends the run).
 */
export async function cancelRun(host: CancelHost, runId: string): Promise<RunSummary> {
  const deadline = host.clock() + host.waitMs;
  let requested = false;
  for (;;) {
    const record = await host.read(runId);
    if (ENDED.includes(record.status)) {
      if (requested && record.status === 'cancelled') return summarize(record);
      throw runConflict(runId, `run ${runId} has already ended (${record.status})`);
    }
    const local = host.localDriver(runId);
    try {
      if (inFlightOf(record).length === 0 || record.status !== 'running') {
        const summary = await host.endRun(record);
        local?.stop();
        return summary;
      }
      if (record.state.cancelRequested !== true) await requestCancel(host, record);
      requested = true;
    } catch (error) {
      if (isVersionConflict(error)) continue;
      throw error;
    }
    await waitForDriver(host, record, local, deadline);
  }
}

async function waitForDriver(
  host: CancelHost,
  record: RunRecord,
  local: ReturnType<CancelHost['localDriver']>,
  deadline: number,
): Promise<void> {
  if (local) {
    local.stop();
    await local.done.catch(() => undefined); // its failure is the driver's to report; the loop re-reads
    return;
  }
  const live =
    record.leaseOwner !== null && record.leaseExpiresAt !== null && record.leaseExpiresAt > host.clock();
  if (!live) {
    await host.takeOver(record.runId).catch((error: unknown) => {
      if (!(error instanceof RunError && error.code === 'RUN_CONFLICT')) throw error; // another process took it first: look again
    });
    return;
  }
  if (host.clock() > deadline) {
    throw runConflict(
      record.runId,
      `run ${record.runId} has a write in flight that its driver is still settling; the cancel is recorded and ends the run once the write's result is`,
    );
  }
  await pause(host.pollMs);
}

/** Records the cancel request in the run's state (no event, no lease change: the driver adopts it). */
async function requestCancel(host: CancelHost, record: RunRecord): Promise<void> {
  const state = { ...record.state, cancelRequested: true as const };
  await (
    await host.store()
  ).commit({ runId: record.runId, expectedVersion: record.version, patch: { state } });
}

/**
 * Ends a run whose driver stopped on a cancel request: `cancelled` unless it ended otherwise
 * meanwhile (then its summary as it stands).
 */
export async function endCancelled(
  host: Pick<CancelHost, 'endRun' | 'read'>,
  runId: string,
): Promise<RunSummary> {
  for (;;) {
    const record = await host.read(runId);
    if (ENDED.includes(record.status)) return summarize(record);
    try {
      return await host.endRun(record);
    } catch (error) {
      if (!isVersionConflict(error)) throw error;
    }
  }
}

/**
 * The model of a drive that only settles a write in flight before the run ends `cancelled`: that drive
 * is stopped from its start, so the model is never asked; if it were, the call fails.
 */
export const settlingModel: ModelClient = {
  id: 'cancel:settling',
  call: () => Promise.resolve({ ok: false, message: 'the run is being cancelled; no model call starts' }),
};
