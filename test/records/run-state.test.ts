import { describe, expect, it } from 'vitest';
import {
  ApprovalSchema,
  ContextStateSchema,
  EvidenceRecordSchema,
  InputRoundSchema,
  NodeStateSchema,
  OutputValueSchema,
  RunStateSchema,
  ThreadTurnSchema,
  ValueMatchSchema,
  newNodeState,
  newRunState,
  stringLeaves,
  userTexts,
  type RunState,
} from '../../src/records/run-state.js';

/** The run state the guards and builtins read and change (src/records/run-state.ts). */

describe('stringLeaves', () => {
  it('a string is its own leaf; numbers, booleans, null and undefined have none', () => {
    expect(stringLeaves('refund order o-1')).toEqual(['refund order o-1']);
    expect(stringLeaves('')).toEqual(['']);
    for (const value of [0, 42, true, false, null, undefined]) expect(stringLeaves(value)).toEqual([]);
  });

  it('walks arrays and objects in document order, at any depth', () => {
    const input = {
      text: 'refund',
      order: { id: 'o-1', lines: [{ sku: 'A' }, { sku: 'B', qty: 2 }] },
      tags: ['urgent', ['vip', 3]],
      note: null,
    };
    expect(stringLeaves(input)).toEqual(['refund', 'o-1', 'A', 'B', 'urgent', 'vip']);
  });

  it('reads values only, never keys', () => {
    expect(stringLeaves({ secretKey: 1, other: 'v' })).toEqual(['v']);
    expect(stringLeaves({})).toEqual([]);
    expect(stringLeaves([])).toEqual([]);
  });
});

describe('newRunState and newNodeState', () => {
  it('a fresh run state holds nothing but the input texts', () => {
    expect(newRunState('run_1', { text: 'hi', n: 3, nested: ['a'] })).toEqual({
      runId: 'run_1',
      evidence: [],
      approvals: [],
      inFlight: [],
      followUps: [],
      inputTexts: ['hi', 'a'],
      nodeOutputs: {},
    });
    expect(newRunState('run_2', null).inputTexts).toEqual([]);
  });

  it('a fresh run state fits its schema, and each one is a new object', () => {
    const a = newRunState('run_1', 'x');
    expect(RunStateSchema.parse(a)).toEqual(a);
    const b = newRunState('run_1', 'x');
    a.approvals.push({} as never);
    expect(b.approvals).toEqual([]);
  });

  it('a fresh node state counts nothing yet and fits its schema', () => {
    const node = newNodeState('pay');
    expect(node).toEqual({
      nodeId: 'pay',
      rounds: 0,
      stalls: 0,
      fingerprintCounts: {},
      gatedCall: null,
      pendingWrites: [],
      outputs: {},
      approvedWriteFailed: false,
    });
    expect(NodeStateSchema.parse(node)).toEqual(node);
  });
});

describe('userTexts', () => {
  const base: RunState = newRunState('run_1', { text: 'refund o-1' });

  it('is the input texts alone for a fresh run', () => {
    expect(userTexts(base)).toEqual(['refund o-1']);
  });

  it('adds the follow-up answers, the edits and the steering messages, in that order', () => {
    const run: RunState = {
      ...base,
      followUps: [
        { question: 'Which order?', options: null, answer: 'o-2', nodeId: 'ask' },
        { question: 'Amount?', options: ['10', '40'], answer: '40', nodeId: 'ask' },
      ],
      editTexts: ['edited name'],
      steerTexts: ['hurry please'],
    };
    expect(userTexts(run)).toEqual(['refund o-1', 'o-2', '40', 'edited name', 'hurry please']);
  });

  it('does not count questions, evidence or outputs as the user’s words', () => {
    const run: RunState = {
      ...base,
      followUps: [{ question: 'Say yes?', options: ['yes'], answer: 'no', nodeId: 'ask' }],
      nodeOutputs: { pay: { receipt: 'r-1' } },
    };
    expect(userTexts(run)).toEqual(['refund o-1', 'no']);
  });
});

describe('ValueMatchSchema', () => {
  it('reads an evidence match with its path and span', () => {
    const match = {
      at: ['city', 0],
      source: 'evidence',
      evidenceId: 'ev_2',
      path: ['data', 1],
      span: [3, 9],
    };
    expect(ValueMatchSchema.parse(match)).toEqual(match);
  });

  it('refuses an unknown source or trust, a span that is not a pair and a path of objects', () => {
    expect(ValueMatchSchema.safeParse({ at: [], source: 'model' }).success).toBe(false);
    expect(ValueMatchSchema.safeParse({ at: [], source: 'user', trust: 'maybe' }).success).toBe(false);
    expect(ValueMatchSchema.safeParse({ at: [], source: 'user', span: [1] }).success).toBe(false);
    expect(ValueMatchSchema.safeParse({ at: [], source: 'user', span: [1, 2, 3] }).success).toBe(false);
    expect(ValueMatchSchema.safeParse({ at: [{ k: 1 }], source: 'user' }).success).toBe(false);
    expect(ValueMatchSchema.safeParse({ source: 'user' }).success).toBe(false);
  });
});

