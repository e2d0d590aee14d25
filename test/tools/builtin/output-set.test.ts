import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../../src/domain/flow.js';
import { cloudTools, harness, parts, type Harness } from '../guards/fixtures.js';

const FLOW: FlowInput = {
  id: 'outputs',
  nodes: [
    {
      id: 'query',
      tools: ['space_list', 'web_site_list'],
      outputs: {
        sites: { required: false, sources: ['evidence'], from: ['web_site_list'] },
        spaceId: { required: true, sources: ['evidence', 'node'], from: ['space_list'] },
        siteName: { required: true, sources: ['user'] },
        note: { required: false, sources: ['model'] },
      },
    },
  ],
};

async function setup(locale: 'zh-CN' | 'en' = 'zh-CN'): Promise<Harness> {
  const cloud = cloudTools();
  const h = harness({
    localTools: cloud.tools,
    flow: { ...FLOW, locale },
    input: { text: '查一下默认空间，站点叫 官网' },
  });
  await h.call('space_list', {});
  await h.call('web_site_list', { spaceId: 'sp_1' });
  return h;
}

const set = (h: Harness, args: Record<string, unknown>) => h.call('builtin_output_set', args);
const OPTIONAL = '也可以不写，直接调用 builtin_node_finish';
const CITE =
  '引用结果中原样含有该值的证据：字符串可以是结果文本中完整的词语或片段（至少 3 个字符，中日文至少 2 个字，不能是更长的词或数字的一部分），其它值须与结果中的某个值相同';

