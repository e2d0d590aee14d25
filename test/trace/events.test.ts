import { describe, expect, expectTypeOf, it } from 'vitest';
import { EVENT_TYPES, type EventPayload, type TraceEvent } from '../../src/trace/events.js';

/**
 * The trace event types (docs/trace.md): the runtime list `EVENT_TYPES` and the payload union are one
 * set, and the union holds each event to its documented fields (checked when the tests are type-checked,
 * `tsc -p tsconfig.json`). test/runtime/trace-doc.test.ts holds the list to the page.
 */

type Listed = (typeof EVENT_TYPES)[number];
type PayloadOf<T extends EventPayload['type']> = Extract<EventPayload, { type: T }>;

describe('EVENT_TYPES', () => {
  it('names each payload type of the union, and nothing else', () => {
    expectTypeOf<Listed>().toEqualTypeOf<EventPayload['type']>();
  });

  it('lists each type once, each a lower-case `subject.event` name', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z]+\.[a-z_]+$/);
  });

  it('starts with run.started and ends with the three ends of a run (docs/trace.md, "Order")', () => {
    expect(EVENT_TYPES[0]).toBe('run.started');
    expect(EVENT_TYPES.slice(-3)).toEqual(['run.completed', 'run.failed', 'run.cancelled']);
  });

  it('lists each node event after node.started and before node.completed and node.failed', () => {
    const at = (type: Listed) => EVENT_TYPES.indexOf(type);
    for (const type of [
      'react.round',
      'model.response',
      'tool.invoked',
      'tool.skipped',
      'react.stall',
    ] as const) {
      expect(at(type), type).toBeGreaterThan(at('node.started'));
      expect(at(type), type).toBeLessThan(at('node.completed'));
    }
    expect(at('node.suspended')).toBeLessThan(at('run.suspended'));
    expect(at('run.suspended')).toBeLessThan(at('run.resumed'));
  });
});

describe('EventPayload', () => {
  it('holds the suspension kinds, and RECOVERY only for a resumption', () => {
    expectTypeOf<PayloadOf<'run.suspended'>['kind']>().toEqualTypeOf<'APPROVAL' | 'FOLLOW_UP' | 'TASK'>();
    expectTypeOf<PayloadOf<'run.resumed'>['kind']>().toEqualTypeOf<
      'APPROVAL' | 'FOLLOW_UP' | 'RECOVERY' | 'TASK'
    >();
  });

  it('a cancelled run has the one reason CANCELLED; a failed run may have no failed node', () => {
    expectTypeOf<PayloadOf<'run.cancelled'>['reason']>().toEqualTypeOf<'CANCELLED'>();
    expectTypeOf<PayloadOf<'run.failed'>['failedNode']>().toEqualTypeOf<string | null>();
  });

  it('tool.invoked names its evidence (or null) and whether it executed; its level is info or warn', () => {
    expectTypeOf<PayloadOf<'tool.invoked'>['evidenceId']>().toEqualTypeOf<string | null>();
    expectTypeOf<PayloadOf<'tool.invoked'>['executed']>().toEqualTypeOf<boolean>();
    expectTypeOf<PayloadOf<'tool.invoked'>['level']>().toEqualTypeOf<'info' | 'warn'>();
  });

  it('a complete event is the common fields with its payload', () => {
    const event: TraceEvent = {
      seq: 1,
      ts: '2026-01-01T00:00:00.000Z',
      runId: 'run_1',
      type: 'run.cancelled',
      reason: 'CANCELLED',
    };
    expect(event.type).toBe('run.cancelled');
    // @ts-expect-error a cancelled run has no other reason
    const wrong: TraceEvent = { seq: 2, ts: 't', runId: 'r', type: 'run.cancelled', reason: 'TIMEOUT' };
    // @ts-expect-error react.stall needs its counts
    const partial: TraceEvent = { seq: 3, ts: 't', runId: 'r', type: 'react.stall', nodeId: 'n', round: 1 };
    expect([wrong.seq, partial.seq]).toEqual([2, 3]);
  });
});
