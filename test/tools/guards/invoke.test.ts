import { afterEach, describe, expect, it, vi } from 'vitest';
import { code } from '../../../src/domain/error-codes.js';
import { fingerprint } from '../../../src/domain/fingerprint.js';
import { Observation } from '../../../src/domain/observation.js';
import { approve } from '../../../src/tools/approval/index.js';
import { createBuiltins } from '../../../src/tools/builtin/registry.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { invokeStep } from '../../../src/tools/guards/invoke.js';
import { idempotencyKey } from '../../../src/tools/guards/keys.js';
import type { InvokeOptions, ToolInvokerPort } from '../../../src/tools/call.js';
import { ToolRejectedException } from '../../../src/tools/rejected.js';
import type { ToolDescriptor } from '../../../src/tools/tool.js';
import { cloudTools, harness, parts, type Harness, respond } from './fixtures.js';

const ARGS = { spaceId: 'sp_1', name: '官网' };

function grant(h: Harness, args: Record<string, unknown> = ARGS) {
  respond(
    h,
    approve(
      { run: h.run, node: h.node, nodeId: 'create', locale: 'zh-CN', now: new Date() },
      { tool: 'web_site_create', args, fingerprint: fingerprint('web_site_create', args) },
    ),
  );
}

afterEach(() => {
  vi.useRealTimers();
});

describe('invoke step: builtins', () => {
  it('a ToolRejectedException anywhere in the cause chain becomes REJECTED with its code, reason and next', async () => {
    const builtins = createBuiltins();
    const wrapped = {
      get: (name: string) =>
        name === 'builtin_node_fail'
          ? {
              name: 'builtin_node_fail' as const,
              visible: () => true,
              execute: () => {
                const inner = new ToolRejectedException(
                  code('FINISH_OUTPUTS_MISSING'),
                  '必填产出未写入：siteId',
                  '先写入 siteId',
                );
                return Promise.reject(
                  new Error('framework wrapper', { cause: new AggregateError([new Error('x'), inner]) }),
                );
              },
            }
          : builtins.get(name),
      descriptors: (...args: Parameters<typeof builtins.descriptors>) => builtins.descriptors(...args),
    };
    const h = harness({ localTools: cloudTools().tools });
    const { obs, report } = await h.through(
      [catalogGuard(), argPolicyGuard()],
      'builtin_node_fail',
      { reason: 'x' },
      invokeStep(wrapped),
    );
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'FINISH_OUTPUTS_MISSING',
      reason: '必填产出未写入：siteId',
      next: '先写入 siteId',
      message: '必填产出未写入：siteId。下一步：先写入 siteId。',
    });
    expect(report.executed).toBe(false);
  });

  it('any other error of a builtin is FAILED TOOL_ERROR, logged, never evidence', async () => {
    const h = harness({
      localTools: cloudTools().tools,
      flow: { id: 'f', nodes: [{ id: 'n', delegates: ['child.yaml'] }] },
    });
    const { obs, report } = await h.call('builtin_node_delegate', { flow: 'child', task: 't' });
    expect(parts(obs)).toEqual({
      outcome: 'FAILED',
      code: 'TOOL_ERROR',
      reason:
        '工具 builtin_node_delegate 执行异常：delegation is not available in this runtime (no delegate service)',
      next: '根据错误信息修正后再调用；无法解决时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因',
      message:
        '工具 builtin_node_delegate 执行异常：delegation is not available in this runtime (no delegate service)。下一步：根据错误信息修正后再调用；无法解决时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因。',
    });
    expect(report.executed).toBe(false);
    expect(h.run.evidence).toEqual([]);
    expect(h.logger.lines()).toContain(
      'WARN TOOL invoked tool=builtin_node_delegate outcome=FAILED code=TOOL_ERROR',
    );
  });
});

describe('invoke step: writes', () => {
  it('marks the write in flight and checkpoints before sending, sends the idempotency key, clears the mark after', async () => {
    const sent: { tool: string; options: InvokeOptions; inFlight: number }[] = [];
    const h: Harness = harness({
      localTools: cloudTools().tools,
      invoker: {
        invoke: (tool: ToolDescriptor, _args, options) => {
          sent.push({ tool: tool.name, options, inFlight: h.run.inFlight.length });
          const data =
            tool.name === 'space_list' ? [{ spaceId: 'sp_1' }] : { siteId: 'site_1', status: 'ACTIVE' };
          return Promise.resolve(Observation.success('ok', { code: 0, data }));
        },
      },
      runId: 'run_42',
    });
    await h.call('space_list', {});
    grant(h);
    const { obs } = await h.call('web_site_create', ARGS);
    expect(obs.ok).toBe(true);
    const key = idempotencyKey('run_42', fingerprint('web_site_create', ARGS));
    expect(sent[1]).toEqual({
      tool: 'web_site_create',
      inFlight: 1,
      options: {
        timeoutMs: 30_000,
        maxTotalMs: 300_000,
        locale: 'zh-CN',
        meta: { idempotencyKey: key },
        elicit: { asked: expect.any(Function), answer: expect.any(Function), resume: expect.any(Function) },
        task: {
          waitMs: 2000,
          started: expect.any(Function),
          working: expect.any(Function),
          ended: expect.any(Function),
          resume: expect.any(Function),
        },
      },
    });
    expect(sent[0]!.options.meta).toBeUndefined();
    expect(h.checkpoints).toEqual([{ inFlight: ['web_site_create'] }]);
    expect(h.run.inFlight).toEqual([]);
  });

  it('an invoker that throws (a bug) still clears the mark: FAILED TOOL_ERROR, logged as error', async () => {
    const invoker: ToolInvokerPort = { invoke: () => Promise.reject(new Error('wiring bug')) };
    const h = harness({ localTools: cloudTools().tools, invoker });
    h.run.evidence.push({
      id: 'ev_1',
      tool: 'space_list',
      args: {},
      fingerprint: 'f',
      outcome: 'SUCCESS',
      errorCode: null,
      payload: { data: [{ spaceId: 'sp_1' }] },
      ts: '',
      nodeId: 'create',
      callId: 'c',
    });
    grant(h);
    const { obs } = await h.call('web_site_create', ARGS);
    expect(parts(obs)).toMatchObject({
      outcome: 'FAILED',
      code: 'TOOL_ERROR',
      reason: '工具 web_site_create 执行异常：wiring bug',
    });
    expect(h.run.inFlight).toEqual([]);
    expect(h.logger.find('TOOL invoker threw')).toHaveLength(1);
  });
});

