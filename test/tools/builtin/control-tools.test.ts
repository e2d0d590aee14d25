import { describe, expect, it } from 'vitest';
import { answer } from '../../../src/tools/builtin/resolution.js';
import { approve, reject } from '../../../src/tools/approval/index.js';
import { createBuiltins } from '../../../src/tools/builtin/registry.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { invokeStep } from '../../../src/tools/guards/invoke.js';
import { code } from '../../../src/domain/error-codes.js';
import { Observation } from '../../../src/domain/observation.js';
import { cloudTools, harness, parts, type Harness, respond } from '../guards/fixtures.js';

const ARGS = { spaceId: 'sp_1', name: '官网' };

async function gated(): Promise<Harness> {
  const h = harness({ localTools: cloudTools().tools });
  await h.call('space_list', {});
  await h.call('web_site_create', ARGS);
  return h;
}

const state = (h: Harness) => ({
  run: h.run,
  node: h.node,
  nodeId: 'create',
  locale: 'zh-CN' as const,
  now: new Date('2026-01-01T00:00:00Z'),
  logger: h.logger,
});

describe('builtin_node_approval', () => {
  it('marks the pending item destructive when the MCP server annotates the tool destructiveHint', async () => {
    const tools = cloudTools().tools.map((t) =>
      t.descriptor.name === 'web_site_create'
        ? { ...t, descriptor: { ...t.descriptor, destructiveHint: true } }
        : t,
    );
    const h = harness({ localTools: tools });
    await h.call('space_list', {});
    await h.call('web_site_create', ARGS);
    const { report } = await h.call('builtin_node_approval', { tool: 'web_site_create', summary: 'x' });
    expect(report.effect).toMatchObject({
      suspension: { pending: { tool: 'web_site_create', destructive: true } },
    });
    const plain = await (
      await gated()
    ).call('builtin_node_approval', { tool: 'web_site_create', summary: 'x' });
    expect(plain.report.effect).not.toMatchObject({ suspension: { pending: { destructive: true } } });
  });

  it('APPROVAL_NOT_GATED when nothing was gated (seed acceptance 2)', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const { obs, report } = await h.call('builtin_node_approval', {
      tool: 'web_site_create',
      summary: '创建站点',
    });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'APPROVAL_NOT_GATED',
      reason: '没有被拦下待确认的写操作 web_site_create',
      next: '先直接调用写工具，被拦下后再按提示申请确认',
      message:
        '没有被拦下待确认的写操作 web_site_create。下一步：先直接调用写工具，被拦下后再按提示申请确认。',
    });
    expect(report.effect).toBeUndefined();
  });

  it('APPROVAL_NOT_GATED when `tool` is a read tool, even with a gated call waiting', async () => {
    const { obs } = await (
      await gated()
    ).call('builtin_node_approval', { tool: 'web_site_list', summary: 'x' });
    expect(obs.errorCode).toBe('APPROVAL_NOT_GATED');
  });

  it('APPROVAL_TOOL_MISMATCH names the gated tool (seed acceptance 3)', async () => {
    const { obs } = await (
      await gated()
    ).call('builtin_node_approval', { tool: 'web_site_creat', summary: 'x' });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'APPROVAL_TOOL_MISMATCH',
      reason: '申请确认的工具 web_site_creat 与被拦下的写操作 web_site_create 不一致',
      next: '调用 builtin_node_approval，参数 tool 填被拦下的写工具 web_site_create',
      message:
        '申请确认的工具 web_site_creat 与被拦下的写操作 web_site_create 不一致。下一步：调用 builtin_node_approval，参数 tool 填被拦下的写工具 web_site_create。',
    });
  });

  it('suspends APPROVAL with {tool, args, summary, provenance}; approve → SUCCESS, the exact call passes once', async () => {
    const h = await gated();
    const { report } = await h.call('builtin_node_approval', {
      tool: 'web_site_create',
      summary: '在默认空间创建 官网',
    });
    expect(report.effect).toEqual({
      kind: 'suspend',
      suspension: {
        kind: 'APPROVAL',
        fingerprint: h.node.gatedCall!.fingerprint,
        pending: {
          tool: 'web_site_create',
          args: ARGS,
          summary: '在默认空间创建 官网',
          provenance: { spaceId: 'ev_1' },
          // `name` has a `source: user` contract: the user's words it was found in.
          userProvenance: { name: '在默认空间创建一个叫 官网 的站点' },
          // Where each value was found: the leaf of the evidence payload, or the user's words.
          matches: {
            spaceId: [{ at: [], source: 'evidence', evidenceId: 'ev_1', path: ['data', 0, 'spaceId'] }],
            name: [{ at: [], source: 'user' }],
          },
        },
      },
    });
    expect(h.logger.lines().some((l) => l.includes('builtin_node_approval'))).toBe(false);
    const target = { tool: 'web_site_create', args: ARGS, fingerprint: h.node.gatedCall!.fingerprint };
    const obs = respond(h, approve(state(h), target, { who: 'alice', comment: '可以' }));
    expect(parts(obs)).toMatchObject({
      outcome: 'SUCCESS',
      message: '用户已批准：现在可以用完全相同的参数调用一次 web_site_create',
    });
    expect(h.run.approvals).toEqual([
      {
        fingerprint: target.fingerprint,
        tool: 'web_site_create',
        args: ARGS,
        nodeId: 'create',
        grantedAt: '2026-01-01T00:00:00.000Z',
        who: 'alice',
        comment: '可以',
        consumed: false,
      },
    ]);
    expect(h.logger.lines()).toContain('INFO TOOL invoked tool=builtin_node_approval outcome=SUCCESS code=-');
    expect(
      (await h.call('builtin_node_approval', { tool: 'web_site_create', summary: 'again' })).obs.errorCode,
    ).toBe('APPROVAL_NOT_GATED');
    expect(
      (await h.call('web_site_create', { spaceId: 'sp_1', name: '官网', plan: 'basic' })).obs.errorCode,
    ).toBe('APPROVAL_REQUIRED');
  });

  it('reject → REJECTED APPROVAL_DENIED with the comment; the gated call is declined', async () => {
    const h = await gated();
    const target = { tool: 'web_site_create', args: ARGS, fingerprint: h.node.gatedCall!.fingerprint };
    const obs = respond(h, reject(state(h), target, { comment: '名字换一个' }));
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'APPROVAL_DENIED',
      reason: '用户拒绝了写操作 web_site_create：名字换一个',
      next: '不要重试该写操作；调用 builtin_node_follow_up 询问用户如何处理，或调用 builtin_node_finish / builtin_node_fail 结束',
      message:
        '用户拒绝了写操作 web_site_create：名字换一个。下一步：不要重试该写操作；调用 builtin_node_follow_up 询问用户如何处理，或调用 builtin_node_finish / builtin_node_fail 结束。',
    });
    expect(h.node.gatedCall?.declined).toBe(true);
    expect(respond(h, reject(state(h), target)).reason).toBe(
      '用户拒绝了写操作 web_site_create：（未说明原因）',
    );
    expect(h.logger.lines()).toContain(
      'INFO TOOL invoked tool=builtin_node_approval outcome=REJECTED code=APPROVAL_DENIED',
    );
  });
});

