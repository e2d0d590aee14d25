import { describe, expect, it } from 'vitest';
import { applyChange, applyChanges, ChangeLog, type CallChange } from '../../src/records/changes.js';
import { newLoopState } from '../../src/records/loop-state.js';
import { newNodeState, newRunState, type EvidenceRecord } from '../../src/records/run-state.js';

function target() {
  return { run: newRunState('run_1', { text: 'hi' }), node: newNodeState('n'), loop: newLoopState() };
}

const evidence: EvidenceRecord = {
  id: 'ev_1',
  tool: 'space_list',
  args: {},
  fingerprint: 'f_read',
  outcome: 'SUCCESS',
  errorCode: null,
  payload: { data: [] },
  ts: '2026-01-01T00:00:00.000Z',
  nodeId: 'n',
  callId: 'c1',
};
const mark = {
  fingerprint: 'f_write',
  tool: 'site_create',
  args: { name: 'a' },
  key: 'k',
  nodeId: 'n',
  callId: 'c2',
  startedAt: '2026-01-01T00:00:00.000Z',
};
const approval = {
  fingerprint: 'f_write',
  tool: 'site_create',
  args: { name: 'a' },
  nodeId: 'n',
  grantedAt: '2026-01-01T00:00:00.000Z',
  who: 'ann',
  comment: null,
  consumed: false,
};

describe('applyChange: the one writer of run state', () => {
  it('evidence, in-flight marks and their landing (by node, call and fingerprint, not by object)', () => {
    const t = target();
    applyChanges(t, [
      { kind: 'evidence', record: evidence },
      { kind: 'inFlight', mark },
      { kind: 'inFlight', mark: { ...mark, callId: 'c3' } },
    ]);
    expect(t.run.evidence).toEqual([evidence]);
    applyChange(t, { kind: 'landed', nodeId: 'n', callId: 'c2', fingerprint: 'f_other' });
    expect(t.run.inFlight.map((w) => w.callId)).toEqual(['c2', 'c3']);
    applyChange(t, { kind: 'landed', nodeId: 'n', callId: 'c2', fingerprint: 'f_write' });
    expect(t.run.inFlight.map((w) => w.callId)).toEqual(['c3']);
    applyChange(t, { kind: 'landed', nodeId: 'other', callId: 'c3', fingerprint: 'f_write' });
    expect(t.run.inFlight.map((w) => w.callId)).toEqual(['c3']);
  });

  it('tasks: started, then ended by server and task id; the list goes when empty', () => {
    const t = target();
    const task = { ...mark, server: 's', taskId: 't1' };
    applyChange(t, { kind: 'taskStarted', task });
    const twin = { ...task, callId: 'c9', taskId: 't2' };
    applyChange(t, { kind: 'taskStarted', task: twin });
    applyChange(t, { kind: 'taskEnded', server: 'other', taskId: 't1' });
    expect(t.run.tasks).toEqual([task, twin]);
    // Only the call's own task: another call's task of the same read stays.
    applyChange(t, { kind: 'taskEnded', server: 's', taskId: 't1' });
    expect(t.run.tasks).toEqual([twin]);
    applyChange(t, { kind: 'taskEnded', server: 's', taskId: 't2' });
    expect('tasks' in t.run).toBe(false);
  });

  it('the gated call: set, decided only when the fingerprint is its own, cleared', () => {
    const t = target();
    const call = { tool: 'site_create', args: { name: 'a' }, fingerprint: 'f_write', provenance: {} };
    applyChange(t, { kind: 'gate', call });
    applyChange(t, { kind: 'gateDecided', fingerprint: 'f_other', declined: true });
    expect(t.node.gatedCall?.declined).toBeUndefined();
    applyChange(t, { kind: 'gateDecided', fingerprint: 'f_write', declined: true, decidedBy: 'reject' });
    expect(t.node.gatedCall).toMatchObject({ declined: true, decidedBy: 'reject' });
    applyChange(t, { kind: 'ungate', fingerprint: 'f_other' });
    expect(t.node.gatedCall).not.toBeNull();
    applyChange(t, { kind: 'ungate', fingerprint: 'f_write' });
    expect(t.node.gatedCall).toBeNull();
  });

  it('approvals: added, and only the open one of the fingerprint used up', () => {
    const t = target();
    applyChanges(t, [
      { kind: 'approval', approval: { ...approval, consumed: true, who: 'old' } },
      { kind: 'approval', approval },
      { kind: 'approvalUsed', fingerprint: 'f_write' },
    ]);
    expect(t.run.approvals.map((a) => [a.who, a.consumed])).toEqual([
      ['old', true],
      ['ann', true],
    ]);
  });

  it('pending writes, answers, counts, outputs and the approved-write-failed flag', () => {
    const t = target();
    const pending = {
      tool: 'site_create',
      fingerprint: 'f_write',
      verifyTool: 'site_get',
      verifyArgs: { id: 1 },
      done: 'true',
      scope: { args: {}, result: null, key: 'k' },
    };
    const elicitation = { server: 's', tool: 't', fingerprint: 'f', action: 'accept' as const };
    applyChanges(t, [
      { kind: 'pendingWrite', pending },
      { kind: 'followUp', record: { question: 'q', options: null, answer: 'a', nodeId: 'n', elicitation } },
      { kind: 'answerUsed', index: 0 },
      { kind: 'answerUsed', index: 7 },
      { kind: 'count', fingerprint: 'f_read', count: 2 },
      { kind: 'output', key: 'siteId', value: { value: 's1', sourceType: 'model', sourceRef: null } },
      { kind: 'approvedWriteFailed', value: true },
    ]);
    expect(t.node.pendingWrites).toEqual([pending]);
    expect(t.run.followUps[0]?.elicitation?.used).toBe(true);
    expect(t.node.fingerprintCounts).toEqual({ f_read: 2 });
    expect(t.node.outputs.siteId?.value).toBe('s1');
    expect(t.node.approvedWriteFailed).toBe(true);
    applyChange(t, { kind: 'verified', fingerprint: 'f_write' });
    expect(t.node.pendingWrites).toEqual([]);
  });

  it("the loop's changes: rounds, stalls, progress, the wave and its next call, the responded call", () => {
    const t = target();
    const wave = { round: 1, calls: [{ callId: 'c1', tool: 'x', rawArgs: '{}' }], next: 0 };
    applyChanges(t, [{ kind: 'round' }, { kind: 'stall' }, { kind: 'stall' }, { kind: 'wave', wave }]);
    expect([t.node.rounds, t.node.stalls]).toEqual([1, 2]);
    applyChanges(t, [{ kind: 'progress' }, { kind: 'waveNext', next: 1 }]);
    expect([t.node.stalls, t.loop.wave?.next]).toEqual([0, 1]);
    applyChange(t, { kind: 'wave', wave: null });
    applyChange(t, { kind: 'waveNext', next: 2 });
    expect(t.loop.wave).toBeNull();
    t.loop.resolved = {
      call: { round: 1, callId: 'c', tool: 't', args: {}, kind: 'FOLLOW_UP' },
      observation: { outcome: 'SUCCESS', errorCode: null, reason: 'ok', next: '' },
    };
    applyChange(t, { kind: 'resolvedCounted' });
    expect(t.loop.resolved).toBeNull();
  });

  it("a loop change without the loop's state is a bug: it throws", () => {
    const { run, node } = target();
    expect(() => applyChange({ run, node }, { kind: 'wave', wave: null })).toThrow(/loop state/);
  });
});