describe('invoke step: look-back of a write that timed out', () => {
  async function timedOutWrite(hang: 'after-create' | 'before-create', recover = true) {
    vi.useFakeTimers();
    const cloud = cloudTools({ hangCreate: hang });
    const flow = structuredClone((await import('./fixtures.js')).SITE_FLOW);
    if (!recover) delete flow.tools!.web_site_create!.recover;
    const h = harness({ localTools: cloud.tools, flow });
    await h.call('space_list', {});
    grant(h);
    const pending = h.call('web_site_create', ARGS);
    await vi.advanceTimersByTimeAsync(30_000);
    return { h, cloud, ...(await pending) };
  }

  it('found → SUCCESS citing the look-back’s evidence and payload; the write’s own FAILED evidence comes first', async () => {
    const { h, obs, report, cloud } = await timedOutWrite('after-create');
    expect(parts(obs)).toMatchObject({
      outcome: 'SUCCESS',
      code: null,
      message: '写操作 web_site_create 被中断，回查确认已生效，未重复执行',
    });
    expect(obs.evidenceId).toBe('ev_3');
    expect(obs.data).toMatchObject({ code: 0, data: [{ name: '官网', status: 'CREATING' }] });
    expect(report.lookBack).toEqual({ evidenceId: 'ev_3', found: true, decided: true });
    expect(h.run.evidence.map((e) => [e.id, e.tool, e.outcome, e.lookBack ?? false])).toEqual([
      ['ev_1', 'space_list', 'SUCCESS', false],
      ['ev_2', 'web_site_create', 'FAILED', false],
      ['ev_3', 'web_site_list', 'SUCCESS', true],
    ]);
    expect(h.run.evidence[2]!.confirmsFingerprint).toBe(fingerprint('web_site_create', ARGS));
    expect(h.lookBacks).toMatchObject([
      { tool: 'web_site_list', args: { spaceId: 'sp_1' }, writeTool: 'web_site_create', found: true },
    ]);
    expect(h.lookBacks[0]!.observation.evidenceId).toBe('ev_3');
    expect(h.run.inFlight).toEqual([]);
    expect(h.run.approvals[0]!.consumed).toBe(true);
    expect(h.logger.lines()).toContain(
      'INFO TOOL invoked tool=web_site_list outcome=SUCCESS code=- evidence=ev_3 lookBack=true',
    );
    const again = await h.call('web_site_create', ARGS);
    expect(again.obs.evidenceId).toBe('ev_3');
    expect(again.report.reused).toBe(true);
    expect(cloud.seen.filter((c) => c.tool === 'web_site_create')).toHaveLength(1);
  });

  it('not found → FAILED TOOL_TIMEOUT (approved: NEXT_APPROVED_FAILED), the look-back and the write are both evidence', async () => {
    const { h, obs } = await timedOutWrite('before-create');
    expect(parts(obs)).toEqual({
      outcome: 'FAILED',
      code: 'TOOL_TIMEOUT',
      reason: '工具 web_site_create 调用超时（30000 ms）',
      next: '用 builtin_node_follow_up 向用户说明失败原因并询问如何处理；用户不再继续时调用 builtin_node_fail；不要自行改用其它写操作补救',
      message:
        '工具 web_site_create 调用超时（30000 ms）。下一步：用 builtin_node_follow_up 向用户说明失败原因并询问如何处理；用户不再继续时调用 builtin_node_fail；不要自行改用其它写操作补救。',
    });
    // Numbered in execution order: the write (ev_2) before its look-back (ev_3).
    expect(obs.evidenceId).toBe('ev_2');
    expect(h.run.evidence.map((e) => [e.id, e.tool, e.outcome, e.confirmsFingerprint ?? null])).toEqual([
      ['ev_1', 'space_list', 'SUCCESS', null],
      ['ev_2', 'web_site_create', 'FAILED', null],
      ['ev_3', 'web_site_list', 'SUCCESS', null],
    ]);
    expect(h.lookBacks).toMatchObject([{ found: false }]);
    expect(h.run.approvals[0]!.consumed).toBe(true);
    expect(h.node.approvedWriteFailed).toBe(true);
    expect(h.logger.lines()).toContain(
      'WARN TOOL invoked tool=web_site_create outcome=FAILED code=TOOL_TIMEOUT evidence=ev_2',
    );
  });

  it('without `recover` a timed-out write is FAILED as usual, with no look-back', async () => {
    const { h, obs } = await timedOutWrite('after-create', false);
    expect(obs.errorCode).toBe('TOOL_TIMEOUT');
    expect(h.lookBacks).toEqual([]);
    expect(h.run.evidence).toHaveLength(2);
  });
});
