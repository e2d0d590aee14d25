import { describe, expect, it } from 'vitest';
import { Observation } from '../../../src/domain/observation.js';
import { answer } from '../../../src/tools/builtin/resolution.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { paramContractGuard } from '../../../src/tools/guards/param-contract.js';
import { answering, cloudTools, harness, parts, SITE_FLOW, type Harness, respond } from './fixtures.js';

const reached = answering(Observation.success('reached'), false);
const guards = () => [catalogGuard(), argPolicyGuard(), paramContractGuard()];

function setup(input = '在默认空间创建一个叫 官网 的站点', locale: 'zh-CN' | 'en' = 'zh-CN'): Harness {
  const cloud = cloudTools();
  const h = harness({ localTools: cloud.tools, input: { text: input } });
  if (locale === 'en') (h.flow as { locale: string }).locale = 'en';
  return h;
}

async function spaces(h: Harness) {
  await h.call('space_list', {});
}

describe('ParamContract alone', () => {
  it('PARAM_PROVENANCE_QUERY_FIRST when no `from` tool has succeeded yet (next names the query tool)', async () => {
    const h = setup();
    const { obs } = await h.through(guards(), 'web_site_create', { spaceId: 'sp_1', name: '官网' }, reached);
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'PARAM_PROVENANCE_QUERY_FIRST',
      reason: '参数 [spaceId] 须来自 space_list 的查询结果，尚无该查询',
      next: '先调用 space_list 查询，再用查询结果中的值调用 web_site_create',
      message:
        '参数 [spaceId] 须来自 space_list 的查询结果，尚无该查询。下一步：先调用 space_list 查询，再用查询结果中的值调用 web_site_create。',
    });
  });

  it('PARAM_PROVENANCE_MISMATCH when the value is not in what `path` selects (next lists valid values)', async () => {
    const h = setup();
    await spaces(h);
    const { obs } = await h.through(guards(), 'web_site_create', { spaceId: 'sp_9', name: '官网' }, reached);
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'PARAM_PROVENANCE_MISMATCH',
      reason: '参数 [spaceId] 的值 sp_9 不在 space_list 的查询结果中',
      next: '改用 space_list 查询结果中的值，例如：sp_1、sp_2',
      message:
        '参数 [spaceId] 的值 sp_9 不在 space_list 的查询结果中。下一步：改用 space_list 查询结果中的值，例如：sp_1、sp_2。',
    });
  });

  it('path restricts where the value may be: a space name is in the payload but not at data.spaceId', async () => {
    const h = setup();
    await spaces(h);
    const { obs } = await h.through(
      guards(),
      'web_site_create',
      { spaceId: '默认空间', name: '官网' },
      reached,
    );
    expect(obs.errorCode).toBe('PARAM_PROVENANCE_MISMATCH');
  });

  it('passes a value found in evidence and records its evidence id as provenance (normalised equality)', async () => {
    const h = setup();
    await spaces(h);
    const { obs, report } = await h.through(
      guards(),
      'web_site_create',
      { spaceId: 'ＳＰ_1', name: '官网' },
      reached,
    );
    expect(obs.reason).toBe('reached');
    expect(report.provenance).toEqual({ spaceId: 'ev_1' });
  });

  it('PARAM_PROVENANCE_ASK_FIRST when the user has not said the value; a follow-up answer counts', async () => {
    const h = setup();
    await spaces(h);
    const { obs } = await h.through(guards(), 'web_site_create', { spaceId: 'sp_1', name: '博客' }, reached);
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'PARAM_PROVENANCE_ASK_FIRST',
      reason: '参数 [name] 的值 博客 须由用户提供，用户未提到',
      next: '调用 builtin_node_follow_up 向用户询问参数 [name]，再用用户给出的值调用',
      message:
        '参数 [name] 的值 博客 须由用户提供，用户未提到。下一步：调用 builtin_node_follow_up 向用户询问参数 [name]，再用用户给出的值调用。',
    });
    respond(
      h,
      answer(
        { run: h.run, node: h.node, nodeId: 'create', locale: 'zh-CN', now: new Date() },
        { question: '还要建哪个站点？', options: null },
        '再建一个 博客',
      ),
    );
    const again = await h.through(guards(), 'web_site_create', { spaceId: 'sp_1', name: '博客' }, reached);
    expect(again.obs.reason).toBe('reached');
  });

  it('PARAM_PROVENANCE_REJECTED for a value outside `enum` (next lists the allowed values)', async () => {
    const flow = structuredClone(SITE_FLOW);
    flow.tools!.web_site_create!.params!.plan = { enum: ['basic'] };
    const h = harness({ localTools: cloudTools().tools, flow });
    await spaces(h);
    const { obs } = await h.through(
      guards(),
      'web_site_create',
      { spaceId: 'sp_1', name: '官网', plan: 'pro' },
      reached,
    );
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'PARAM_PROVENANCE_REJECTED',
      reason: '参数 [plan] 的值 pro 不在允许范围内',
      next: '改用允许的值之一：basic',
      message: '参数 [plan] 的值 pro 不在允许范围内。下一步：改用允许的值之一：basic。',
    });
  });

  it('speaks English in an en flow', async () => {
    const h = setup('create a site called Home', 'en');
    const { obs } = await h.through(guards(), 'web_site_create', { spaceId: 'sp_1', name: 'Home' }, reached);
    expect(obs.message('en')).toBe(
      'Argument [spaceId] must come from a result of space_list, and none has been made. Next: call space_list first, then call web_site_create with a value from its result.',
    );
  });

  it('a FAILED evidence of the `from` tool does not count as a query', async () => {
    const h = setup();
    h.run.evidence.push({
      id: 'ev_1',
      tool: 'space_list',
      args: {},
      fingerprint: 'space_list#x',
      outcome: 'FAILED',
      errorCode: 'TOOL_TIMEOUT',
      payload: null,
      ts: '',
      nodeId: 'create',
      callId: 'c',
    });
    const { obs } = await h.through(guards(), 'web_site_create', { spaceId: 'sp_1', name: '官网' }, reached);
    expect(obs.errorCode).toBe('PARAM_PROVENANCE_QUERY_FIRST');
  });
});