describe('ChangeLog', () => {
  it('applies each change as it is recorded and lists them in order, frozen', () => {
    const t = target();
    const log = new ChangeLog(t);
    expect(log.list()).toEqual([]);
    const changes: CallChange[] = [
      { kind: 'count', fingerprint: 'f', count: 1 },
      { kind: 'evidence', record: evidence },
    ];
    log.record(changes[0]!);
    expect(t.node.fingerprintCounts.f).toBe(1);
    log.record(changes[1]!);
    const listed = log.list();
    expect(listed).toEqual(changes);
    expect(Object.isFrozen(listed)).toBe(true);
    log.record({ kind: 'count', fingerprint: 'f', count: 2 });
    expect(listed).toHaveLength(2);
    expect(log.list()).toHaveLength(3);
  });

  it('keeps a change as it was made: a later change replaces the record, never edits it', () => {
    const t = target();
    const log = new ChangeLog(t);
    const call = { tool: 'site_create', args: { name: 'a' }, fingerprint: 'f_write', provenance: {} };
    log.record({ kind: 'gate', call });
    log.record({ kind: 'gateDecided', fingerprint: 'f_write', declined: true, decidedBy: 'reject' });
    log.record({ kind: 'approval', approval });
    log.record({ kind: 'approvalUsed', fingerprint: 'f_write' });
    const [gate, , added] = log.list();
    expect(gate).toEqual({ kind: 'gate', call });
    expect(call).toEqual({
      tool: 'site_create',
      args: { name: 'a' },
      fingerprint: 'f_write',
      provenance: {},
    });
    expect(added).toEqual({ kind: 'approval', approval: { ...approval, consumed: false } });
    expect(t.node.gatedCall).toMatchObject({ declined: true, decidedBy: 'reject' });
    expect(t.run.approvals[0]?.consumed).toBe(true);
    expect(Object.isFrozen(gate)).toBe(true);
  });
});
