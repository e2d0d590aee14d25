import { StoreError, type Commit, type NewRun, type RunPatch, type StoredEvent } from './store.js';

/** The fields of `RunPatch`, the only ones a commit may change (anything else in a patch is ignored). */
export const PATCH_FIELDS = [
  'status',
  'suspension',
  'reason',
  'failedNode',
  'message',
  'usage',
  'outputs',
  'state',
  'model',
  'leaseOwner',
  'leaseExpiresAt',
] as const satisfies readonly (keyof RunPatch)[];

/** Whether a patch sets a field (a field present but `undefined` does not). */
export function patches(patch: RunPatch, field: keyof RunPatch): boolean {
  return Object.hasOwn(patch, field) && patch[field] !== undefined;
}

/**
 * Checks a batch of events for a run whose highest seq is `lastSeq`: each belongs to the run and has an
 * integer seq above the previous one. Returns the new highest seq. Throws StoreError `INVALID_APPEND`.
 */
export function checkEvents(runId: string, lastSeq: number, events: readonly StoredEvent[]): number {
  let last = lastSeq;
  for (const event of events) {
    if (event.runId !== runId) {
      throw new StoreError(
        'INVALID_APPEND',
        `event seq ${event.seq} belongs to run ${event.runId}, not ${runId}`,
      );
    }
    if (!Number.isSafeInteger(event.seq) || event.seq <= last) {
      throw new StoreError('INVALID_APPEND', `event seq ${event.seq} of run ${runId} is not above ${last}`);
    }
    last = event.seq;
  }
  return last;
}

/** Checks the shape of a new run before it is stored. Throws StoreError `INVALID_APPEND`. */
export function checkNewRun(run: NewRun, events: readonly StoredEvent[]): number {
  if (typeof run.runId !== 'string' || run.runId === '') {
    throw new StoreError('INVALID_APPEND', 'a run needs a non-empty runId');
  }
  return checkEvents(run.runId, 0, events);
}

/**
 * Checks what a commit appends against itself (duplicates inside the batch, keys of the right type);
 * duplicates against what is stored are each store's job. Throws StoreError.
 */
export function checkBatch(commit: Commit): void {
  const messageKeys = new Set<string>();
  for (const m of commit.messages ?? []) {
    if (typeof m.nodeRun !== 'string' || !Number.isSafeInteger(m.index) || m.index < 0) {
      throw new StoreError(
        'INVALID_APPEND',
        `message ${m.nodeRun}[${m.index}] needs a nodeRun and an index >= 0`,
      );
    }
    const key = `${m.nodeRun}\u0000${m.index}`;
    if (messageKeys.has(key)) throw duplicateMessage(commit.runId, m.nodeRun, m.index);
    messageKeys.add(key);
  }
  const evidenceIds = new Set<string>();
  for (const e of commit.evidence ?? []) {
    if (typeof e.id !== 'string' || e.id === '') {
      throw new StoreError('INVALID_APPEND', `evidence of run ${commit.runId} needs an id`);
    }
    if (evidenceIds.has(e.id)) throw duplicateEvidence(commit.runId, e.id);
    evidenceIds.add(e.id);
  }
}

/** The error for a message key already present. */
export function duplicateMessage(runId: string, nodeRun: string, index: number): StoreError {
  return new StoreError('DUPLICATE', `run ${runId} already has message ${index} of node run ${nodeRun}`);
}

/** The error for an evidence id already present. */
export function duplicateEvidence(runId: string, id: string): StoreError {
  return new StoreError('DUPLICATE', `run ${runId} already has evidence ${id}`);
}

/** The error for a run id already present. */
export function duplicateRun(runId: string): StoreError {
  return new StoreError('DUPLICATE', `run ${runId} already exists`);
}

/** The error for an unknown run. */
export function runNotFound(runId: string): StoreError {
  return new StoreError('RUN_NOT_FOUND', `no run ${runId}`);
}

/** The error for a call after `close()`. */
export function storeClosed(): StoreError {
  return new StoreError('CLOSED', 'the store is closed');
}