describe('builtin_node_follow_up', () => {
  it('suspends FOLLOW_UP; answer → SUCCESS with the answer, recorded as user text', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const { report } = await h.call('builtin_node_follow_up', {
      question: '要用哪个套餐？',
      options: ['basic', 'pro'],
    });
    expect(report.effect).toEqual({
      kind: 'suspend',
      suspension: { kind: 'FOLLOW_UP', pending: { question: '要用哪个套餐？', options: ['basic', 'pro'] } },
    });
    const obs = respond(
      h,
      answer(state(h), { question: '要用哪个套餐？', options: ['basic', 'pro'] }, 'pro'),
    );
    expect(parts(obs)).toMatchObject({ outcome: 'SUCCESS', message: '用户回答：pro' });
    expect(h.run.followUps).toEqual([
      { question: '要用哪个套餐？', options: ['basic', 'pro'], answer: 'pro', nodeId: 'create' },
    ]);
  });

  it('FOLLOW_UP_ANSWERED for the same question (normalised) with the earlier answer (seed acceptance 4)', async () => {
    const h = harness({ localTools: cloudTools().tools });
    respond(h, answer(state(h), { question: '要用哪个套餐？', options: null }, 'pro 套餐'));
    const { obs } = await h.call('builtin_node_follow_up', { question: '要用哪个 套餐?' });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'FOLLOW_UP_ANSWERED',
      reason: '该问题用户已回答：pro 套餐',
      next: '按用户的这个回答继续，不要重复提问',
      message: '该问题用户已回答：pro 套餐。下一步：按用户的这个回答继续，不要重复提问。',
    });
  });

  it('FOLLOW_UP_UNGROUNDED for a verbal confirmation naming a write tool (seed acceptance 5)', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const { obs } = await h.call('builtin_node_follow_up', {
      question: '确认调用 web_site_create 创建站点吗？',
    });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'FOLLOW_UP_UNGROUNDED',
      reason: '追问在口头确认写操作 web_site_create',
      next: '直接调用写工具，确认由审批完成（被拦下后调用 builtin_node_approval）',
      message:
        '追问在口头确认写操作 web_site_create。下一步：直接调用写工具，确认由审批完成（被拦下后调用 builtin_node_approval）。',
    });
  });

  it('FOLLOW_UP_UNGROUNDED while a gated call waits, also for yes/no options and English wording', async () => {
    const h = await gated();
    expect(
      (await h.call('builtin_node_follow_up', { question: '现在就帮你建站，可以吗？' })).obs.reason,
    ).toBe('追问在口头确认写操作 web_site_create');
    expect(
      (await h.call('builtin_node_follow_up', { question: '开始建站', options: ['是', '否'] })).obs.errorCode,
    ).toBe('FOLLOW_UP_UNGROUNDED');
    expect(
      (await h.call('builtin_node_follow_up', { question: 'Shall I go on with the site?' })).obs.errorCode,
    ).toBe('FOLLOW_UP_UNGROUNDED');
    expect(
      (await h.call('builtin_node_follow_up', { question: '站点用什么套餐？', options: ['basic', 'pro'] }))
        .report.effect?.kind,
    ).toBe('suspend');
  });

  it('no confirmation without a named write tool or a waiting gated call (declined no longer waits)', async () => {
    const h = await gated();
    h.node.gatedCall!.declined = true;
    expect(
      (await h.call('builtin_node_follow_up', { question: '是否换一个名字？' })).report.effect?.kind,
    ).toBe('suspend');
  });

  it('FOLLOW_UP_UNGROUNDED for an echo of the user’s words', async () => {
    const h = harness({
      localTools: cloudTools().tools,
      input: { text: '在默认空间创建一个叫 官网 的站点' },
    });
    const { obs } = await h.call('builtin_node_follow_up', {
      question: '在默认空间创建一个叫「官网」的站点？',
    });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'FOLLOW_UP_UNGROUNDED',
      reason: '追问复述了用户已经说过的内容',
      next: '直接调用写工具，确认由审批完成（被拦下后调用 builtin_node_approval）',
      message:
        '追问复述了用户已经说过的内容。下一步：直接调用写工具，确认由审批完成（被拦下后调用 builtin_node_approval）。',
    });
  });

  it('the first follow-up after an approved write failed is never UNGROUNDED; the answer ends the exemption', async () => {
    const h = await gated();
    h.node.approvedWriteFailed = true;
    const question = '创建 web_site_create 失败：站点名称已存在。是否换个名字重试？';
    const first = await h.call('builtin_node_follow_up', { question });
    expect(first.report.effect?.kind).toBe('suspend');
    respond(h, answer(state(h), { question, options: null }, '换成 官网2'));
    expect(h.node.approvedWriteFailed).toBe(false);
    expect(
      (await h.call('builtin_node_follow_up', { question: '确认用 web_site_create 创建 官网2 吗？' })).obs
        .errorCode,
    ).toBe('FOLLOW_UP_UNGROUNDED');
  });

  it('the word lists are extensible', async () => {
    const h = harness({ localTools: cloudTools().tools });
    const builtins = createBuiltins({ followUp: { confirmWords: ['拍板'] } });
    const run = (question: string) =>
      h.through(
        [catalogGuard(), argPolicyGuard()],
        'builtin_node_follow_up',
        { question },
        invokeStep(builtins),
      );
    expect((await run('web_site_create 这个你拍板')).obs.errorCode).toBe('FOLLOW_UP_UNGROUNDED');
    expect(
      (await h.call('builtin_node_follow_up', { question: 'web_site_create 这个你拍板' })).report.effect
        ?.kind,
    ).toBe('suspend');
  });
});

describe('resolution helpers', () => {
  it('approve is idempotent for an open approval; consumed approvals are not reused', async () => {
    const h = await gated();
    const target = { tool: 'web_site_create', args: ARGS, fingerprint: h.node.gatedCall!.fingerprint };
    respond(h, approve(state(h), target));
    respond(h, approve(state(h), target));
    expect(h.run.approvals).toHaveLength(1);
    expect(Observation.rejected(code('APPROVAL_DENIED'), 'r', 'n').outcome.stalls()).toBe(true);
  });
});
