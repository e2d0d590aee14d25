import { afterAll, describe, expect, it } from 'vitest';
import { fingerprint } from '../../src/domain/fingerprint.js';
import type { FlowInput } from '../../src/domain/flow.js';
import { McpPool } from '../../src/mcp/pool.js';
import { answer } from '../../src/tools/builtin/resolution.js';
import { approve } from '../../src/tools/approval/index.js';
import { idempotencyKey } from '../../src/tools/guards/keys.js';
import { ToolInvoker } from '../../src/tools/invoker.js';
import { demoStdioConfig, readWriteLog, REPO_ROOT } from '../helpers/demo-server.js';
import { harness, parts, type Harness, respond } from './guards/fixtures.js';

/** The site-builder policies of examples/site-builder/flow.yaml, over the real demo-cloud MCP server. */
const RESPONSE = { okPath: 'code', okValues: [0], codePath: 'code', messagePath: 'message' };
const TOOLS: FlowInput['tools'] = {
  web_site_create: {
    write: true,
    params: {
      spaceId: { source: 'evidence', from: ['space_list'], path: 'data.spaceId' },
      name: { source: 'user', required: true },
    },
    response: RESPONSE,
    pending: "result.data.status = 'CREATING'",
    verify: {
      tool: 'web_site_get',
      args: { siteId: 'result.data.siteId' },
      done: "verify.data.status = 'ACTIVE'",
    },
    recover: {
      tool: 'web_site_list',
      args: { spaceId: 'args.spaceId' },
      found: '$count(verify.data[name = $$.args.name]) > 0',
    },
  },
  web_site_list: { response: RESPONSE },
  web_site_get: { response: RESPONSE },
  space_list: { response: RESPONSE },
  // Read tools declared as writes so that a real timeout and a real server loss exercise the look-back.
  slow_query: { write: true, recover: { tool: 'space_list', args: {}, found: '$count(verify.data) > 0' } },
  crash_server: { write: true, recover: { tool: 'space_list', args: {}, found: '$count(verify.data) > 0' } },
};
const NODE_TOOLS = [
  'space_list',
  'web_site_list',
  'web_site_create',
  'web_site_get',
  'slow_query',
  'crash_server',
];

const pool = new McpPool();
afterAll(() => pool.close());

let flows = 0;
async function demo(input: string, toolTimeoutMs = 30_000): Promise<{ h: Harness; dataDir: string }> {
  const { config, dataDir } = demoStdioConfig();
  const flow: FlowInput = {
    id: `demo-${++flows}`,
    mcpServers: { cloud: config },
    limits: { toolTimeoutMs },
    tools: TOOLS,
    nodes: [
      {
        id: 'create',
        tools: NODE_TOOLS,
        outputs: {
          siteId: { required: true, sources: ['evidence'], from: ['web_site_create', 'web_site_get'] },
        },
      },
    ],
  };
  const servers = pool.forFlow({ id: flow.id, version: 1, mcpServers: { cloud: config } }, REPO_ROOT);
  const tools = await servers.catalog();
  const h = harness({
    flow,
    tools,
    invoker: new ToolInvoker({ servers }),
    input: { text: input },
    runId: `run-${flows}`,
  });
  return { h, dataDir };
}

const state = (h: Harness) => ({
  run: h.run,
  node: h.node,
  nodeId: 'create',
  locale: 'zh-CN' as const,
  now: new Date(),
  logger: h.logger,
});

function grant(h: Harness, tool: string, args: Record<string, unknown>) {
  respond(h, approve(state(h), { tool, args, fingerprint: fingerprint(tool, args) }));
}

