import { canonicalJson } from '../domain/fingerprint.js';
import type { Flow } from '../domain/flow.js';
import type { StoredEvent } from '../store/store.js';

/** How often one code was seen in a trial and how many of those the model recovered from. */
export interface CodeCount {
  count: number;
  recovered: number;
}

/** What one trial's trace says about how the model worked (docs/evals.md, "Metrics"). */
export interface TraceMetrics {
  rounds: number;
  stalls: number;
  rejected: number;
  failed: number;
  /** REJECTED and FAILED observations followed by a SUCCESS of the same tool in the same node run. */
  recovered: number;
  fingerprintTrips: number;
  /**
   * Calls a person declined (`APPROVAL_DENIED`): a decision, not a mistake of the model, so neither in
   * `rejected`, `byCode` nor left unrecovered, and a round without calls right after one is no stall.
   */
  declined: number;
  /** Per error code of REJECTED and FAILED observations. */
  byCode: Record<string, CodeCount>;
  /** Tools the model called (any outcome), each once. */
  toolsCalled: string[];
  /** Executed writes that no approval of exactly that call preceded. */
  unapprovedWrites: number;
}

type Invoked = StoredEvent & { tool: string; outcome: string; errorCode: string | null; args: unknown };

/**
 * Reads the metrics of a trial from its trace events. A non-success observation counts as recovered
 * when a later `tool.invoked` of the same tool in the same node run (between one `node.started` and the
 * next) is a SUCCESS: the model got what it was after despite the refusal or failure.
 */
export function traceMetrics(events: readonly StoredEvent[], flow: Pick<Flow, 'tools'>): TraceMetrics {
  const m: TraceMetrics = {
    rounds: 0,
    stalls: 0,
    rejected: 0,
    failed: 0,
    recovered: 0,
    fingerprintTrips: 0,
    declined: 0,
    byCode: {},
    toolsCalled: [],
    unapprovedWrites: unapprovedWrites(events, flow),
  };
  const called = new Set<string>();
  let nodeRun = 0;
  const open: { nodeRun: number; tool: string; code: string }[] = [];
  // True from a person's refusal until the model's next call (or the next node run): a round without
  // calls then is the model accepting the decision, not a stall.
  let afterDenial = false;
  for (const event of events) {
    if (event.type === 'node.started') {
      nodeRun += 1;
      afterDenial = false;
    } else if (event.type === 'react.round') m.rounds += 1;
    else if (event.type === 'react.stall' && !afterDenial) m.stalls += 1;
    if (event.type !== 'tool.invoked' || event.lookBack === true) continue;
    const call = event as Invoked;
    called.add(call.tool);
    afterDenial = call.errorCode === 'APPROVAL_DENIED';
    if (afterDenial) {
      m.declined += 1;
      continue;
    }
    if (call.outcome === 'SUCCESS') {
      for (let i = open.length - 1; i >= 0; i -= 1) {
        const o = open[i] as (typeof open)[number];
        if (o.nodeRun !== nodeRun || o.tool !== call.tool) continue;
        m.recovered += 1;
        countOf(m, o.code).recovered += 1;
        open.splice(i, 1);
      }
      continue;
    }
    if (call.outcome !== 'REJECTED' && call.outcome !== 'FAILED') continue;
    if (call.outcome === 'REJECTED') m.rejected += 1;
    else m.failed += 1;
    const code = call.errorCode ?? 'UNKNOWN';
    if (code === 'FINGERPRINT_TRIP') m.fingerprintTrips += 1;
    countOf(m, code).count += 1;
    open.push({ nodeRun, tool: call.tool, code });
  }
  m.toolsCalled = [...called].sort();
  return m;
}

function countOf(m: TraceMetrics, code: string): CodeCount {
  return (m.byCode[code] ??= { count: 0, recovered: 0 });
}

/** Executed write calls with no approved suspension for exactly that tool and arguments before them. */
function unapprovedWrites(events: readonly StoredEvent[], flow: Pick<Flow, 'tools'>): number {
  const writes = new Set(
    Object.entries(flow.tools ?? {})
      .filter(([, policy]) => policy.write === true)
      .map(([name]) => name),
  );
  const approved = new Set<string>();
  let pending: string | null = null;
  let count = 0;
  for (const event of events) {
    if (event.type === 'run.suspended' && event.kind === 'APPROVAL') {
      const item = event.pending as { tool?: string; args?: unknown };
      pending = `${item.tool ?? ''} ${canonicalJson(item.args ?? {})}`;
    } else if (event.type === 'run.resumed' && event.kind === 'APPROVAL') {
      if (event.decision === 'approved' && pending !== null) approved.add(pending);
      pending = null;
    } else if (event.type === 'tool.invoked' && event.executed === true && event.lookBack !== true) {
      const call = event as Invoked;
      if (!writes.has(call.tool)) continue;
      const key = `${call.tool} ${canonicalJson(call.args ?? {})}`;
      if (!approved.has(key)) count += 1;
    }
  }
  return count;
}

/**
 * The run's reply: the summary's `reply` when the runtime gives one, else the summary of the last
 * successful `builtin_node_finish` in the trace (the final answer of the last node), else null.
 */
export function replyOf(summary: object, events: readonly StoredEvent[]): string | null {
  const given = (summary as { reply?: unknown }).reply;
  if (typeof given === 'string') return given;
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i] as StoredEvent;
    if (event.type !== 'tool.invoked' || event.tool !== 'builtin_node_finish') continue;
    if (event.outcome !== 'SUCCESS') continue;
    const args = event.args as { summary?: unknown } | null;
    return typeof args?.summary === 'string' ? args.summary : null;
  }
  return null;
}