describe('the records of a run', () => {
  const evidence = {
    id: 'ev_1',
    tool: 'order_get',
    args: { id: 'o-1' },
    fingerprint: 'fp',
    outcome: 'SUCCESS',
    errorCode: null,
    payload: { total: 40 },
    ts: '2026-01-01T00:00:00.000Z',
    nodeId: 'query',
    callId: 'c1',
  };

  it('evidence is SUCCESS or FAILED only: a REJECTED call never executed', () => {
    expect(EvidenceRecordSchema.parse(evidence)).toEqual(evidence);
    expect(EvidenceRecordSchema.safeParse({ ...evidence, outcome: 'REJECTED' }).success).toBe(false);
    expect(EvidenceRecordSchema.safeParse({ ...evidence, outcome: 'DEFERRED' }).success).toBe(false);
    // errorCode must be present (null for a success).
    const { errorCode: _, ...noCode } = evidence;
    expect(EvidenceRecordSchema.safeParse(noCode).success).toBe(false);
  });

  it('an approval names who (or null), and only `auto` as the deciding rule', () => {
    const approval = {
      fingerprint: 'fp',
      tool: 'refund',
      args: {},
      nodeId: 'pay',
      grantedAt: '2026-01-01T00:00:00.000Z',
      who: null,
      comment: null,
      consumed: false,
    };
    expect(ApprovalSchema.parse({ ...approval, rule: 'auto' })).toEqual({ ...approval, rule: 'auto' });
    expect(ApprovalSchema.safeParse({ ...approval, rule: 'reject' }).success).toBe(false);
    expect(ApprovalSchema.safeParse({ ...approval, consumed: 'no' }).success).toBe(false);
  });

  it('an output value names where it came from, `code` included', () => {
    for (const sourceType of ['evidence', 'user', 'node', 'model', 'code'])
      expect(OutputValueSchema.safeParse({ value: 1, sourceType, sourceRef: null }).success).toBe(true);
    expect(OutputValueSchema.safeParse({ value: 1, sourceType: 'guess', sourceRef: null }).success).toBe(
      false,
    );
    expect(OutputValueSchema.safeParse({ value: 1, sourceType: 'user' }).success).toBe(false);
  });

  it('a node state with a code journal takes only objects as calls', () => {
    const node = { ...newNodeState('code'), code: { calls: [{ tool: 'x', observation: {} }] } };
    expect(NodeStateSchema.safeParse(node).success).toBe(true);
    expect(NodeStateSchema.safeParse({ ...node, code: { calls: ['x'] } }).success).toBe(false);
    expect(NodeStateSchema.safeParse({ ...node, code: { calls: [null] } }).success).toBe(false);
  });

  it('context state keeps `last` nullable but present', () => {
    const context = { stubbed: 1, dropped: 0, compactions: 1, last: null };
    expect(ContextStateSchema.parse(context)).toEqual(context);
    const { last: _, ...noLast } = context;
    expect(ContextStateSchema.safeParse(noLast).success).toBe(false);
  });

  it('a run state refuses a negative or fractional steering seq', () => {
    const run = newRunState('run_1', 'x');
    expect(RunStateSchema.safeParse({ ...run, steerSeq: 0 }).success).toBe(true);
    expect(RunStateSchema.safeParse({ ...run, steerSeq: -1 }).success).toBe(false);
    expect(RunStateSchema.safeParse({ ...run, steerSeq: 1.5 }).success).toBe(false);
  });

  it('an input round keeps each request by key, with its method', () => {
    const round = { inputRequests: { size: { method: 'elicitation/create', params: { message: 'm' } } } };
    expect(InputRoundSchema.parse(round)).toEqual(round);
    expect(InputRoundSchema.safeParse({ inputRequests: { size: { params: {} } } }).success).toBe(false);
  });

  it('a thread turn is said by the user or the assistant', () => {
    expect(ThreadTurnSchema.parse({ role: 'assistant', text: 'Done.' })).toEqual({
      role: 'assistant',
      text: 'Done.',
    });
    expect(ThreadTurnSchema.safeParse({ role: 'system', text: 'x' }).success).toBe(false);
  });
});