describe('full chain against the demo-cloud MCP server', () => {
  it('the site-builder story: query first, gate, approval, one real write with its idempotency key, pending, verify, reuse, outputs, finish', async () => {
    const { h, dataDir } = await demo('在默认空间创建一个叫 官网 的站点');
    const args = { spaceId: 's1', name: '官网' };

    expect((await h.call('web_site_create', args)).obs.errorCode).toBe('PARAM_PROVENANCE_QUERY_FIRST');
    const spaces = await h.call('space_list', {});
    expect(spaces.obs.evidenceId).toBe('ev_1');
    expect(parts((await h.call('web_site_create', { spaceId: 's9', name: '官网' })).obs)).toMatchObject({
      code: 'PARAM_PROVENANCE_MISMATCH',
      message:
        '参数 [spaceId] 的值 s9 不在 space_list 的查询结果中。下一步：改用 space_list 查询结果中的值，例如：s1、s2。',
    });
    expect(parts((await h.call('web_site_create', args)).obs)).toMatchObject({
      outcome: 'DEFERRED',
      code: 'APPROVAL_REQUIRED',
    });
    expect(
      (await h.call('builtin_node_approval', { tool: 'web_site_delete', summary: 'x' })).obs.errorCode,
    ).toBe('APPROVAL_TOOL_MISMATCH');
    const asked = await h.call('builtin_node_approval', {
      tool: 'web_site_create',
      summary: '创建站点 官网',
    });
    expect(asked.report.effect).toMatchObject({
      kind: 'suspend',
      suspension: { kind: 'APPROVAL', pending: { provenance: { spaceId: 'ev_1' } } },
    });
    grant(h, 'web_site_create', args);

    const created = await h.call('web_site_create', args);
    expect(parts(created.obs)).toMatchObject({ outcome: 'SUCCESS', message: '调用 web_site_create 成功' });
    expect(created.obs.evidenceId).toBe('ev_2');
    expect(created.obs.data).toMatchObject({ code: 0, data: { siteId: 'site_1', status: 'CREATING' } });
    const log = readWriteLog(dataDir);
    expect(log).toHaveLength(1);
    expect(log[0]!.idempotencyKey).toBe(idempotencyKey('run-1', fingerprint('web_site_create', args)));

    expect(
      (await h.call('web_site_create', { spaceId: 's1', name: '官网', plan: 'pro' })).obs.errorCode,
    ).toBe('WRITE_PENDING_VERIFY');
    const reused = await h.call('web_site_create', args);
    expect(reused.report.reused).toBe(true);
    expect(reused.obs.evidenceId).toBe('ev_2');
    for (let i = 0; i < 3; i++)
      expect((await h.call('web_site_get', { siteId: 'site_1' })).obs.ok).toBe(true);
    expect(h.node.pendingWrites).toEqual([]);

    expect((await h.call('builtin_node_finish', { summary: 'x' })).obs.errorCode).toBe(
      'FINISH_OUTPUTS_MISSING',
    );
    expect(
      (
        await h.call('builtin_output_set', {
          key: 'siteId',
          value: 'site_1',
          sourceType: 'evidence',
          sourceRef: 'ev_2',
        })
      ).obs.ok,
    ).toBe(true);
    expect((await h.call('builtin_node_finish', { summary: '已创建 官网' })).report.effect).toEqual({
      kind: 'finish',
      summary: '已创建 官网',
    });
    expect(readWriteLog(dataDir)).toHaveLength(1);
  });

  it('arguments are checked against the server’s own inputSchema; the 3rd identical call trips', async () => {
    const { h } = await demo('建一个叫 官网 的站点');
    expect((await h.call('web_site_list', '{"spaceId": s1}')).obs.errorCode).toBe('ARG_JSON_INVALID');
    expect(parts((await h.call('web_site_list', {})).obs)).toMatchObject({
      code: 'PARAM_REQUIRED_MISSING',
      reason: '缺少必填参数 [spaceId]',
    });
    await h.call('space_list', {});
    expect(
      parts((await h.call('web_site_create', { spaceId: 's1', name: '官网', plan: 'gold' })).obs),
    ).toMatchObject({
      code: 'ARG_REJECTED',
      reason: '参数 [plan] 不符合规则：取值应为以下之一：basic、pro',
    });
    expect((await h.call('space_list', {})).obs.ok).toBe(true);
    const trip = await h.call('space_list', {});
    expect(parts(trip.obs)).toMatchObject({
      outcome: 'REJECTED',
      code: 'FINGERPRINT_TRIP',
      reason: '相同参数已调用 space_list 2 次，本次未执行',
    });
    expect(h.run.evidence).toHaveLength(2);
  });

  it('business failures: downstream code in the reason; an approved failed write asks for a follow-up, which is grounded', async () => {
    const { h } = await demo('在默认空间建站点 官网');
    const missing = await h.call('web_site_list', { spaceId: 'nope' });
    expect(parts(missing.obs)).toEqual({
      outcome: 'FAILED',
      code: 'TOOL_BUSINESS_FAILED',
      reason: '业务失败 [system.40401]：空间不存在',
      next: '根据业务失败原因修正后再调用；无法修正时调用 builtin_node_follow_up 向用户说明并询问如何处理',
      message:
        '业务失败 [system.40401]：空间不存在。下一步：根据业务失败原因修正后再调用；无法修正时调用 builtin_node_follow_up 向用户说明并询问如何处理。',
    });
    expect(missing.obs.evidenceId).toBe('ev_1');
    expect(h.logger.lines()).toContain(
      'WARN TOOL invoked tool=web_site_list outcome=FAILED code=TOOL_BUSINESS_FAILED evidence=ev_1',
    );

    await h.call('space_list', {});
    const first = { spaceId: 's1', name: '官网' };
    grant(h, 'web_site_create', first);
    await h.call('web_site_create', first);
    for (let i = 0; i < 2; i++) await h.call('web_site_get', { siteId: 'site_1' });
    const dup = { spaceId: 's1', name: '官网', plan: 'pro' };
    grant(h, 'web_site_create', dup);
    const failed = await h.call('web_site_create', dup);
    expect(parts(failed.obs)).toEqual({
      outcome: 'FAILED',
      code: 'TOOL_BUSINESS_FAILED',
      reason: '业务失败 [system.50001]：站点名称已存在',
      next: '用 builtin_node_follow_up 向用户说明失败原因并询问如何处理；用户不再继续时调用 builtin_node_fail；不要自行改用其它写操作补救',
      message:
        '业务失败 [system.50001]：站点名称已存在。下一步：用 builtin_node_follow_up 向用户说明失败原因并询问如何处理；用户不再继续时调用 builtin_node_fail；不要自行改用其它写操作补救。',
    });
    const question = 'web_site_create 失败：站点名称已存在。是否改用其它名字？';
    const ask = await h.call('builtin_node_follow_up', { question });
    expect(ask.report.effect?.kind).toBe('suspend');
    respond(h, answer(state(h), { question, options: null }, '不用了'));
    expect(
      (await h.call('builtin_node_follow_up', { question: '确认用 web_site_create 创建 官网2 吗？' })).obs
        .errorCode,
    ).toBe('FOLLOW_UP_UNGROUNDED');
  });

  it('a write that times out is looked back with `recover`: found → SUCCESS citing the look-back evidence', async () => {
    const { h } = await demo('慢查询', 300);
    const args = { ms: 5_000 };
    grant(h, 'slow_query', args);
    const { obs, report } = await h.call('slow_query', args);
    expect(parts(obs)).toMatchObject({
      outcome: 'SUCCESS',
      message: '写操作 slow_query 被中断，回查确认已生效，未重复执行',
    });
    // The timed-out write executed first (ev_1, FAILED), then its look-back (ev_2), which it cites.
    expect(obs.evidenceId).toBe('ev_2');
    expect(report.lookBack).toEqual({ evidenceId: 'ev_2', found: true, decided: true });
    expect(h.run.evidence).toMatchObject([
      { id: 'ev_1', tool: 'slow_query', outcome: 'FAILED', errorCode: 'TOOL_TIMEOUT' },
      {
        id: 'ev_2',
        tool: 'space_list',
        lookBack: true,
        confirmsFingerprint: fingerprint('slow_query', args),
      },
    ]);
    expect(h.lookBacks).toMatchObject([{ tool: 'space_list', writeTool: 'slow_query', found: true }]);
    expect(h.run.inFlight).toEqual([]);
    const lines = h.logger.lines();
    expect(lines).toContain(
      'INFO TOOL invoked tool=space_list outcome=SUCCESS code=- evidence=ev_2 lookBack=true',
    );
    expect(lines).toContain('INFO TOOL invoked tool=slow_query outcome=SUCCESS code=- evidence=ev_2');
    expect((await h.call('slow_query', args)).report.reused).toBe(true);
  });

  it('a write that loses its server is looked back (the connection restarts the server): found → SUCCESS', async () => {
    const { h } = await demo('崩溃');
    grant(h, 'crash_server', {});
    const { obs } = await h.call('crash_server', {});
    expect(obs.outcome.name).toBe('SUCCESS');
    expect(obs.evidenceId).toBe('ev_2');
    expect(h.lookBacks).toMatchObject([{ tool: 'space_list', found: true }]);
    expect(h.run.approvals[0]!.consumed).toBe(true);
  });
});
