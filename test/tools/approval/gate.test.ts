import { describe, expect, it } from 'vitest';
import { code } from '../../../src/domain/error-codes.js';
import { fingerprint } from '../../../src/domain/fingerprint.js';
import { Observation } from '../../../src/domain/observation.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { writeGateAfter, writeGateGuard } from '../../../src/tools/approval/index.js';
import { cloudTools, harness, parts, type Harness } from '../guards/fixtures.js';

const ARGS = { spaceId: 'sp_1', name: '官网' };
const FP = fingerprint('web_site_create', ARGS);
const guards = () => ({
  checks: [catalogGuard(), argPolicyGuard(), writeGateGuard()],
  after: [writeGateAfter()],
});

/** A terminal that "executes" the call and answers `obs`, counting executions. */
function executes(obs: Observation, count: { n: number }) {
  return () => {
    count.n += 1;
    return Promise.resolve({ observation: obs, executed: true });
  };
}

const created = (status = 'CREATING') =>
  Observation.success('调用 web_site_create 成功', {
    code: 0,
    message: 'ok',
    data: { siteId: 'site_1', status },
  });

function approveFor(h: Harness, fp = FP) {
  h.run.approvals.push({
    fingerprint: fp,
    tool: 'web_site_create',
    args: ARGS,
    nodeId: 'create',
    grantedAt: '',
    who: null,
    comment: null,
    consumed: false,
  });
}

function evidence(h: Harness, extra: Partial<Parameters<Harness['run']['evidence']['push']>[0]> = {}) {
  h.run.evidence.push({
    id: `ev_${h.run.evidence.length + 1}`,
    tool: 'web_site_create',
    args: ARGS,
    fingerprint: FP,
    outcome: 'SUCCESS',
    errorCode: null,
    payload: { code: 0, data: { siteId: 'site_1' } },
    ts: '',
    nodeId: 'create',
    callId: 'c0',
    ...extra,
  });
}

