import { expect } from 'vitest';
import type { TraceEvent } from './cli.js';

/** A `tool.invoked` event. */
export interface ToolInvoked extends TraceEvent {
  type: 'tool.invoked';
  callId: string;
  tool: string;
  args: unknown;
  outcome: 'SUCCESS' | 'FAILED' | 'REJECTED' | 'DEFERRED';
  errorCode: string | null;
  message: string;
  evidenceId: string | null;
  executed: boolean;
  level: 'info' | 'warn';
  lookBack: boolean;
}

const STALLING = new Set(['FAILED', 'REJECTED']);
const NEXT = '。下一步：';

/** The events of one type, in order. */
export function ofType(events: readonly TraceEvent[], type: string): TraceEvent[] {
  return events.filter((e) => e.type === type);
}

/** The `tool.invoked` events, optionally of one tool. */
export function invoked(events: readonly TraceEvent[], tool?: string): ToolInvoked[] {
  return events.filter(
    (e): e is ToolInvoked => e.type === 'tool.invoked' && (tool === undefined || e.tool === tool),
  );
}

/** The single element of a list (fails the test otherwise). */
export function one<T>(list: readonly T[]): T {
  expect(list).toHaveLength(1);
  return list[0] as T;
}

/** The next-step part of a non-success message (after "。下一步："). */
export function nextStep(message: string): string {
  const at = message.indexOf(NEXT);
  expect(at, `no "${NEXT}" in ${message}`).toBeGreaterThan(0);
  return message.slice(at + NEXT.length);
}

/** The event right after `event` in `events`. */
export function after(events: readonly TraceEvent[], event: TraceEvent): TraceEvent | undefined {
  return events[events.indexOf(event) + 1];
}

/** Asserts that `types` occur in `events` in this order (other events may sit between them). */
export function expectInOrder(events: readonly TraceEvent[], types: readonly string[]): void {
  let from = 0;
  for (const type of types) {
    const at = events.findIndex((e, i) => i >= from && e.type === type);
    expect(
      at,
      `${type} after position ${from} in ${events.map((e) => e.type).join(', ')}`,
    ).toBeGreaterThanOrEqual(0);
    from = at + 1;
  }
}

/**
 * The contract every trace must keep, whatever the scenario: one run, seq
 * consecutive; each tool.invoked well formed (non-success → error code and "下一步："; FAILED → warn;
 * builtins, REJECTED and DEFERRED never executed and never evidence); each stalling outcome and each
 * no-tool round followed at once by react.stall; each call answered at most once; each
 * node.suspended followed by run.suspended.
 */
export function expectTraceContract(events: readonly TraceEvent[]): void {
  expect(events.length).toBeGreaterThan(0);
  const first = events[0] as TraceEvent;
  events.forEach((e, i) => {
    expect(e.runId).toBe(first.runId);
    expect(e.seq).toBe(first.seq + i);
    expect(Number.isNaN(Date.parse(e.ts))).toBe(false);
  });
  for (const e of invoked(events)) expectWellFormed(e);
  events.forEach((e, i) => {
    const next = events[i + 1];
    if ((e.type === 'tool.invoked' && STALLING.has(String(e.outcome))) || e.type === 'react.no_tool_calls') {
      expect(next?.type, `react.stall right after ${JSON.stringify(e)}`).toBe('react.stall');
    }
    if (e.type === 'react.stall') {
      const cause = events[i - 1];
      const counted =
        cause?.type === 'react.no_tool_calls' ||
        (cause?.type === 'tool.invoked' && STALLING.has(String(cause.outcome)));
      expect(counted, `react.stall without a cause: ${JSON.stringify(cause)}`).toBe(true);
    }
    if (e.type === 'node.suspended') expect(next?.type).toBe('run.suspended');
  });
  const answered = new Map<string, number>();
  for (const e of events) {
    if (e.type === 'tool.invoked' || e.type === 'tool.skipped')
      answered.set(String(e.callId), (answered.get(String(e.callId)) ?? 0) + 1);
  }
  for (const [callId, count] of answered) expect(count, `call ${callId} answered ${count} times`).toBe(1);
}

function expectWellFormed(e: ToolInvoked): void {
  const where = `${e.tool} ${e.callId}`;
  expect(['SUCCESS', 'FAILED', 'REJECTED', 'DEFERRED'], where).toContain(e.outcome);
  expect(e.level, where).toBe(e.outcome === 'FAILED' ? 'warn' : 'info');
  expect(typeof e.lookBack, where).toBe('boolean');
  if (e.outcome === 'SUCCESS') {
    expect(e.errorCode, where).toBeNull();
  } else {
    expect(e.errorCode, where).toMatch(/^[A-Z_]+$/);
    expect(e.message, where).toContain(NEXT);
    expect(nextStep(e.message).length, where).toBeGreaterThan(0);
  }
  if (e.tool.startsWith('builtin_') || e.outcome === 'REJECTED' || e.outcome === 'DEFERRED') {
    expect(e.executed, where).toBe(false);
    expect(e.evidenceId, where).toBeNull();
  }
  if (e.executed) expect(e.evidenceId, where).toMatch(/^ev_\d+$/);
  if (e.outcome === 'FAILED' && !e.tool.startsWith('builtin_')) expect(e.executed, where).toBe(true);
}
