/**
 * Folds a run's trace events (docs/trace.md) into what the run page shows: the nodes with their status
 * and stall counter, and per node a timeline of rounds (model text, tool calls with their
 * observations) and suspensions with who decided and when. Pure: the same events give the same view.
 */
import type { Pending, TraceEvent } from './api.js';
import { graphEnded, graphStarted, runOf } from './trace-graph.js';
import { addUsage, noUsage, usageOf } from './usage.js';
import {
  OUTCOMES,
  type CallView,
  type NodeView,
  type Outcome,
  type RoundView,
  type RunView,
  type SuspensionView,
  type TimelineItem,
} from './run-view.js';

export * from './run-view.js';

/**
 * Splits an observation message into reason and next step at "。下一步：" (zh-CN) or ". Next: " (en),
 * as docs/observations.md joins them. A success summary has no next step.
 */
export function splitMessage(message: string): { reason: string; next: string | null } {
  for (const [marker, end] of [
    ['。下一步：', '。'],
    ['. Next: ', '.'],
  ] as const) {
    const at = message.indexOf(marker);
    if (at >= 0) return { reason: message.slice(0, at) + end, next: message.slice(at + marker.length) };
  }
  return { reason: message, next: null };
}

/** The latest suspension of the run (resolved or not), for the page's decision card. */
export function latestSuspension(view: RunView): SuspensionView | null {
  let found: SuspensionView | null = null;
  for (const node of view.nodes) {
    for (const item of node.items) {
      if (item.kind === 'suspension' && (found === null || item.seq > found.seq)) found = item;
    }
  }
  return found;
}

/** Every evidence id the trace has shown, with the call that produced it. */
export function evidenceIndex(view: RunView): Map<string, CallView> {
  const index = new Map<string, CallView>();
  for (const node of view.nodes) {
    for (const item of node.items) {
      if (item.kind !== 'round') continue;
      for (const call of item.calls)
        if (call.evidenceId && call.executed && !index.has(call.evidenceId)) index.set(call.evidenceId, call);
    }
  }
  return index;
}

/** Folds events (in seq order; duplicates and old seqs are ignored) into a new view. */
export function foldEvents(view: RunView, events: readonly TraceEvent[]): RunView {
  const next = structuredClone(view);
  for (const event of events) {
    if (event.seq <= next.lastSeq) continue;
    apply(next, event);
    next.lastSeq = event.seq;
  }
  return next;
}

function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

function apply(view: RunView, e: TraceEvent): void {
  switch (e.type) {
    case 'run.started':
      view.flowId = str(e.flowId);
      view.flowVersion = str(e.flowVersion);
      view.input = e.input;
      view.parentRunId = str(e.parentRunId);
      return;
    case 'node.started':
      view.nodes.push({
        id: e.nodeId ?? '?',
        status: 'running',
        items: [],
        stalls: 0,
        maxStalls: num(e.maxStalls),
        maxRounds: num(e.maxRounds),
        usage: noUsage(),
        outputs: null,
        failure: null,
        from: [],
        itemOf: null,
        itemIndex: null,
        nodeRun: null,
      });
      graphStarted(view, view.nodes.length - 1, e);
      return;
    case 'run.completed':
    case 'run.failed':
    case 'run.cancelled':
      view.ending = { type: e.type, reason: str(e.reason), message: str(e.message), ts: e.ts };
      return;
    case 'run.resumed':
      resumed(view, e);
      return;
    case 'run.retried': {
      // A failed run taken up again: it has not ended, and its failed node runs again.
      view.ending = null;
      const node = nodeOf(view, e);
      if (node) {
        node.status = 'running';
        node.failure = null;
      }
      return;
    }
    default:
      applyNodeEvent(view, e);
  }
}

function applyNodeEvent(view: RunView, e: TraceEvent): void {
  const node = nodeOf(view, e);
  if (!node) return;
  switch (e.type) {
    case 'react.round': {
      // A call's progress is committed while it runs, before its round's events (committed with the
      // call's result): the round it created then is this one.
      const round = num(e.round) ?? 0;
      const last = node.items.at(-1);
      if (last?.kind === 'round' && last.round === round && last.text === '' && last.usage === null)
        last.seq = Math.min(last.seq, e.seq);
      else node.items.push(newRound(e.seq, round));
      node.status = 'running';
      return;
    }
    case 'phase.hint':
      roundOf(node, e).hint = str(e.text);
      return;
    case 'run.message':
      roundOf(node, e).messages.push({ text: str(e.text) ?? '', who: str(e.who) });
      return;
    case 'model.response':
      modelResponse(roundOf(node, e), e);
      addUsage(node.usage, usageOf(e.usage));
      addUsage(view.usage, usageOf(e.usage));
      return;
    case 'react.no_tool_calls':
      roundOf(node, e).noToolCalls = true;
      return;
    case 'tool.invoked':
      toolInvoked(node, roundOf(node, e), e);
      return;
    case 'tool.progress':
      callOf(roundOf(node, e), str(e.callId) ?? '', str(e.tool) ?? '', e.seq).progress = {
        progress: num(e.progress) ?? 0,
        total: num(e.total),
        message: str(e.message),
      };
      return;
    case 'tool.skipped':
      callOf(roundOf(node, e), str(e.callId) ?? '', str(e.tool) ?? '', e.seq).skipped = true;
      return;
    case 'react.stall':
      node.stalls = num(e.stalls) ?? node.stalls + 1;
      node.maxStalls = num(e.maxStalls) ?? node.maxStalls;
      roundOf(node, e).stall = { stalls: node.stalls, maxStalls: node.maxStalls ?? 0 };
      return;
    case 'run.suspended':
      suspended(node, e);
      return;
    case 'approval.escalated':
      escalated(node, e);
      return;
    case 'node.completed':
      node.status = 'completed';
      node.outputs = (e.outputs as Record<string, unknown> | undefined) ?? {};
      graphEnded(view, view.nodes.indexOf(node));
      return;
    case 'node.failed':
      node.status = 'failed';
      node.failure = { reason: str(e.reason) ?? '', message: str(e.message) ?? '' };
      graphEnded(view, view.nodes.indexOf(node));
      return;
    default:
  }
}