describe('WriteGate alone', () => {
  it('(e) records the gated call and answers DEFERRED APPROVAL_REQUIRED naming builtin_node_approval and the tool', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const count = { n: 0 };
    const { obs, report } = await h.through(guards(), 'web_site_create', ARGS, executes(created(), count));
    expect(parts(obs)).toEqual({
      outcome: 'DEFERRED',
      code: 'APPROVAL_REQUIRED',
      reason: '该写操作须经用户确认',
      next: '调用 builtin_node_approval 申请用户确认，参数 tool 填 web_site_create；批准后再用相同参数调用 web_site_create',
      message:
        '该写操作须经用户确认。下一步：调用 builtin_node_approval 申请用户确认，参数 tool 填 web_site_create；批准后再用相同参数调用 web_site_create。',
    });
    expect(count.n).toBe(0);
    expect(report.executed).toBe(false);
    expect(h.node.gatedCall).toEqual({
      tool: 'web_site_create',
      args: ARGS,
      fingerprint: FP,
      provenance: {},
    });
  });

  it('(a) reuses a SUCCESS evidence of the same fingerprint: SUCCESS with its payload and id, not executed', async () => {
    const h = harness({ localTools: cloudTools().tools });
    evidence(h);
    const count = { n: 0 };
    const { obs, report } = await h.through(
      guards(),
      'web_site_create',
      { name: '官网', spaceId: 'sp_1' },
      executes(created(), count),
    );
    expect(parts(obs)).toMatchObject({
      outcome: 'SUCCESS',
      code: null,
      message: '该写操作此前已成功执行，本次未重复执行',
    });
    expect(obs.evidenceId).toBe('ev_1');
    expect(obs.data).toEqual({ code: 0, data: { siteId: 'site_1' } });
    expect(report).toMatchObject({ reused: true, executed: false });
    expect(count.n).toBe(0);
  });

  it('(a) a look-back that confirmed the write counts as its evidence: reuse, never a new approval request', async () => {
    const h = harness({ localTools: cloudTools().tools });
    evidence(h, {
      tool: 'web_site_list',
      args: { spaceId: 'sp_1' },
      fingerprint: 'web_site_list#x',
      lookBack: true,
      confirmsFingerprint: FP,
      payload: { data: [] },
    });
    const { obs } = await h.through(guards(), 'web_site_create', ARGS, executes(created(), { n: 0 }));
    expect(obs.outcome.name).toBe('SUCCESS');
    expect(obs.evidenceId).toBe('ev_1');
    expect(h.node.gatedCall).toBeNull();
  });

  it('(a) a FAILED evidence is not reused', async () => {
    const h = harness({ localTools: cloudTools().tools });
    evidence(h, { outcome: 'FAILED', errorCode: 'TOOL_BUSINESS_FAILED' });
    const { obs } = await h.through(guards(), 'web_site_create', ARGS, executes(created(), { n: 0 }));
    expect(obs.errorCode).toBe('APPROVAL_REQUIRED');
  });

  it('(b) the same write in flight → DEFERRED WRITE_IN_FLIGHT', async () => {
    const h = harness({ localTools: cloudTools().tools });
    approveFor(h);
    h.run.inFlight.push({
      fingerprint: FP,
      tool: 'web_site_create',
      args: ARGS,
      key: 'k',
      nodeId: 'create',
      callId: 'c0',
      startedAt: '',
    });
    const { obs } = await h.through(guards(), 'web_site_create', ARGS, executes(created(), { n: 0 }));
    expect(parts(obs)).toEqual({
      outcome: 'DEFERRED',
      code: 'WRITE_IN_FLIGHT',
      reason: '相同的写操作 web_site_create 正在执行',
      next: '等待该写操作结束，不要重复发起；可以先做其它步骤',
      message:
        '相同的写操作 web_site_create 正在执行。下一步：等待该写操作结束，不要重复发起；可以先做其它步骤。',
    });
  });

  it('(d) an unconsumed approval of exactly this fingerprint passes once; after execution it is consumed and the gated call cleared', async () => {
    const h = harness({ localTools: cloudTools().tools });
    await h.through(guards(), 'web_site_create', ARGS, executes(created(), { n: 0 }));
    approveFor(h);
    const count = { n: 0 };
    const { obs, report } = await h.through(
      guards(),
      'web_site_create',
      ARGS,
      executes(created('ACTIVE'), count),
    );
    expect(obs.outcome.name).toBe('SUCCESS');
    expect(report.approved).toBe(true);
    expect(count.n).toBe(1);
    expect(h.run.approvals[0]!.consumed).toBe(true);
    expect(h.node.gatedCall).toBeNull();
    const other = await h.through(
      guards(),
      'web_site_create',
      { spaceId: 'sp_1', name: '博客' },
      executes(created(), count),
    );
    expect(other.obs.errorCode).toBe('APPROVAL_REQUIRED');
  });

  it('(8) an approved write that FAILED keeps its code and gets NEXT_APPROVED_FAILED', async () => {
    const h = harness({ localTools: cloudTools().tools });
    approveFor(h);
    const failed = Observation.failed(
      code('TOOL_BUSINESS_FAILED'),
      '业务失败 [system.50001]：站点名称已存在',
      '根据业务失败原因修正后再调用',
    );
    const { obs } = await h.through(guards(), 'web_site_create', ARGS, executes(failed, { n: 0 }));
    expect(parts(obs)).toEqual({
      outcome: 'FAILED',
      code: 'TOOL_BUSINESS_FAILED',
      reason: '业务失败 [system.50001]：站点名称已存在',
      next: '用 builtin_node_follow_up 向用户说明失败原因并询问如何处理；用户不再继续时调用 builtin_node_fail；不要自行改用其它写操作补救',
      message:
        '业务失败 [system.50001]：站点名称已存在。下一步：用 builtin_node_follow_up 向用户说明失败原因并询问如何处理；用户不再继续时调用 builtin_node_fail；不要自行改用其它写操作补救。',
    });
    expect(h.node.approvedWriteFailed).toBe(true);
    expect(h.run.approvals[0]!.consumed).toBe(true);
  });

  it('(8, 4c) a result matching `pending` marks the write pending; other writes are DEFERRED WRITE_PENDING_VERIFY until verified', async () => {
    const h = harness({ localTools: cloudTools().tools });
    approveFor(h);
    await h.through(guards(), 'web_site_create', ARGS, executes(created(), { n: 0 }));
    expect(h.node.pendingWrites).toMatchObject([
      { tool: 'web_site_create', verifyTool: 'web_site_get', verifyArgs: { siteId: 'site_1' } },
    ]);
    const blocked = await h.through(
      guards(),
      'web_site_create',
      { spaceId: 'sp_1', name: '博客' },
      executes(created(), { n: 0 }),
    );
    expect(parts(blocked.obs)).toEqual({
      outcome: 'DEFERRED',
      code: 'WRITE_PENDING_VERIFY',
      reason: '写操作 web_site_create 的结果尚待核实',
      next: '调用 web_site_get 核实写操作结果，参数 {"siteId":"site_1"}',
      message:
        '写操作 web_site_create 的结果尚待核实。下一步：调用 web_site_get 核实写操作结果，参数 {"siteId":"site_1"}。',
    });
    const got = (status: string) =>
      Observation.success('ok', { code: 0, data: { siteId: 'site_1', status } });
    await h.through(guards(), 'web_site_get', { siteId: 'site_2' }, executes(got('ACTIVE'), { n: 0 }));
    await h.through(guards(), 'web_site_get', { siteId: 'site_1' }, executes(got('CREATING'), { n: 0 }));
    expect(h.node.pendingWrites).toHaveLength(1);
    await h.through(guards(), 'web_site_get', { siteId: 'site_1' }, executes(got('ACTIVE'), { n: 0 }));
    expect(h.node.pendingWrites).toEqual([]);
  });

  it('leaves read tools alone', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const count = { n: 0 };
    const { obs } = await h.through(
      guards(),
      'space_list',
      {},
      executes(Observation.success('ok', []), count),
    );
    expect(obs.ok).toBe(true);
    expect(count.n).toBe(1);
    expect(h.node.gatedCall).toBeNull();
  });
});
