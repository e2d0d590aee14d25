import { describe, expect, it } from 'vitest';
import { forkPoints, forkState, type ForkSource } from '../../src/engine/fork-state.js';
import { loadFlow } from '../../src/flow/load.js';
import type { Approval, EvidenceRecord } from '../../src/records/run-state.js';
import type { RunRecord, StoredEvent, StoredMessage } from '../../src/store/store.js';
import { idempotencyKey } from '../../src/tools/guards/keys.js';

/**
 * Where a run can be forked and what a fork starts with (src/engine/fork-state.ts, docs/evals.md
 * "Fork"), from a trace, conversation and evidence written here: a fork point is a tool call that
 * ended its wave where the node went on to another round, never while a gated write waits and never in
 * a node run taken up by `retry`; the state rebuilt there keeps what happened before it and nothing after.
 */

type Fields = Record<string, unknown>;

/** A trace numbered from 1 in the order given. */
function trace(...events: [string, Fields?][]): StoredEvent[] {
  return events.map(([type, fields], i) => ({
    seq: i + 1,
    ts: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`,
    runId: 'run_src',
    type,
    ...fields,
  }));
}

const round = (nodeId: string, n: number): [string, Fields] => ['react.round', { nodeId, round: n }];
const call = (nodeId: string, n: number, callId: string, fields: Fields = {}): [string, Fields] => [
  'tool.invoked',
  { nodeId, round: n, callId, tool: 'order_get', outcome: 'SUCCESS', executed: true, ...fields },
];

describe('forkPoints', () => {
  it('is every tool call after which the same node starts another round', () => {
    const events = trace(
      ['run.started'],
      ['node.started', { nodeId: 'a' }],
      round('a', 1),
      call('a', 1, 'c1'), // 4: the next round follows
      round('a', 2),
      call('a', 2, 'c2'), // 6: first of a wave of two — the next event is a call, not a round
      call('a', 2, 'c3'), // 7
      round('a', 3),
      call('a', 3, 'c4', { tool: 'builtin_node_finish' }), // 9: the node ends after it
      ['node.completed', { nodeId: 'a', outputs: {} }],
      ['node.started', { nodeId: 'b' }],
      round('b', 1),
      call('b', 1, 'c5'), // 13
      round('b', 2),
    );
    expect(forkPoints(events)).toEqual([4, 7, 13]);
  });

  it('looks past stalls, skipped calls and look-backs to the next round', () => {
    const events = trace(
      ['node.started', { nodeId: 'a' }],
      round('a', 1),
      call('a', 1, 'c1'), // 3
      ['react.stall', { nodeId: 'a', stalls: 1 }],
      ['tool.skipped', { nodeId: 'a', callId: 'c9' }],
      call('a', 1, 'c1#lookback', { lookBack: true }), // a look-back is never a point itself
      round('a', 2),
    );
    expect(forkPoints(events)).toEqual([3]);
  });

  it('a round of another node (a parallel branch) after the call is no fork point', () => {
    const events = trace(['node.started', { nodeId: 'a' }], round('a', 1), call('a', 1, 'c1'), round('b', 1));
    expect(forkPoints(events)).toEqual([]);
  });

  it('none while a gated write waits for approval: from APPROVAL_REQUIRED until the approval resumes', () => {
    const events = trace(
      ['node.started', { nodeId: 'a' }],
      round('a', 1),
      call('a', 1, 'c1', {
        tool: 'refund',
        outcome: 'DEFERRED',
        errorCode: 'APPROVAL_REQUIRED',
        executed: false,
      }),
      round('a', 2),
      call('a', 2, 'c2', { tool: 'builtin_node_approval' }),
      ['run.suspended', { kind: 'APPROVAL', nodeId: 'a' }],
      ['run.resumed', { kind: 'FOLLOW_UP', nodeId: 'a' }], // another kind does not end the wait
      round('a', 3),
      call('a', 3, 'c3'), // 9: still gated
      round('a', 4),
      ['run.resumed', { kind: 'APPROVAL', nodeId: 'a', decision: 'approved' }],
      round('a', 5),
      call('a', 5, 'c4', { tool: 'refund' }), // 13
      round('a', 6),
    );
    expect(forkPoints(events)).toEqual([13]);
  });

  it('none in a node run taken up by retry; a new node run may be forked again', () => {
    const events = trace(
      ['node.started', { nodeId: 'a' }],
      round('a', 1),
      call('a', 1, 'c1'), // 3
      round('a', 2),
      ['run.failed', { reason: 'STALLED' }],
      ['run.retried', { nodeId: 'a' }],
      round('a', 3),
      call('a', 3, 'c2'), // 8: retried
      round('a', 4),
      call('a', 4, 'c3', { tool: 'builtin_node_finish' }),
      ['node.completed', { nodeId: 'a', outputs: {} }],
      ['node.started', { nodeId: 'b' }],
      round('b', 1),
      call('b', 1, 'c4'), // 14
      round('b', 2),
    );
    expect(forkPoints(events)).toEqual([3, 14]);
  });

  it('is empty for a trace without calls, and the last call of a trace is no point', () => {
    expect(forkPoints([])).toEqual([]);
    expect(forkPoints(trace(['node.started', { nodeId: 'a' }], round('a', 1), call('a', 1, 'c1')))).toEqual(
      [],
    );
  });
});

// A two-node run: `lookup` reads and writes output, then `ship` ships (approved), verifies, and goes on.
const EVENTS = trace(
  ['run.started'], // 1
  ['node.started', { nodeId: 'lookup' }], // 2
  round('lookup', 1), // 3
  call('lookup', 1, 'l1', { args: { orderId: 'o1' }, evidenceId: 'ev_1' }), // 4
  round('lookup', 2), // 5
  call('lookup', 2, 'l2', {
    tool: 'builtin_output_set',
    args: { key: 'order', value: 'ignored', sourceType: 'evidence', sourceRef: 'ev_1' },
    result: { value: { id: 'o1' } },
    executed: false,
  }), // 6
  round('lookup', 3), // 7
  call('lookup', 3, 'l3', { tool: 'builtin_node_finish', executed: false }), // 8
  ['node.completed', { nodeId: 'lookup', outputs: { order: { id: 'o1' } } }], // 9
  ['node.started', { nodeId: 'ship' }], // 10
  round('ship', 1), // 11
  call('ship', 1, 's1', {
    tool: 'ship',
    outcome: 'DEFERRED',
    errorCode: 'APPROVAL_REQUIRED',
    executed: false,
  }), // 12
  round('ship', 2), // 13
  call('ship', 2, 's2', { tool: 'builtin_node_approval', executed: false }), // 14
  ['run.suspended', { kind: 'APPROVAL', nodeId: 'ship' }], // 15
  ['run.resumed', { kind: 'APPROVAL', nodeId: 'ship', decision: 'approved' }], // 16
  ['run.message', { nodeId: 'ship', text: 'use the fast carrier' }], // 17
  round('ship', 3), // 18
  ['context.compacted', { nodeId: 'ship', stubbedRounds: 1, droppedRounds: 0 }], // 19
  call('ship', 3, 's3', { tool: 'ship', args: { orderId: 'o1' }, evidenceId: 'ev_2' }), // 20
  ['react.stall', { nodeId: 'ship', round: 3, stalls: 1 }], // 21
  round('ship', 4), // 22
  call('ship', 4, 's4', { tool: 'ship_status', args: { shipmentId: 'sh_1' }, evidenceId: 'ev_3' }), // 23
  round('ship', 5), // 24
  call('ship', 5, 'sq', { tool: 'builtin_user_ask', executed: false }), // 25
  ['run.suspended', { kind: 'FOLLOW_UP', nodeId: 'ship' }], // 26
  ['run.resumed', { kind: 'FOLLOW_UP', nodeId: 'ship', answer: 'yes' }], // 27
  round('ship', 6), // 28
  call('ship', 6, 's5', { tool: 'ship_status', args: { shipmentId: 'sh_1' }, evidenceId: 'ev_4' }), // 29
  round('ship', 7), // 30
);

function evidence(
  id: string,
  nodeId: string,
  callId: string,
  tool: string,
  args: Fields,
  payload: unknown,
): EvidenceRecord {
  return {
    id,
    tool,
    args,
    fingerprint: `fp_${id}`,
    outcome: 'SUCCESS',
    errorCode: null,
    payload,
    ts: '2026-01-01T00:00:00.000Z',
    nodeId,
    callId,
  };
}

const EVIDENCE: EvidenceRecord[] = [
  evidence('ev_1', 'lookup', 'l1', 'order_get', { orderId: 'o1' }, { id: 'o1' }),
  evidence('ev_2', 'ship', 's3', 'ship', { orderId: 'o1' }, { status: 'queued', shipmentId: 'sh_1' }),
  evidence('ev_3', 'ship', 's4', 'ship_status', { shipmentId: 'sh_1' }, { status: 'packing' }),
  evidence('ev_4', 'ship', 's5', 'ship_status', { shipmentId: 'sh_1' }, { status: 'shipped' }),
];

const APPROVAL: Approval = {
  fingerprint: 'fp_ship',
  tool: 'ship',
  args: { orderId: 'o1' },
  nodeId: 'ship',
  grantedAt: '2026-01-01T00:00:16.000Z',
  who: 'olivia',
  comment: null,
  consumed: true,
};

/** Each node run's conversation: a user message, then per call an assistant turn and its tool message. */
const CONVERSATIONS: Record<string, StoredMessage[]> = {
  'lookup#1': conversation('lookup#1', ['l1', 'l2', 'l3']),
  'ship#2': conversation('ship#2', ['s1', 's2', 's3', 's4', 'sq', 's5'], { s1: 'fp_ship', s5: 'fp_status' }),
};

function conversation(
  nodeRun: string,
  calls: string[],
  counted: Record<string, string> = {},
): StoredMessage[] {
  const messages: unknown[] = [{ role: 'user', content: 'go' }];
  for (const callId of calls) {
    messages.push({ role: 'assistant', text: '', toolCalls: [{ callId, tool: 't', args: {} }] });
    messages.push({
      role: 'tool',
      callId,
      content: 'ok',
      ...(counted[callId] ? { counted: counted[callId] } : {}),
    });
  }
  return messages.map((message, index) => ({ nodeRun, index, message }));
}

async function shipFlow() {
  return (
    await loadFlow(
      {
        id: 'shipping',
        locale: 'en',
        nodes: [
          { id: 'lookup', tools: ['order_get'] },
          { id: 'ship', tools: ['ship', 'ship_status'] },
        ],
        edges: [{ from: 'lookup', to: 'ship' }],
        tools: {
          ship: {
            write: true,
            pending: 'result.status = "queued"',
            verify: {
              tool: 'ship_status',
              args: { shipmentId: 'result.shipmentId' },
              done: 'verify.status = "shipped"',
            },
          },
        },
      },
      { knownTools: ['order_get', 'ship', 'ship_status'] },
    )
  ).flow;
}

function source(
  events: StoredEvent[] = EVENTS,
  conversations = CONVERSATIONS,
): ForkSource & { asked: string[] } {
  const asked: string[] = [];
  const record = {
    runId: 'run_src',
    state: {
      run: {
        approvals: [APPROVAL],
        followUps: [{ question: 'ship now?', options: null, answer: 'yes', nodeId: 'ship' }],
        inputTexts: ['ship order o1'],
      },
    },
  } as unknown as RunRecord;
  return {
    record,
    events,
    evidence: EVIDENCE,
    asked,
    messages: (nodeRun) => {
      asked.push(nodeRun);
      return Promise.resolve(conversations[nodeRun] ?? []);
    },
  };
}

describe('forkState', () => {
  it('the fixture run can be forked where its rounds go on', () => {
    expect(forkPoints(EVENTS)).toEqual([4, 6, 20, 23, 29]);
  });

  it('in the first node: its output so far, its evidence, no approvals, its conversation up to the call', async () => {
    const src = source();
    const fork = await forkState(src, 6, 'run_new', await shipFlow());
    expect(fork.nodeId).toBe('lookup');
    expect(fork.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fork.events.every((e) => e.runId === 'run_new')).toBe(true);
    expect(EVENTS[0]?.runId).toBe('run_src');
    expect(fork.evidence.map((r) => r.id)).toEqual(['ev_1']);
    expect(fork.doc.run.approvals).toEqual([]);
    expect(fork.doc.run.followUps).toEqual([]);
    expect(fork.doc.run.steerTexts).toEqual([]);
    expect(fork.doc.run.nodeOutputs).toEqual({});
    expect(fork.doc.node?.outputs).toEqual({
      order: { value: { id: 'o1' }, sourceType: 'evidence', sourceRef: 'ev_1' },
    });
    expect(fork.doc.node?.rounds).toBe(2);
    expect(fork.doc.nodeRuns).toBe(1);
    expect(src.asked).toEqual(['lookup#1']);
    // The user message and two calls with their tool messages: cut right after l2's tool message.
    expect(fork.messages.map((m) => m.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it('after the approved write: earlier outputs, the approval consumed, the pending verification, the steering read', async () => {
    const fork = await forkState(source(), 20, 'run_new', await shipFlow());
    const { doc } = fork;
    expect(doc).toMatchObject({
      schema: 1,
      nodeId: 'ship',
      nodeRuns: 2,
      modelCalls: 0,
      forkedFrom: { runId: 'run_src', seq: 20 },
    });
    expect(doc.run.runId).toBe('run_new');
    expect(doc.run.inFlight).toEqual([]);
    expect(doc.run.inputTexts).toEqual(['ship order o1']);
    expect(doc.run.nodeOutputs).toEqual({ lookup: { order: { id: 'o1' } } });
    expect(fork.outputs).toBe(doc.run.nodeOutputs);
    expect(doc.run.approvals).toEqual([{ ...APPROVAL, consumed: true }]);
    expect(doc.run.followUps).toEqual([]); // the follow-up was answered after the fork
    expect(doc.run.steerTexts).toEqual(['use the fast carrier']);
    expect(fork.evidence.map((r) => r.id)).toEqual(['ev_1', 'ev_2']);
    expect(doc.node?.rounds).toBe(3);
    expect(doc.node?.outputs).toEqual({});
    expect(doc.node?.fingerprintCounts).toEqual({ fp_ship: 1 });
    expect(doc.node?.pendingWrites).toEqual([
      {
        tool: 'ship',
        fingerprint: 'fp_ev_2',
        verifyTool: 'ship_status',
        verifyArgs: { shipmentId: 'sh_1' },
        done: 'verify.status = "shipped"',
        scope: {
          args: { orderId: 'o1' },
          result: { status: 'queued', shipmentId: 'sh_1' },
          key: idempotencyKey('run_src', 'fp_ev_2'),
        },
      },
    ]);
    // Earlier node runs whole, then this one up to the fork call's tool message.
    expect(fork.messages.filter((m) => m.nodeRun === 'lookup#1')).toHaveLength(7);
    expect(fork.messages.filter((m) => m.nodeRun === 'ship#2').map((m) => m.index)).toEqual([
      0, 1, 2, 3, 4, 5, 6,
    ]);
  });

  it('the stall count, the compaction and a verify call that does not confirm yet', async () => {
    const fork = await forkState(source(), 23, 'run_new', await shipFlow());
    const node = fork.doc.node;
    // The stall after s3 counted 1; s4's SUCCESS set it back to 0.
    expect(node?.stalls).toBe(0);
    expect(node?.context).toEqual({ stubbed: 1, dropped: 0, compactions: 1, last: null });
    expect(node?.pendingWrites.map((p) => p.tool)).toEqual(['ship']);
    expect(fork.evidence.map((r) => r.id)).toEqual(['ev_1', 'ev_2', 'ev_3']);
  });

  it('after the verify call that confirms: no pending write, the answered follow-up kept', async () => {
    const fork = await forkState(source(), 29, 'run_new', await shipFlow());
    expect(fork.doc.node?.pendingWrites).toEqual([]);
    expect(fork.doc.run.followUps).toEqual([
      { question: 'ship now?', options: null, answer: 'yes', nodeId: 'ship' },
    ]);
    expect(fork.doc.node?.fingerprintCounts).toEqual({ fp_ship: 1, fp_status: 1 });
    expect(fork.evidence.map((r) => r.id)).toEqual(['ev_1', 'ev_2', 'ev_3', 'ev_4']);
  });

  it('an approval whose write had not executed by the fork is not consumed', async () => {
    const events = trace(
      ['node.started', { nodeId: 'ship' }],
      round('ship', 1),
      ['run.resumed', { kind: 'APPROVAL', nodeId: 'ship', decision: 'approved' }],
      round('ship', 2),
      call('ship', 2, 'x1', { tool: 'ship', args: { orderId: 'o2' } }), // another call of the tool
      round('ship', 3),
      ['run.resumed', { kind: 'APPROVAL', nodeId: 'ship', decision: 'rejected' }],
    );
    const convo = { 'ship#1': conversation('ship#1', ['x1']) };
    const fork = await forkState(source(events, convo), 5, 'run_new', await shipFlow());
    expect(fork.doc.run.approvals).toEqual([{ ...APPROVAL, consumed: false }]);
  });

  it('a stall after the last success is kept', async () => {
    const events = trace(
      ['node.started', { nodeId: 'ship' }],
      round('ship', 1),
      call('ship', 1, 'x1'),
      ['react.stall', { nodeId: 'ship', stalls: 2 }],
      round('ship', 2),
      call('ship', 2, 'x2', { outcome: 'FAILED', executed: true }),
    );
    const convo = { 'ship#1': conversation('ship#1', ['x1', 'x2']) };
    const fork = await forkState(source(events, convo), 6, 'run_new', await shipFlow());
    expect(fork.doc.node?.stalls).toBe(2);
    expect(fork.doc.node?.rounds).toBe(2);
  });

  it("throws when the fork's node run has no tool message for the fork call", async () => {
    const convo = { 'lookup#1': conversation('lookup#1', ['l1']) };
    await expect(forkState(source(EVENTS, convo), 6, 'run_new', await shipFlow())).rejects.toThrow(
      'fork: the conversation of lookup#1 has no tool message for l2',
    );
  });
});
