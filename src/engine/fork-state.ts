import { canonicalJson } from '../domain/fingerprint.js';
import type { Flow } from '../domain/flow.js';
import type { Approval, EvidenceRecord, NodeState, OutputValue, PendingWrite } from '../records/run-state.js';
import { newNodeState } from '../records/run-state.js';
import type { RunStateDoc } from '../records/state-doc.js';
import { newLoopState } from '../records/loop-state.js';
import type { ConversationMessage } from '../model/model.js';
import type { RunRecord, StoredEvent, StoredMessage } from '../store/store.js';
import { evaluateCondition, evaluateMap } from '../tools/expressions.js';
import { idempotencyKey } from '../tools/guards/keys.js';

/**
 * Where a run can be forked: after a `tool.invoked` that ended its wave inside a node, where the node
 * went on to another round (so the state there is a round boundary, rebuilt exactly from the trace,
 * the stored conversation and the evidence). Not while a gated write waits for its approval, and not
 * in a node run taken up again by `retry`.
 */
export function forkPoints(events: readonly StoredEvent[]): number[] {
  const points: number[] = [];
  let gated = false;
  let retried = false;
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i] as StoredEvent;
    if (event.type === 'node.started') [gated, retried] = [false, false];
    else if (event.type === 'run.retried') retried = true;
    else if (event.type === 'run.resumed' && event.kind === 'APPROVAL') gated = false;
    if (event.type !== 'tool.invoked' || event.lookBack === true) continue;
    if (event.errorCode === 'APPROVAL_REQUIRED') gated = true;
    if (!gated && !retried && nextIsRound(events, i)) points.push(event.seq);
  }
  return points;
}

function nextIsRound(events: readonly StoredEvent[], i: number): boolean {
  const at = events[i] as StoredEvent;
  for (const next of events.slice(i + 1)) {
    if (next.type === 'react.stall' || next.type === 'tool.skipped') continue;
    if (next.type === 'tool.invoked' && next.lookBack === true) continue;
    return next.type === 'react.round' && next.nodeId === at.nodeId;
  }
  return false;
}

/** What a forked run starts with: its state document, the trace, conversation and evidence up to the fork point. */
export interface ForkState {
  doc: RunStateDoc;
  events: StoredEvent[];
  /** Every node run's conversation up to the fork point, keyed as stored (`<nodeId>#<n>`). */
  messages: StoredMessage[];
  evidence: EvidenceRecord[];
  outputs: Record<string, Record<string, unknown>>;
  nodeId: string;
}

/** What `forkState` reads of the source run. */
export interface ForkSource {
  record: RunRecord;
  events: StoredEvent[];
  evidence: EvidenceRecord[];
  /** The stored messages of one node run of the source. */
  messages(nodeRun: string): Promise<StoredMessage[]>;
}

/**
 * Rebuilds the state of `source` right after event `at` (one of `forkPoints`) for the run `runId`:
 * evidence, approvals (consumed as they were), follow-up answers, earlier nodes' outputs, and the node
 * run's counters, fingerprint counts, outputs, pending verifications and conversation. The new run's
 * model calls count from the fork (a scripted model's first turn answers its first call).
 */
export async function forkState(
  source: ForkSource,
  at: number,
  runId: string,
  flow: Flow,
): Promise<ForkState> {
  const events = source.events.filter((e) => e.seq <= at).map((e) => ({ ...e, runId }));
  const fork = events.at(-1) as StoredEvent;
  const nodeId = fork.nodeId as string;
  const nodeRuns = events.filter((e) => e.type === 'node.started').length;
  const nodeStart = events.findLastIndex((e) => e.type === 'node.started');
  const inNode = events.slice(nodeStart);
  const evidence = evidenceUpTo(source.evidence, events);
  const messages = await conversationUpTo(source, events, fork);
  const current = messages.filter((m) => m.nodeRun === `${nodeId}#${nodeRuns}`);
  const doc: RunStateDoc = {
    schema: 1,
    run: {
      runId,
      approvals: approvalsUpTo(source.record, events),
      inFlight: [],
      followUps: source.record.state.run.followUps.slice(0, count(events, 'FOLLOW_UP')),
      inputTexts: source.record.state.run.inputTexts,
      // The steering messages read before `at` (the fork reads no later one: it has none of its own).
      steerTexts: events.flatMap((e) =>
        e.type === 'run.message' ? [String((e as { text?: unknown }).text)] : [],
      ),
      nodeOutputs: outputsOf(events),
    },
    nodeId,
    nodeRuns,
    node: await nodeStateAt(nodeId, inNode, current, evidence, flow, source.record.runId),
    loop: newLoopState(),
    modelCalls: 0,
    forkedFrom: { runId: source.record.runId, seq: at },
  };
  return { doc, events, messages, evidence, outputs: doc.run.nodeOutputs, nodeId };
}

function count(events: readonly StoredEvent[], kind: 'FOLLOW_UP' | 'APPROVAL'): number {
  return events.filter((e) => e.type === 'run.resumed' && e.kind === kind).length;
}

function outputsOf(events: readonly StoredEvent[]): Record<string, Record<string, unknown>> {
  const outputs: Record<string, Record<string, unknown>> = {};
  for (const e of events)
    if (e.type === 'node.completed') outputs[e.nodeId as string] = e.outputs as Record<string, unknown>;
  return outputs;
}

