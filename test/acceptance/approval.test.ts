/**
 * Acceptance scenarios 1, 2, 3, 8 and 11 of the seed (TOOL_OBSERVATION.zh.md §9) and the declined
 * approval: writes are gated, approved in a new process, executed once (docs/acceptance.md).
 */
import { describe, expect, it } from 'vitest';
import { flowFile, turnsFile } from './cli.js';
import {
  SITE_INPUT,
  expectResumed,
  expectRun,
  expectSuspended,
  message,
  reason,
  useSandbox,
  zh,
  SCENARIO_TIMEOUT_MS,
} from './scenario.js';
import { after, expectInOrder, expectTraceContract, invoked, nextStep, ofType, one } from './trace.js';

const sandbox = useSandbox();
const CREATE_ARGS = { spaceId: 's1', name: '官网' };

describe.concurrent('acceptance: writes and approvals', { timeout: SCENARIO_TIMEOUT_MS }, () => {
  it('1: a write called directly is DEFERRED APPROVAL_REQUIRED (no stall, no no_tool_calls); the approval call suspends APPROVAL (exit 3)', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('site'), turnsFile('write-then-approve'), SITE_INPUT);

    const pending = {
      tool: 'web_site_create',
      args: { ...CREATE_ARGS, plan: 'basic' },
      summary: '在「默认空间」创建站点「官网」',
      provenance: { spaceId: 'ev_1' },
    };
    const summary = expectSuspended(r, 'APPROVAL', pending);
    expect(summary.outputs).toEqual({ query: {} });
    expectTraceContract(r.events);
    expect(r.events[0]).toMatchObject({
      type: 'run.started',
      flowId: 'acceptance-site',
      flowVersion: 1,
      input: { text: SITE_INPUT },
    });
    expectInOrder(r.events, [
      'run.started',
      'node.started',
      'node.completed',
      'node.started',
      'tool.invoked',
      'node.suspended',
      'run.suspended',
    ]);

    const write = one(invoked(r.events, 'web_site_create'));
    expect(write).toMatchObject({
      nodeId: 'create',
      round: 1,
      args: { ...CREATE_ARGS, plan: 'basic' },
      outcome: 'DEFERRED',
      errorCode: 'APPROVAL_REQUIRED',
      executed: false,
      evidenceId: null,
      level: 'info',
      lookBack: false,
      message: message(
        reason('APPROVAL_REQUIRED'),
        zh('NEXT_APPROVAL_REQUIRED', { tool: 'web_site_create' }),
      ),
    });
    expect(ofType(r.events, 'react.no_tool_calls')).toEqual([]);
    expect(ofType(r.events, 'react.stall')).toEqual([]);
    // The next round's model call is the approval, which suspends the run.
    const rest = r.events.slice(r.events.indexOf(write) + 1);
    expect(rest.map((e) => e.type)).toEqual([
      'react.round',
      'phase.hint',
      'model.response',
      'node.suspended',
      'run.suspended',
    ]);
    expect(rest[2]).toMatchObject({ round: 2, toolCalls: [{ tool: 'builtin_node_approval' }] });
    expect(rest[3]).toMatchObject({ nodeId: 'create' });
    // Only the node with a required output gets a phase hint.
    for (const h of ofType(r.events, 'phase.hint'))
      expect(h).toMatchObject({ nodeId: 'create', text: zh('PHASE_MISSING', { keys: 'siteId' }) });

    expect(r.stderr).toContain(
      'INFO TOOL invoked tool=web_site_create outcome=DEFERRED code=APPROVAL_REQUIRED',
    );
    expect(r.stderr).not.toContain('REACT no_tool_calls');
    expect(box.writes()).toEqual([]);
  });

  it('8: approved in a new process, the write runs once (SUCCESS), an identical call is a reuse, and the run completes (exit 0)', async () => {
    const box = sandbox();
    const first = await box.run(flowFile('site'), turnsFile('write-then-approve'), SITE_INPUT);
    const { runId } = expectSuspended(first, 'APPROVAL', { tool: 'web_site_create' });

    const r = await box.approve(runId, '可以创建');
    const summary = expectRun(r, 0, 'completed');
    expect(summary.outputs).toEqual({ query: {}, create: { siteId: 'site_1' } });
    expectResumed(
      r,
      { nodeId: 'create', kind: 'APPROVAL', decision: 'approved', comment: '可以创建', who: 'acceptance' },
      'builtin_node_approval',
    );
    expect(r.events[1]).toMatchObject({
      outcome: 'SUCCESS',
      message: zh('APPROVAL_GRANTED', { tool: 'web_site_create' }),
      executed: false,
    });

    const [written, reused, ...more] = invoked(r.events, 'web_site_create');
    expect(more).toEqual([]);
    expect(written).toMatchObject({
      outcome: 'SUCCESS',
      errorCode: null,
      executed: true,
      evidenceId: 'ev_3',
      level: 'info',
    });
    expect(reused).toMatchObject({
      outcome: 'SUCCESS',
      errorCode: null,
      executed: false,
      evidenceId: 'ev_3',
    });
    expect(reused?.message).toContain(zh('REUSED'));
    expect(invoked(r.events, 'web_site_get').map((e) => [e.outcome, e.evidenceId])).toEqual([
      ['SUCCESS', 'ev_4'],
      ['SUCCESS', 'ev_5'],
    ]);
    expect(one(invoked(r.events, 'builtin_output_set'))).toMatchObject({
      outcome: 'SUCCESS',
      message: zh('OUTPUT_WRITTEN', { key: 'siteId' }),
    });
    expect(one(ofType(r.events, 'node.completed'))).toMatchObject({
      nodeId: 'create',
      outputs: { siteId: 'site_1' },
    });
    const completed = r.events.at(-1);
    expect(completed).toMatchObject({ type: 'run.completed', outputs: summary.outputs });
    expect(ofType(r.events, 'react.stall')).toEqual([]);

    // The demo server executed exactly one write, with an idempotency key.
    const writes = box.writes();
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatchObject({
      tool: 'web_site_create',
      args: { ...CREATE_ARGS, plan: 'basic' },
      reply: { code: 0 },
    });
    expect(writes[0]?.idempotencyKey).toEqual(expect.any(String));

    // Both processes appended to one trace file; it is the run's whole trace, as `trace --json` prints it.
    const all = box.allEvents();
    expectTraceContract(all);
    const listed = await box.trace(runId);
    expect(listed.code).toBe(0);
    expect(listed.events).toEqual(all);
    const status = await box.status(runId);
    expect(expectRun(status, 0, 'completed').outputs).toEqual(summary.outputs);
  });

  it('two approve processes racing continue the run once: one exits 0, the other 4, and the server saw one write', async () => {
    const box = sandbox();
    const first = await box.run(flowFile('site'), turnsFile('write-then-approve'), SITE_INPUT);
    const { runId } = expectSuspended(first, 'APPROVAL', { tool: 'web_site_create' });

    const results = await Promise.all([box.approve(runId), box.approve(runId)]);
    expect(results.map((r) => r.code).sort()).toEqual([0, 4]);
    const loser = results.find((r) => r.code === 4)!;
    expect(loser.stdout).toBe('');
    expect(loser.stderr).toContain(runId);
    expect(ofType(box.allEvents(), 'run.resumed')).toHaveLength(1);
    expect(ofType(box.allEvents(), 'run.completed')).toHaveLength(1);
    expect(box.writes()).toHaveLength(1);
    expectTraceContract(box.allEvents());
  });

  it('2: builtin_node_approval before any write is REJECTED APPROVAL_NOT_GATED and counts one stall', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('site'), turnsFile('approval-first'), SITE_INPUT);
    expectSuspended(r, 'APPROVAL', { tool: 'web_site_create', args: CREATE_ARGS });
    expectTraceContract(r.events);

    const early = invoked(r.events, 'builtin_node_approval')[0]!;
    expect(early).toMatchObject({
      nodeId: 'create',
      outcome: 'REJECTED',
      errorCode: 'APPROVAL_NOT_GATED',
      executed: false,
      message: message(
        reason('APPROVAL_NOT_GATED', { tool: 'web_site_create' }),
        zh('NEXT_APPROVAL_NOT_GATED'),
      ),
    });
    expect(after(r.events, early)).toMatchObject({
      type: 'react.stall',
      nodeId: 'create',
      stalls: 1,
      maxStalls: 5,
    });
    const write = one(invoked(r.events, 'web_site_create'));
    expect(write).toMatchObject({ outcome: 'DEFERRED', errorCode: 'APPROVAL_REQUIRED' });
    expect(ofType(r.events, 'react.stall')).toHaveLength(1);
    // A DEFERRED call skips the rest of its wave (no stall); a suspending call too, before the suspension events.
    expect(after(r.events, write)).toMatchObject({ type: 'tool.skipped', tool: 'web_site_list' });
    expect(r.events.slice(-3).map((e) => [e.type, e.tool])).toEqual([
      ['tool.skipped', 'space_list'],
      ['node.suspended', undefined],
      ['run.suspended', undefined],
    ]);
    // Each skipped call still gets a tool message (providers need one per call id).
    const skipped = box.storedMessages().filter((m) => m.includes(zh('SKIPPED')));
    expect(skipped).toHaveLength(2);
  });

  it('3: an approval naming another tool is REJECTED APPROVAL_TOOL_MISMATCH; its next step names the gated tool', async () => {
    const r = await sandbox().run(flowFile('site'), turnsFile('approval-mismatch'), SITE_INPUT);
    expectSuspended(r, 'APPROVAL', { tool: 'web_site_create', args: CREATE_ARGS });
    expectTraceContract(r.events);

    const wrong = one(invoked(r.events, 'builtin_node_approval'));
    expect(wrong).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'APPROVAL_TOOL_MISMATCH',
      args: { tool: 'web_site_add' },
      message: message(
        reason('APPROVAL_TOOL_MISMATCH', { tool: 'web_site_add', gated: 'web_site_create' }),
        zh('NEXT_APPROVAL_TOOL_MISMATCH', { gated: 'web_site_create' }),
      ),
    });
    expect(after(r.events, wrong)).toMatchObject({ type: 'react.stall', stalls: 1 });
  });

  it('11: an approved write that fails with a business error asks the user (NEXT_APPROVED_FAILED); the follow-up is not UNGROUNDED; the answer needs a new approval', async () => {
    const box = sandbox();
    box.seedSites([{ siteId: 'site_1', name: '官网' }]);
    const first = await box.run(flowFile('site'), turnsFile('approved-write-fails'), SITE_INPUT);
    const { runId } = expectSuspended(first, 'APPROVAL', { tool: 'web_site_create', args: CREATE_ARGS });

    const question = 'web_site_create 执行失败：站点名称「官网」已存在。是否换一个名称重新创建？';
    const approved = await box.approve(runId);
    expectSuspended(approved, 'FOLLOW_UP', { question });
    expectResumed(
      approved,
      { kind: 'APPROVAL', decision: 'approved', comment: null },
      'builtin_node_approval',
    );
    const failed = one(invoked(approved.events, 'web_site_create'));
    expect(failed).toMatchObject({
      outcome: 'FAILED',
      errorCode: 'TOOL_BUSINESS_FAILED',
      level: 'warn',
      executed: true,
      evidenceId: 'ev_3',
      message: message(
        reason('TOOL_BUSINESS_FAILED', { code: 'system.50001', message: '站点名称已存在' }),
        zh('NEXT_APPROVED_FAILED'),
      ),
    });
    expect(after(approved.events, failed)).toMatchObject({ type: 'react.stall', stalls: 1 });
    expect(invoked(approved.events, 'builtin_node_follow_up')).toEqual([]);
    expect(approved.stderr).toContain(
      'WARN TOOL invoked tool=web_site_create outcome=FAILED code=TOOL_BUSINESS_FAILED',
    );
    expect(box.writes().map((w) => w.reply.code)).toEqual(['system.50001']);

    const answered = await box.answer(runId, '换成 官网二号');
    expectSuspended(answered, 'APPROVAL', {
      tool: 'web_site_create',
      args: { spaceId: 's1', name: '官网二号' },
    });
    expectResumed(
      answered,
      { kind: 'FOLLOW_UP', answer: '换成 官网二号', who: 'acceptance' },
      'builtin_node_follow_up',
    );
    expect(answered.events[1]).toMatchObject({ outcome: 'SUCCESS', errorCode: null });
    expect(answered.events[1]?.message).toContain('换成 官网二号');
    // The exemption covered only the first follow-up after the failure: a verbal confirmation now is UNGROUNDED.
    const confirming = one(invoked(answered.events, 'builtin_node_follow_up').slice(1));
    expect(confirming).toMatchObject({ outcome: 'REJECTED', errorCode: 'FOLLOW_UP_UNGROUNDED' });
    expect(nextStep(confirming.message)).toBe(`${zh('NEXT_FOLLOW_UP_WRITE')}。`);
    // The approval was single-use: the new write is stopped again.
    expect(one(invoked(answered.events, 'web_site_create'))).toMatchObject({
      outcome: 'DEFERRED',
      errorCode: 'APPROVAL_REQUIRED',
      executed: false,
    });
    expect(box.writes()).toHaveLength(1);
    expectTraceContract(box.allEvents());
    expect(approved.events.some((e) => e.errorCode === 'FOLLOW_UP_UNGROUNDED')).toBe(false);
  });

  it('reject in a new process: the approval call is REJECTED APPROVAL_DENIED with the comment; nothing is written', async () => {
    const box = sandbox();
    const first = await box.run(flowFile('site'), turnsFile('reject'), SITE_INPUT);
    const { runId } = expectSuspended(first, 'APPROVAL', { tool: 'web_site_create', args: CREATE_ARGS });

    const r = await box.reject(runId, '名称要改');
    expectSuspended(r, 'FOLLOW_UP', { question: '请问新站点应该用什么名称？' });
    expectResumed(
      r,
      { kind: 'APPROVAL', decision: 'rejected', comment: '名称要改', who: 'acceptance' },
      'builtin_node_approval',
    );
    const denied = r.events[1]!;
    expect(denied).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'APPROVAL_DENIED',
      executed: false,
      message: message(
        reason('APPROVAL_DENIED', { tool: 'web_site_create', comment: '名称要改' }),
        zh('NEXT_APPROVAL_DENIED'),
      ),
    });
    expect(r.events[2]).toMatchObject({ type: 'react.stall', stalls: 1 });
    expect(invoked(r.events, 'web_site_create')).toEqual([]);
    expect(box.writes()).toEqual([]);
    expectTraceContract(box.allEvents());
  });
});
