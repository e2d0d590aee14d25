import { describe, expect, it } from 'vitest';
import type { InFlightWrite, StartedTask } from '../../src/records/run-state.js';
import { callTaskOf, interruptedWrite } from '../../src/tools/interrupted.js';

/**
 * Which write a dead driver left in flight for this very call (src/tools/interrupted.ts,
 * docs/durability.md): the same node, call id, tool and arguments — the arguments compared as
 * canonical JSON, so key order and spacing do not matter, but any value does.
 */

function mark(fields: Partial<InFlightWrite> = {}): InFlightWrite {
  return {
    fingerprint: 'site_create#abc',
    tool: 'site_create',
    args: { name: 'home', space: 'default' },
    key: 'idem-1',
    nodeId: 'create',
    callId: 'call_1',
    startedAt: '2026-01-01T00:00:00Z',
    ...fields,
  };
}

const call = (rawArgs: string, fields: { callId?: string; tool?: string } = {}) => ({
  callId: fields.callId ?? 'call_1',
  tool: fields.tool ?? 'site_create',
  rawArgs,
});

describe('interruptedWrite', () => {
  it('finds nothing in a run with nothing in flight', () => {
    expect(
      interruptedWrite({ inFlight: [] }, 'create', call('{"name":"home","space":"default"}')),
    ).toBeUndefined();
  });

  it('finds the mark of the same node, call, tool and arguments, whatever their key order and spacing', () => {
    const written = mark();
    const run = { inFlight: [written] };
    expect(interruptedWrite(run, 'create', call('{"name":"home","space":"default"}'))).toBe(written);
    expect(interruptedWrite(run, 'create', call(' { "space" : "default",\n "name":"home" } '))).toBe(written);
  });

  it.each([
    ['another node', 'query', call('{"name":"home","space":"default"}')],
    ['another call id', 'create', call('{"name":"home","space":"default"}', { callId: 'call_2' })],
    ['another tool', 'create', call('{"name":"home","space":"default"}', { tool: 'site_delete' })],
    ['another value', 'create', call('{"name":"Home","space":"default"}')],
    ['a missing argument', 'create', call('{"name":"home"}')],
    ['an extra argument', 'create', call('{"name":"home","space":"default","x":null}')],
    ['a number for a string', 'create', call('{"name":"home","space":1}')],
  ])('does not take the mark for a call with %s', (_, nodeId, c) => {
    expect(interruptedWrite({ inFlight: [mark()] }, nodeId, c)).toBeUndefined();
  });

  it('tells the items of a map node apart by their arguments, even under one call id', () => {
    const first = mark({ args: { name: 'a' }, key: 'k-a' });
    const second = mark({ args: { name: 'b' }, key: 'k-b' });
    const run = { inFlight: [first, second] };
    expect(interruptedWrite(run, 'create', call('{"name":"b"}'))).toBe(second);
    expect(interruptedWrite(run, 'create', call('{"name":"a"}'))).toBe(first);
    expect(interruptedWrite(run, 'create', call('{"name":"c"}'))).toBeUndefined();
  });

  it('compares nested objects and arrays canonically: key order free, array order not', () => {
    const written = mark({ args: { page: { title: 't', blocks: [1, { b: 2, a: 1 }] } } });
    const run = { inFlight: [written] };
    expect(interruptedWrite(run, 'create', call('{"page":{"blocks":[1,{"a":1,"b":2}],"title":"t"}}'))).toBe(
      written,
    );
    expect(interruptedWrite(run, 'create', call('{"page":{"blocks":[{"a":1,"b":2},1],"title":"t"}}'))).toBe(
      undefined,
    );
  });

  it('reads JSON as JSON: escapes and number spellings that parse to one value match', () => {
    const written = mark({ args: { name: 'A', n: 1 } });
    expect(interruptedWrite({ inFlight: [written] }, 'create', call('{"name":"\\u0041","n":1.0}'))).toBe(
      written,
    );
  });

  it('takes empty or blank arguments as {} and so finds a mark with no arguments', () => {
    const written = mark({ args: {} });
    expect(interruptedWrite({ inFlight: [written] }, 'create', call(''))).toBe(written);
    expect(interruptedWrite({ inFlight: [written] }, 'create', call('  \n'))).toBe(written);
    expect(interruptedWrite({ inFlight: [written] }, 'create', call('{}'))).toBe(written);
  });

  it.each(['{"name":', 'null', '[]', '"text"', '42'])(
    'finds nothing for arguments that are not a JSON object (%s), even with matching ids',
    (raw) => {
      expect(interruptedWrite({ inFlight: [mark({ args: {} })] }, 'create', call(raw))).toBeUndefined();
    },
  );
});

describe('callTaskOf', () => {
  const task = (over: Partial<StartedTask>): StartedTask => ({
    server: 'fs',
    tool: 'read',
    fingerprint: 'read#1',
    taskId: 't1',
    nodeId: 'a',
    callId: 'c1',
    startedAt: '2026-12-07T00:00:00.000Z',
    ...over,
  });

  it('finds the task of this node, call and fingerprint only (another branch may run the same call)', () => {
    const other = task({ nodeId: 'b', taskId: 't2' });
    const own = task({});
    const run = { tasks: [other, own] };
    expect(callTaskOf(run, { nodeId: 'a', callId: 'c1', fingerprint: 'read#1' })).toBe(own);
    expect(callTaskOf(run, { nodeId: 'a', callId: 'c1', fingerprint: 'read#1', server: 'fs' })).toBe(own);
    expect(
      callTaskOf(run, { nodeId: 'a', callId: 'c1', fingerprint: 'read#1', server: 'db' }),
    ).toBeUndefined();
    expect(callTaskOf(run, { nodeId: 'a', callId: 'c2', fingerprint: 'read#1' })).toBeUndefined();
    expect(
      callTaskOf({ tasks: [other] }, { nodeId: 'a', callId: 'c1', fingerprint: 'read#1' }),
    ).toBeUndefined();
    expect(callTaskOf({}, { nodeId: 'a', callId: 'c1', fingerprint: 'read#1' })).toBeUndefined();
  });
});