describe('builtin_output_set (OutputContractValidator)', () => {
  it('stores a value found in the cited evidence, as given', async () => {
    const h = await setup();
    const { obs } = await set(h, {
      key: 'spaceId',
      value: 'sp_1',
      sourceType: 'evidence',
      sourceRef: 'ev_1',
    });
    expect(parts(obs)).toMatchObject({ outcome: 'SUCCESS', message: '产出 [spaceId] 已写入' });
    expect(h.node.outputs.spaceId).toEqual({
      value: 'sp_1',
      sourceType: 'evidence',
      sourceRef: 'ev_1',
      match: [{ at: [], source: 'evidence', evidenceId: 'ev_1', path: ['data', 0, 'spaceId'] }],
    });
    await set(h, {
      key: 'sites',
      value: { code: 0, message: 'ok', data: [] },
      sourceType: 'evidence',
      sourceRef: 'ev_2',
    });
    expect(h.node.outputs.sites?.value).toEqual({ code: 0, message: 'ok', data: [] });
    expect(h.run.evidence).toHaveLength(2);
  });

  it('OUTPUT_KEY_UNDECLARED names the key; next lists the declared keys', async () => {
    const { obs } = await set(await setup(), { key: 'siteId', value: 'x', sourceType: 'model' });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'OUTPUT_KEY_UNDECLARED',
      reason: '产出键 [siteId] 未在节点契约中声明',
      next: '只写节点声明的产出键：sites、spaceId、siteName、note',
      message:
        '产出键 [siteId] 未在节点契约中声明。下一步：只写节点声明的产出键：sites、spaceId、siteName、note。',
    });
  });

  it('OUTPUT_SOURCE_INVALID for a source type not accepted by the key (optional key: may also skip it)', async () => {
    const { obs } = await set(await setup(), { key: 'sites', value: [], sourceType: 'model' });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'OUTPUT_SOURCE_INVALID',
      reason: '来源校验失败：产出 [sites] 不接受来源类型 model',
      next: `sourceType 使用该键接受的来源类型：evidence；${OPTIONAL}`,
      message: `来源校验失败：产出 [sites] 不接受来源类型 model。下一步：sourceType 使用该键接受的来源类型：evidence；${OPTIONAL}。`,
    });
  });

  it('OUTPUT_SOURCE_INVALID for an unknown source type (required key: no skipping)', async () => {
    const { obs } = await set(await setup(), { key: 'spaceId', value: 'sp_1', sourceType: 'guess' });
    expect(parts(obs)).toMatchObject({
      code: 'OUTPUT_SOURCE_INVALID',
      message:
        '来源校验失败：来源类型 guess 不存在。下一步：sourceType 使用该键接受的来源类型：evidence、node。',
    });
  });

  it('OUTPUT_SOURCE_INVALID when the cited evidence comes from a tool outside `from` (the seed incident, optional output)', async () => {
    const { obs } = await set(await setup(), {
      key: 'sites',
      value: 'sp_1',
      sourceType: 'evidence',
      sourceRef: 'ev_1',
    });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'OUTPUT_SOURCE_INVALID',
      reason: '来源校验失败：space_list（ev_1）不是产出 [sites] 接受的来源工具',
      next: `引用以下工具成功调用的证据编号：web_site_list；${OPTIONAL}`,
      message: `来源校验失败：space_list（ev_1）不是产出 [sites] 接受的来源工具。下一步：引用以下工具成功调用的证据编号：web_site_list；${OPTIONAL}。`,
    });
  });

  it('OUTPUT_SOURCE_INVALID for unknown or failed evidence', async () => {
    const h = await setup();
    expect(
      (await set(h, { key: 'spaceId', value: 'sp_1', sourceType: 'evidence', sourceRef: 'ev_9' })).obs.reason,
    ).toBe('来源校验失败：证据 ev_9 不存在');
    h.run.evidence.push({ ...h.run.evidence[0]!, id: 'ev_3', outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' });
    expect(
      (await set(h, { key: 'spaceId', value: 'sp_1', sourceType: 'evidence', sourceRef: 'ev_3' })).obs.reason,
    ).toBe('来源校验失败：space_list 的调用 ev_3 未成功');
  });

  it('OUTPUT_SOURCE_REF_MISSING says what sourceRef must be', async () => {
    const { obs } = await set(await setup(), { key: 'spaceId', value: 'sp_1', sourceType: 'evidence' });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'OUTPUT_SOURCE_REF_MISSING',
      reason: '产出 [spaceId] 缺少 sourceRef',
      next: 'sourceRef 填 space_list 成功调用的证据编号（如 ev_1）',
      message:
        '产出 [spaceId] 缺少 sourceRef。下一步：sourceRef 填 space_list 成功调用的证据编号（如 ev_1）。',
    });
  });

  it('OUTPUT_VALUE_MISMATCH when the value is not in the cited evidence; next says how matching works and offers values of the key', async () => {
    const { obs } = await set(await setup(), {
      key: 'spaceId',
      value: 'sp',
      sourceType: 'evidence',
      sourceRef: 'ev_1',
    });
    expect(parts(obs)).toEqual({
      outcome: 'REJECTED',
      code: 'OUTPUT_VALUE_MISMATCH',
      reason: '来源校验失败：space_list 的结果 ev_1 中没有值 sp',
      next: `${CITE}；该证据中 [spaceId] 的值有：sp_1、sp_2`,
      message: `来源校验失败：space_list 的结果 ev_1 中没有值 sp。下一步：${CITE}；该证据中 [spaceId] 的值有：sp_1、sp_2。`,
    });
  });

  it('user source: the user must have said the value', async () => {
    const h = await setup();
    expect((await set(h, { key: 'siteName', value: '官网', sourceType: 'user' })).obs.ok).toBe(true);
    const { obs } = await set(h, { key: 'siteName', value: '博客', sourceType: 'user' });
    expect(parts(obs)).toMatchObject({
      code: 'OUTPUT_VALUE_MISMATCH',
      message:
        '来源校验失败：用户的输入和回答中没有 博客。下一步：使用用户原话中的值；用户没有说过时调用 builtin_node_follow_up 询问。',
    });
  });

  it('node source: sourceRef <nodeId>.<key> of a completed node; the value must match it', async () => {
    const h = await setup();
    const missing = await set(h, { key: 'spaceId', value: 'sp_1', sourceType: 'node' });
    expect(parts(missing.obs)).toMatchObject({
      code: 'OUTPUT_SOURCE_REF_MISSING',
      next: 'sourceRef 填 已完成节点的产出，格式 <节点id>.<键>：（无）',
    });
    h.run.nodeOutputs.pick = { spaceId: 'sp_2' };
    expect(
      (await set(h, { key: 'spaceId', value: 'sp_2', sourceType: 'node', sourceRef: 'pick.other' })).obs
        .reason,
    ).toBe('来源校验失败：节点产出 pick.other 不存在');
    const wrong = await set(h, {
      key: 'spaceId',
      value: 'sp_1',
      sourceType: 'node',
      sourceRef: 'pick.spaceId',
    });
    expect(parts(wrong.obs)).toMatchObject({
      code: 'OUTPUT_VALUE_MISMATCH',
      message: '来源校验失败：节点产出 pick.spaceId 中没有值 sp_1。下一步：使用 pick.spaceId 的值：sp_2。',
    });
    expect(
      (await set(h, { key: 'spaceId', value: 'sp_2', sourceType: 'node', sourceRef: 'pick.spaceId' })).obs.ok,
    ).toBe(true);
  });

  it('model source is free text where the contract accepts it', async () => {
    const h = await setup();
    expect((await set(h, { key: 'note', value: '一切正常', sourceType: 'model' })).obs.ok).toBe(true);
  });

  it('speaks English in an en flow', async () => {
    const { obs } = await set(await setup('en'), {
      key: 'sites',
      value: 'sp_1',
      sourceType: 'evidence',
      sourceRef: 'ev_1',
    });
    expect(obs.message('en')).toBe(
      'Source check failed: space_list (ev_1) is not a source tool output [sites] accepts. Next: cite the evidence id of a successful call of one of: web_site_list; you may also leave it unwritten and call builtin_node_finish.',
    );
  });
});
