import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../web/src/api.js';
import { emptyRun, foldEvents, latestSuspension } from '../../web/src/trace-model.js';

/**
 * What the run page makes of an approval policy's trace events (docs/approvals.md), without a browser:
 * every approver where several were needed, an edit's old and new arguments, an escalation, and a
 * rejection by expiry.
 */

const ts = '2026-12-07T09:00:00.000Z';
const base = (seq: number, type: string, fields: Record<string, unknown> = {}): TraceEvent => ({
  seq,
  ts,
  runId: 'r1',
  type,
  ...fields,
});
const pending = { id: 'pnd_1', tool: 'refund', args: { orderId: 'o1', amount: 500 }, summary: 'refund' };
const opening = [
  base(1, 'run.started', { flowId: 'refunds' }),
  base(2, 'node.started', { nodeId: 'main' }),
  base(3, 'run.suspended', { nodeId: 'main', kind: 'APPROVAL', pending }),
];

describe('the console folds approval policy events', () => {
  it('keeps every approver and the edited arguments of the decision', () => {
    const approvers = foldEvents(emptyRun(), [
      ...opening,
      base(4, 'approval.voted', { nodeId: 'main', tool: 'refund', who: 'olivia', approvals: 1, count: 2 }),
      base(5, 'run.resumed', {
        nodeId: 'main',
        kind: 'APPROVAL',
        decision: 'approved',
        who: 'oscar',
        comment: null,
        approvers: ['olivia', 'oscar'],
      }),
    ]);
    expect(latestSuspension(approvers)?.resolution).toMatchObject({
      who: 'oscar',
      approvers: ['olivia', 'oscar'],
    });
    const edited = foldEvents(emptyRun(), [
      ...opening,
      base(4, 'run.resumed', {
        nodeId: 'main',
        kind: 'APPROVAL',
        decision: 'approved',
        who: 'olivia',
        comment: null,
        args: { orderId: 'o1', amount: 50 },
        editedFrom: { orderId: 'o1', amount: 500 },
      }),
    ]);
    expect(latestSuspension(edited)?.resolution).toMatchObject({
      approvers: null,
      edit: { from: { orderId: 'o1', amount: 500 }, to: { orderId: 'o1', amount: 50 } },
    });
  });

  it('marks an escalated item (it keeps waiting) and a rejection by expiry', () => {
    const view = foldEvents(emptyRun(), [
      ...opening,
      base(4, 'approval.escalated', {
        nodeId: 'main',
        pendingId: 'pnd_1',
        tool: 'refund',
        escalateTo: ['admin'],
      }),
    ]);
    const item = latestSuspension(view);
    expect(item?.escalated).toEqual({ ts, to: ['admin'] });
    expect(item?.resolution).toBeNull();
    const expired = foldEvents(view, [
      base(5, 'approval.expired', { nodeId: 'main', pendingId: 'pnd_1', tool: 'refund' }),
      base(6, 'run.resumed', {
        nodeId: 'main',
        kind: 'APPROVAL',
        decision: 'rejected',
        who: 'expiry',
        comment: 'late',
      }),
    ]);
    expect(latestSuspension(expired)?.resolution).toMatchObject({ decision: 'rejected', who: 'expiry' });
  });
});
