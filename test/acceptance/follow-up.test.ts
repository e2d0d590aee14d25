/**
 * Acceptance scenarios 4 and 5 of the seed (TOOL_OBSERVATION.zh.md §9): follow-up questions that were
 * already answered, that confirm a write verbally, or that echo the user (docs/acceptance.md).
 */
import { describe, expect, it } from 'vitest';
import { flowFile, turnsFile } from './cli.js';
import {
  SITE_INPUT,
  expectResumed,
  expectSuspended,
  message,
  reason,
  useSandbox,
  zh,
  SCENARIO_TIMEOUT_MS,
} from './scenario.js';
import { after, expectTraceContract, invoked, ofType } from './trace.js';

const sandbox = useSandbox();

describe.concurrent('acceptance: follow-up questions', { timeout: SCENARIO_TIMEOUT_MS }, () => {
  it('4: after the answer (new process), the same question is REJECTED FOLLOW_UP_ANSWERED with the answer, and the answer grounds the write', async () => {
    const box = sandbox();
    const first = await box.run(flowFile('site'), turnsFile('follow-up-answered'), '在默认空间建一个新站点');
    const { runId } = expectSuspended(first, 'FOLLOW_UP', { question: '新站点叫什么名字？' });
    expect(invoked(first.events, 'builtin_node_follow_up')).toEqual([]);

    const r = await box.answer(runId, '就叫 官网 吧');
    expectSuspended(r, 'APPROVAL', { tool: 'web_site_create', args: { spaceId: 's1', name: '官网' } });
    expectResumed(
      r,
      { nodeId: 'create', kind: 'FOLLOW_UP', answer: '就叫 官网 吧', who: 'acceptance' },
      'builtin_node_follow_up',
    );
    const [answered, repeated] = invoked(r.events, 'builtin_node_follow_up');
    expect(answered).toMatchObject({ outcome: 'SUCCESS', errorCode: null, executed: false });
    expect(answered?.message).toContain('就叫 官网 吧');
    expect(repeated).toMatchObject({
      args: { question: '新站点叫 什么名字?' },
      outcome: 'REJECTED',
      errorCode: 'FOLLOW_UP_ANSWERED',
      executed: false,
      message: message(
        reason('FOLLOW_UP_ANSWERED', { answer: '就叫 官网 吧' }),
        zh('NEXT_FOLLOW_UP_ANSWERED'),
      ),
    });
    expect(after(r.events, repeated!)).toMatchObject({ type: 'react.stall', stalls: 1 });
    // The name came from the answer, so the write passes the provenance check and waits for approval.
    expect(invoked(r.events, 'web_site_create')[0]).toMatchObject({
      outcome: 'DEFERRED',
      errorCode: 'APPROVAL_REQUIRED',
    });
    expectTraceContract(box.allEvents());
  });

  it('5: a follow-up that confirms a write verbally, or echoes the user, is REJECTED FOLLOW_UP_UNGROUNDED and never suspends', async () => {
    const box = sandbox();
    const r = await box.run(flowFile('site'), turnsFile('follow-up-ungrounded'), SITE_INPUT);
    expectSuspended(r, 'APPROVAL', { tool: 'web_site_create', args: { spaceId: 's1', name: '官网' } });
    expectTraceContract(r.events);

    const writeNext = zh('NEXT_FOLLOW_UP_WRITE');
    const [namesWrite, echo, confirms, ...more] = invoked(r.events, 'builtin_node_follow_up');
    expect(more).toEqual([]);
    expect(namesWrite).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'FOLLOW_UP_UNGROUNDED',
      message: message(
        reason('FOLLOW_UP_UNGROUNDED', {
          what: zh('UNGROUNDED_CONFIRMS_WRITE', { tool: 'web_site_create' }),
        }),
        writeNext,
      ),
    });
    expect(echo).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'FOLLOW_UP_UNGROUNDED',
      message: message(
        reason('FOLLOW_UP_UNGROUNDED', { what: zh('UNGROUNDED_ECHO') }),
        zh('NEXT_FOLLOW_UP_WRITE'),
      ),
    });
    // With a gated call waiting, a yes/no confirmation is about that write.
    expect(confirms).toMatchObject({
      args: { question: '请确认站点名称', options: ['是', '否'] },
      outcome: 'REJECTED',
      errorCode: 'FOLLOW_UP_UNGROUNDED',
      message: message(
        reason('FOLLOW_UP_UNGROUNDED', {
          what: zh('UNGROUNDED_CONFIRMS_WRITE', { tool: 'web_site_create' }),
        }),
        writeNext,
      ),
    });
    // Each rejection stalls; the DEFERRED write between them neither stalls nor resets the count.
    expect(ofType(r.events, 'react.stall').map((e) => e.stalls)).toEqual([1, 2, 3]);
    expect(after(r.events, confirms!)).toMatchObject({ type: 'react.stall', stalls: 3 });
    expect(invoked(r.events, 'web_site_create')[0]).toMatchObject({ outcome: 'DEFERRED' });
    expect(ofType(r.events, 'run.suspended')).toHaveLength(1);
  });
});
