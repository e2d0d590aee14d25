/** Builders and assertions shared by the Store contract cases. */
import { expect } from 'vitest';
import type { EvidenceRecord } from '../../../src/domain/run-state.js';
import {
  StoreError,
  type NewRun,
  type RunRecord,
  type Store,
  type StoredEvent,
  type StoredMessage,
} from '../../../src/store/store.js';

export function newRun(runId: string, fields: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    parentRunId: null,
    rootRunId: runId,
    tenant: null,
    flowId: 'site-setup',
    flowVersion: '1',
    flow: { id: 'site-setup', nodes: [{ id: 'query' }, { id: 'create' }] },
    flowDir: '/flows',
    model: 'scripted:/turns.json',
    input: { text: 'create a site' },
    status: 'running',
    suspension: null,
    reason: null,
    failedNode: null,
    message: null,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    outputs: {},
    state: { approvals: [], inFlight: [] },
    leaseOwner: null,
    leaseExpiresAt: null,
    ...fields,
  };
}

export function event(
  runId: string,
  seq: number,
  type = 'tool.invoked',
  extra: Record<string, unknown> = {},
): StoredEvent {
  return {
    seq,
    ts: `2025-01-01T00:00:${String(seq).padStart(2, '0')}Z`,
    runId,
    type,
    nodeId: 'query',
    round: 1,
    ...extra,
  };
}

export function evidence(n: number, fields: Partial<EvidenceRecord> = {}): EvidenceRecord {
  return {
    id: `ev_${n}`,
    tool: 'site_query',
    args: { name: `s${n}` },
    fingerprint: `fp${n}`,
    outcome: 'SUCCESS',
    errorCode: null,
    payload: { rows: [n] },
    ts: '2025-01-01T00:00:00Z',
    nodeId: 'query',
    callId: `call_${n}`,
    ...fields,
  };
}

export function message(nodeRun: string, index: number, text = `m${index}`): StoredMessage {
  return { nodeRun, index, message: { role: 'assistant', content: text } };
}

/** Rejects with a StoreError carrying `code`. */
export async function expectStoreError(promise: Promise<unknown>, code: StoreError['code']): Promise<void> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreError);
  expect((error as StoreError).code).toBe(code);
}

/** A clock that moves one second per reading, so creation order is visible in timestamps. */
export function steppingClock(): () => Date {
  let t = Date.parse('2025-01-01T00:00:00Z');
  return () => new Date((t += 1000));
}

/** Registers the contract cases for one Store implementation. */

/** What the cases share: the store under test (fresh for each case) and a way to seed a run. */
export interface Harness {
  store: Store;
  /** Creates a run (default `r1`) with events 1..2 at version 1. */
  seed(runId?: string, fields?: Partial<NewRun>): Promise<RunRecord>;
}
