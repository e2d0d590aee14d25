import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import { checkExpected, pendingId, respondedItem, waitingFor } from '../../src/engine/pending-id.js';
import type { RunSession } from '../../src/engine/session.js';
import type { PendingItem, RunSuspension } from '../../src/records/pending.js';
import type { Branch, RunStateDoc } from '../../src/records/state-doc.js';
import type { RunRecord } from '../../src/store/store.js';

/**
 * Pending item ids (src/engine/pending-id.ts): stable per suspension, different for the next one, and
 * the `expect` check of a response (docs/api.md: 409 RUN_CONFLICT when the run waits for another item).
 */

/** The parts of a session `pendingId` reads. */
function session(runId: string, nodeId: string | null, nodeRuns: number): RunSession {
  return { runId, doc: { nodeId, nodeRuns } as RunStateDoc } as unknown as RunSession;
}

const approval = (id?: string): PendingItem => ({
  tool: 'refund',
  args: { amount: 5 },
  summary: 'refund',
  ...(id !== undefined ? { id } : {}),
});
const question = (id?: string): PendingItem => ({
  question: 'which?',
  options: null,
  ...(id !== undefined ? { id } : {}),
});

function record(suspension: RunSuspension | null, branches?: Partial<Branch>[]): RunRecord {
  return {
    runId: 'run_x',
    suspension,
    state: { ...(branches ? { branches } : {}) } as RunStateDoc,
  } as unknown as RunRecord;
}

function conflict(fn: () => void): RunError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunError) return error;
    throw error;
  }
  throw new Error('expected a RunError');
}

describe('pendingId', () => {
  it('is pnd_ and the first 16 hex digits of sha256(run, node run, call, kind)', () => {
    const digest = createHash('sha256').update('run_1\nwork#2\ncall_9\nAPPROVAL').digest('hex');
    expect(pendingId(session('run_1', 'work', 2), 'call_9', 'APPROVAL')).toBe(`pnd_${digest.slice(0, 16)}`);
  });

  it('is the same for the same suspension (a restart gives the same id)', () => {
    const a = pendingId(session('run_1', 'work', 1), 'call_1', 'FOLLOW_UP');
    const b = pendingId(session('run_1', 'work', 1), 'call_1', 'FOLLOW_UP');
    expect(a).toMatch(/^pnd_[0-9a-f]{16}$/);
    expect(b).toBe(a);
  });

  it('differs when any of run, node, node run, call or kind differs', () => {
    const base = pendingId(session('run_1', 'work', 1), 'call_1', 'APPROVAL');
    const others = [
      pendingId(session('run_2', 'work', 1), 'call_1', 'APPROVAL'),
      pendingId(session('run_1', 'other', 1), 'call_1', 'APPROVAL'),
      pendingId(session('run_1', 'work', 2), 'call_1', 'APPROVAL'),
      pendingId(session('run_1', 'work', 1), 'call_2', 'APPROVAL'),
      pendingId(session('run_1', 'work', 1), 'call_1', 'FOLLOW_UP'),
    ];
    expect(new Set([base, ...others]).size).toBe(6);
  });

  it('a run between nodes hashes its node as "-"', () => {
    const digest = createHash('sha256').update('run_1\n-#0\ncall_1\nAPPROVAL').digest('hex');
    expect(pendingId(session('run_1', null, 0), 'call_1', 'APPROVAL')).toBe(`pnd_${digest.slice(0, 16)}`);
  });
});

describe('waitingFor', () => {
  it('is the id of the pending item, or null when there is none', () => {
    expect(waitingFor(record({ kind: 'APPROVAL', pending: approval('pnd_1') }))).toBe('pnd_1');
    expect(waitingFor(record({ kind: 'FOLLOW_UP', pending: question() }))).toBeNull();
    expect(waitingFor(record(null))).toBeNull();
  });
});

describe('checkExpected', () => {
  it('lets a response without expect through, whatever the run waits for', () => {
    expect(checkExpected(record(null), undefined)).toBeUndefined();
    expect(
      checkExpected(record({ kind: 'APPROVAL', pending: approval('pnd_1') }), undefined),
    ).toBeUndefined();
  });

  it('lets the id the run waits for through', () => {
    expect(checkExpected(record({ kind: 'APPROVAL', pending: approval('pnd_1') }), 'pnd_1')).toBeUndefined();
  });

  it('refuses another id: RUN_CONFLICT naming both', () => {
    const error = conflict(() =>
      checkExpected(record({ kind: 'APPROVAL', pending: approval('pnd_1') }), 'pnd_0'),
    );
    expect(error.code).toBe('RUN_CONFLICT');
    expect(error.runId).toBe('run_x');
    expect(error.message).toBe('run run_x waits for pending item pnd_1, not for pnd_0');
  });

  it('refuses any id for a run waiting for an item without one, or not suspended', () => {
    expect(
      conflict(() => checkExpected(record({ kind: 'FOLLOW_UP', pending: question() }), 'pnd_1')).message,
    ).toBe('run run_x waits for an item without an id, not for pnd_1');
    expect(conflict(() => checkExpected(record(null), 'pnd_1')).code).toBe('RUN_CONFLICT');
  });

  it('accepts the id of any suspended parallel branch, not of a branch that goes on', () => {
    const suspension: RunSuspension = { kind: 'APPROVAL', pending: approval('pnd_a') };
    const branches: Partial<Branch>[] = [
      {
        loop: { suspended: { callId: 'c1' } } as Branch['loop'],
        suspension: { kind: 'APPROVAL', pending: approval('pnd_a') },
      },
      {
        loop: { suspended: { callId: 'c2' } } as Branch['loop'],
        suspension: { kind: 'FOLLOW_UP', pending: question('pnd_b') },
      },
      {
        loop: { suspended: null } as Branch['loop'],
        suspension: { kind: 'FOLLOW_UP', pending: question('pnd_c') },
      },
    ];
    expect(checkExpected(record(suspension, branches), 'pnd_b')).toBeUndefined();
    expect(conflict(() => checkExpected(record(suspension, branches), 'pnd_c')).message).toBe(
      'run run_x waits for pending item pnd_a, not for pnd_c',
    );
  });
});

describe('respondedItem', () => {
  const items: RunSuspension = {
    kind: 'APPROVAL',
    pending: approval('pnd_a'),
    items: [
      { kind: 'APPROVAL', nodeId: 'left', pending: approval('pnd_a') },
      { kind: 'FOLLOW_UP', nodeId: 'right', pending: question('pnd_b') },
    ],
  };

  it('is null for a run that is not suspended', () => {
    expect(respondedItem(record(null), undefined)).toBeNull();
    expect(respondedItem(record(null), 'pnd_a')).toBeNull();
  });

  it('is the item expect names among the items, with its own kind', () => {
    expect(respondedItem(record(items), 'pnd_b')).toEqual({ kind: 'FOLLOW_UP', pending: question('pnd_b') });
  });

  it('is the first item without expect, or with an expect naming none', () => {
    const first = { kind: 'APPROVAL', pending: approval('pnd_a') };
    expect(respondedItem(record(items), undefined)).toEqual(first);
    expect(respondedItem(record(items), 'pnd_zzz')).toEqual(first);
  });

  it('is the pending item of a run without items', () => {
    expect(respondedItem(record({ kind: 'FOLLOW_UP', pending: question('pnd_q') }), 'pnd_q')).toEqual({
      kind: 'FOLLOW_UP',
      pending: question('pnd_q'),
    });
  });
});