/** The node run an event belongs to (trace-graph.ts: parallel branches may run at once). */
function nodeOf(view: RunView, e: TraceEvent): NodeView | undefined {
  return runOf(view, e);
}

function newRound(seq: number, round: number): RoundView {
  return {
    kind: 'round',
    seq,
    round,
    text: '',
    hint: null,
    messages: [],
    calls: [],
    usage: null,
    noToolCalls: false,
    stall: null,
  };
}

/** The node's round of the event (created when the trace starts in the middle of one). */
function roundOf(node: NodeView, e: TraceEvent): RoundView {
  const round = num(e.round);
  for (let i = node.items.length - 1; i >= 0; i--) {
    const item = node.items[i] as TimelineItem;
    if (item.kind === 'round' && (round === null || item.round === round)) return item;
  }
  const created = newRound(e.seq, round ?? 0);
  node.items.push(created);
  return created;
}

function callOf(round: RoundView, callId: string, tool: string, seq: number): CallView {
  let call = round.calls.find((c) => c.callId === callId);
  if (!call) {
    call = {
      callId,
      tool,
      args: null,
      outcome: null,
      errorCode: null,
      reason: '',
      next: null,
      evidenceId: null,
      executed: false,
      lookBack: false,
      skipped: false,
      seq,
      ts: null,
      builtin: tool.startsWith('builtin_'),
      hasResult: false,
      result: null,
      resultTruncated: false,
      progress: null,
      icon: null,
    };
    round.calls.push(call);
  }
  return call;
}

function modelResponse(round: RoundView, e: TraceEvent): void {
  round.text = str(e.text) ?? '';
  round.usage = usageOf(e.usage);
  const calls = Array.isArray(e.toolCalls) ? (e.toolCalls as { callId?: unknown; tool?: unknown }[]) : [];
  for (const c of calls) callOf(round, str(c.callId) ?? '', str(c.tool) ?? '', e.seq);
}

function toolInvoked(node: NodeView, round: RoundView, e: TraceEvent): void {
  const call = callOf(round, str(e.callId) ?? '', str(e.tool) ?? '', e.seq);
  const outcome = str(e.outcome);
  const { reason, next } = splitMessage(str(e.message) ?? '');
  Object.assign(call, {
    args: e.args,
    outcome: (OUTCOMES as readonly string[]).includes(outcome ?? '') ? (outcome as Outcome) : null,
    errorCode: str(e.errorCode),
    reason,
    next,
    evidenceId: str(e.evidenceId),
    executed: e.executed === true,
    lookBack: e.lookBack === true,
    ts: e.ts,
    hasResult: 'result' in e,
    result: e.result ?? null,
    resultTruncated: e.resultTruncated === true,
    icon: str(e.icon),
  });
  // SUCCESS advances and resets the consecutive stall count (docs/observations.md; docs/design.md).
  if (call.outcome === 'SUCCESS') node.stalls = 0;
}

function suspended(node: NodeView, e: TraceEvent): void {
  node.status = 'suspended';
  const kind = e.kind === 'FOLLOW_UP' ? 'FOLLOW_UP' : 'APPROVAL';
  node.items.push({
    kind: 'suspension',
    seq: e.seq,
    ts: e.ts,
    nodeId: node.id,
    suspension: kind,
    pending: e.pending as Pending,
    resolution: null,
    escalated: null,
  });
}

/** An approval past its deadline escalated (`approval.escalated`): the item it names keeps waiting. */
function escalated(node: NodeView, e: TraceEvent): void {
  const item = node.items.findLast(
    (i): i is SuspensionView =>
      i.kind === 'suspension' && (i.pending as { id?: string }).id === e.pendingId && i.resolution === null,
  );
  if (item) item.escalated = { ts: e.ts, to: Array.isArray(e.escalateTo) ? e.escalateTo.map(String) : [] };
}

function resumed(view: RunView, e: TraceEvent): void {
  if (e.kind === 'RECOVERY') {
    const node = view.nodes.at(-1);
    if (node) node.items.push({ kind: 'recovery', seq: e.seq, ts: e.ts });
    return;
  }
  const node = nodeOf(view, e);
  const open = node?.items.findLast(
    (item): item is SuspensionView => item.kind === 'suspension' && item.resolution === null,
  );
  if (!node || !open) return;
  node.status = 'running';
  const decision = e.decision === 'approved' || e.decision === 'rejected' ? e.decision : null;
  open.resolution = {
    seq: e.seq,
    ts: e.ts,
    decision,
    comment: str(e.comment),
    answer: str(e.answer),
    who: str(e.who),
    approvers: Array.isArray(e.approvers) ? e.approvers.map(String) : null,
    edit: isObject(e.editedFrom) && isObject(e.args) ? { from: e.editedFrom, to: e.args } : null,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
