import { describe, expect, it } from 'vitest';
import { STORES, continued, invocations, traceOf } from './corpus.js';

/**
 * The frozen run documents of test/fixtures/run-documents (its README) load into a fresh store and
 * continue to completion under the current code: runs suspended for a person, and a parent suspended
 * through its delegated child. Runs frozen in the middle of a step: run-documents-crash.test.ts.
 */
describe.each(STORES)('frozen suspended run documents continue to completion (%s)', (_kind, open) => {
  it('a run suspended for an approval: approved, the write runs once and the run completes', async () => {
    const { runtime, model, runId, world, file } = await continued('suspended-approval', open);
    expect(file.documentVersion).toBe(1);
    const before = await runtime.status(runId);
    expect(before).toMatchObject({ status: 'suspended', suspension: { kind: 'APPROVAL' } });
    const done = await runtime.approve(runId, { model, who: 'corpus' });
    expect(done.status).toBe('completed');
    expect(world.saved).toEqual(['Alpha']);
    await runtime.close();
  });

  it('a run suspended on a follow-up: answered, the node goes on and the run completes', async () => {
    const { runtime, model, runId, world } = await continued('suspended-follow-up', open);
    expect(await runtime.status(runId)).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'FOLLOW_UP' },
    });
    const done = await runtime.answer(runId, '2', { model });
    expect(done.status).toBe('completed');
    expect(world.looked).toEqual([2]);
    await runtime.close();
  });

  it('a parent suspended through its child: approved, the child then the parent complete, the write once', async () => {
    const { runtime, model, runId, world, file } = await continued('with-child', open);
    expect(file.runs).toHaveLength(2);
    const childId = file.runs[1]!.record.runId;
    const pending = { kind: 'APPROVAL', pending: { tool: 'save', args: { name: 'Delta' } } };
    expect(await runtime.status(runId)).toMatchObject({ status: 'suspended', suspension: pending });
    expect(await runtime.status(childId)).toMatchObject({
      status: 'suspended',
      parentRunId: runId,
      suspension: pending,
    });

    const done = await runtime.approve(runId, { model, who: 'corpus' });
    expect(done.status).toBe('completed');
    expect(world.saved).toEqual(['Delta']);
    const child = await runtime.status(childId);
    expect(child).toMatchObject({ status: 'completed', outputs: { order: { saved: 'Delta' } } });
    // The delegate call's observation carries the child's outputs; the child ran no second time.
    expect(invocations(await traceOf(runtime, runId), 'call_1_1')).toEqual([
      expect.objectContaining({ tool: 'builtin_node_delegate', outcome: 'SUCCESS' }),
    ]);
    expect(await runtime.list({ parentRunId: runId })).toHaveLength(1);
    const childTrace = await traceOf(runtime, childId);
    expect(childTrace.filter((e) => e.type === 'run.resumed')).toEqual([
      expect.objectContaining({ kind: 'APPROVAL', decision: 'approved', who: 'corpus' }),
    ]);
    expect(childTrace.filter((e) => e.type === 'tool.invoked' && e.executed)).toEqual([
      expect.objectContaining({ tool: 'save', args: { name: 'Delta' } }),
    ]);
    await runtime.close();
  });

  it('parallel branches both suspended for approvals: each approved by its id, each write once, the join once', async () => {
    const { runtime, model, runId, world, file } = await continued('parallel-approvals', open);
    const state = file.runs[0]!.record.state as { branches?: { nodeId: string }[] };
    expect(state.branches?.map((b) => b.nodeId)).toEqual(['left', 'right']);
    const before = await runtime.status(runId);
    expect(before).toMatchObject({ status: 'suspended', suspension: { kind: 'APPROVAL' } });
    const waiting = (await traceOf(runtime, runId))
      .filter((e) => e.type === 'node.suspended')
      .map((e) => (e as unknown as { pending: { id: string } }).pending.id);
    expect(waiting).toHaveLength(2);
    const second = waiting.find((id) => id !== before.suspension?.pending.id);
    const one = await runtime.approve(runId, { model, who: 'corpus', expect: second });
    expect(one.status).toBe('suspended');
    const done = await runtime.approve(runId, { model, who: 'corpus' });
    expect(done.status).toBe('completed');
    expect([...world.saved].sort()).toEqual(['Left', 'Right']);
    expect(world.looked).toEqual([3]);
    const trace = await traceOf(runtime, runId);
    expect(trace.filter((e) => e.type === 'node.started' && e.nodeId === 'sum')).toHaveLength(1);
    await runtime.close();
  });
});