/** The evidence records of calls traced up to the fork (a prefix: evidence is numbered in execution order). */
function evidenceUpTo(all: readonly EvidenceRecord[], events: readonly StoredEvent[]): EvidenceRecord[] {
  const cited = new Set(events.map((e) => e.evidenceId).filter((id): id is string => typeof id === 'string'));
  const calls = new Set(
    events
      .filter((e) => e.type === 'tool.invoked' && e.executed === true)
      .map((e) => String(e.callId).replace(/#lookback$/, '')),
  );
  let last = -1;
  all.forEach((record, i) => {
    if (cited.has(record.id) || calls.has(record.callId)) last = i;
  });
  return all.slice(0, last + 1);
}

/** The source's approvals granted up to the fork, each consumed when its write executed before the fork. */
function approvalsUpTo(record: RunRecord, events: readonly StoredEvent[]): Approval[] {
  const granted = events.filter(
    (e) => e.type === 'run.resumed' && e.kind === 'APPROVAL' && e.decision === 'approved',
  );
  const approvals = record.state.run.approvals.slice(0, granted.length);
  return approvals.map((a, i) => {
    const from = (granted[i] as StoredEvent).seq;
    const args = canonicalJson(a.args);
    const consumed = events.some(
      (e) =>
        e.seq > from &&
        e.type === 'tool.invoked' &&
        e.executed === true &&
        e.tool === a.tool &&
        canonicalJson(e.args ?? {}) === args,
    );
    return { ...a, consumed };
  });
}

/** Earlier node runs' conversations whole; the fork's node run up to the fork call's tool message. */
async function conversationUpTo(
  source: ForkSource,
  events: readonly StoredEvent[],
  fork: StoredEvent,
): Promise<StoredMessage[]> {
  const keys = events.filter((e) => e.type === 'node.started').map((e, i) => `${String(e.nodeId)}#${i + 1}`);
  const out: StoredMessage[] = [];
  for (const [i, key] of keys.entries()) {
    const messages = await source.messages(key);
    if (i < keys.length - 1) {
      out.push(...messages);
      continue;
    }
    const cut = messages.findIndex((m) => {
      const message = m.message as ConversationMessage;
      return message.role === 'tool' && message.callId === fork.callId;
    });
    if (cut < 0)
      throw new Error(`fork: the conversation of ${key} has no tool message for ${String(fork.callId)}`);
    out.push(...messages.slice(0, cut + 1));
  }
  return out;
}

/** The node run's state after the fork event, from its events, conversation and evidence. */
async function nodeStateAt(
  nodeId: string,
  events: readonly StoredEvent[],
  messages: readonly StoredMessage[],
  evidence: readonly EvidenceRecord[],
  flow: Flow,
  sourceRunId: string,
): Promise<NodeState> {
  const node = newNodeState(nodeId);
  const fork = events.at(-1) as StoredEvent;
  node.rounds = Number(fork.round ?? 0);
  for (const e of events) {
    if (e.type === 'tool.invoked' && e.outcome === 'SUCCESS' && e.lookBack !== true) node.stalls = 0;
    if (e.type === 'react.stall') node.stalls = Number(e.stalls);
    if (e.type === 'tool.invoked' && e.tool === 'builtin_output_set' && e.outcome === 'SUCCESS')
      setOutput(node, e);
  }
  for (const m of messages) {
    const counted = (m.message as { counted?: unknown }).counted;
    if (typeof counted === 'string')
      node.fingerprintCounts[counted] = (node.fingerprintCounts[counted] ?? 0) + 1;
  }
  const compactions = events.filter((e) => e.type === 'context.compacted');
  const lastCompaction = compactions.at(-1);
  if (lastCompaction)
    node.context = {
      stubbed: Number(lastCompaction.stubbedRounds),
      dropped: Number(lastCompaction.droppedRounds),
      compactions: compactions.length,
      last: null,
    };
  const calls = new Set(events.map((e) => e.callId));
  const own = evidence.filter((r) => r.nodeId === nodeId && calls.has(r.callId) && r.lookBack !== true);
  node.pendingWrites = await pendingAfter(own, flow, sourceRunId);
  return node;
}

function setOutput(node: NodeState, event: StoredEvent): void {
  const args = event.args as Record<string, unknown>;
  const result = event.result as { value?: unknown } | undefined;
  const value: OutputValue = {
    value: result && 'value' in result ? result.value : args.value,
    sourceType: args.sourceType as OutputValue['sourceType'],
    sourceRef: typeof args.sourceRef === 'string' ? args.sourceRef : null,
  };
  node.outputs[String(args.key)] = value;
}

/** The writes of the node run still awaiting verification: marked as the write gate marks them, cleared by their verify calls. */
async function pendingAfter(
  records: readonly EvidenceRecord[],
  flow: Flow,
  runId: string,
): Promise<PendingWrite[]> {
  let pending: PendingWrite[] = [];
  for (const r of records) {
    if (r.outcome !== 'SUCCESS') continue;
    const policy = flow.tools[r.tool];
    if (policy?.write === true) {
      if (!policy.pending || !policy.verify) continue;
      const scope = { args: r.args, result: r.payload, key: idempotencyKey(runId, r.fingerprint) };
      if (!(await evaluateCondition(policy.pending, { args: r.args, result: r.payload }))) continue;
      const verifyArgs = await evaluateMap(policy.verify.args ?? {}, scope);
      pending.push({
        tool: r.tool,
        fingerprint: r.fingerprint,
        verifyTool: policy.verify.tool,
        verifyArgs,
        done: policy.verify.done,
        scope,
      });
      continue;
    }
    const args = canonicalJson(r.args);
    const kept: PendingWrite[] = [];
    for (const p of pending) {
      const verifies = p.verifyTool === r.tool && canonicalJson(p.verifyArgs) === args;
      if (verifies && (await evaluateCondition(p.done, { ...p.scope, verify: r.payload }))) continue;
      kept.push(p);
    }
    pending = kept;
  }
  return pending;
}
