/** Builders and assertions shared by the Store contract cases. */
import { FlowSchema } from '../../domain/flow.js';
import type { EvidenceRecord } from '../../records/run-state.js';
import type { RunStateDoc } from '../../records/state-doc.js';
import {
  StoreError,
  type NewRun,
  type RunRecord,
  type Store,
  type StoredEvent,
  type StoredMessage,
} from '../../store/store.js';

/** A NewRun `runId` of flow `site-setup`, status `running`, with `fields` overriding any field. */
export function newRun(runId: string, fields: Partial<NewRun> = {}): NewRun {
  return {
    runId,
    parentRunId: null,
    rootRunId: runId,
    tenant: null,
    flowId: 'site-setup',
    flowVersion: '1',
    flow: FlowSchema.parse({ id: 'site-setup', nodes: [{ id: 'query' }, { id: 'create' }] }),
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
    state: runState(runId),
    leaseOwner: null,
    leaseExpiresAt: null,
    ...fields,
  };
}

/**
 * A valid state document of run `runId` (the store decodes what it reads), with `extra` fields at its
 * top level: the document is loose, so a store must keep them as they are.
 */
export function runState(runId: string, extra: Record<string, unknown> = {}): RunStateDoc {
  return {
    schema: 1,
    run: {
      runId,
      approvals: [],
      inFlight: [],
      followUps: [],
      inputTexts: ['create a site'],
      nodeOutputs: {},
    },
    nodeId: 'query',
    nodeRuns: 1,
    node: null,
    loop: { wave: null, suspended: null, resolved: null },
    modelCalls: 0,
    ...extra,
  };
}

/** A StoredEvent of run `runId` with sequence number `seq` (type `tool.invoked` unless given). */
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

/** A successful evidence record `ev_<n>` of tool `site_query`, with `fields` overriding any field. */
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

/** Message `index` of node run `nodeRun` (an assistant message). */
export function message(nodeRun: string, index: number, text = `m${index}`): StoredMessage {
  return { nodeRun, index, message: { role: 'assistant', content: text } };
}

/** Resolves when `promise` rejects with a StoreError carrying `code`; throws an Error saying what happened otherwise. */
export async function expectStoreError(promise: Promise<unknown>, code: StoreError['code']): Promise<void> {
  const error: unknown = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof StoreError))
    throw new Error(
      `expected a StoreError ${code}, got ${error === null ? 'success' : error instanceof Error ? error.message : JSON.stringify(error)}`,
      { cause: error },
    );
  if (error.code !== code)
    throw new Error(`expected StoreError code ${code}, got ${error.code}`, { cause: error });
}

/** A clock that moves one second per reading, so creation order is visible in timestamps. */
export function steppingClock(): () => Date {
  let t = Date.parse('2025-01-01T00:00:00Z');
  return () => new Date((t += 1000));
}

/** What the cases share: the store under test (fresh for each case) and a way to seed a run. */
export interface Harness {
  store: Store;
  /** Creates a run (default `r1`) with events 1..2 at version 1. */
  seed(runId?: string, fields?: Partial<NewRun>): Promise<RunRecord>;
}
