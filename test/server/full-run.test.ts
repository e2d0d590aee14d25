import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SERVER, demoDataDir, readWriteLog } from '../helpers/demo-server.js';
import { TOKENS, openEvents, startServer, tempDir, type TestServer } from './helpers.js';

/**
 * A whole run driven only through the HTTP API, against the real demo-cloud MCP server: start, watch
 * the events, answer a follow-up, approve the gated write, see it complete.
 */

const dataDir = demoDataDir();

const FLOW = `id: site-builder
version: 3
model: scripted:./turns.yaml
mcpServers:
  cloud: { command: node, args: [${JSON.stringify(DEMO_SERVER)}], env: { DEMO_CLOUD_DATA: ${JSON.stringify(dataDir)} } }
tools:
  web_site_create:
    write: true
    params:
      spaceId: { source: evidence, from: [space_list], path: 'data.spaceId' }
      name: { source: user, required: true }
    response: { okPath: code, okValues: [0], codePath: code, messagePath: message }
    pending: "result.data.status = 'CREATING'"
    verify: { tool: web_site_get, args: { siteId: 'result.data.siteId' }, done: "verify.data.status = 'ACTIVE'" }
nodes:
  - id: query
    tools: [space_list, web_site_list]
  - id: create
    tools: [space_list, web_site_create, web_site_get]
    outputs:
      siteId: { required: true, sources: [evidence], from: [web_site_create, web_site_get] }
edges:
  - { from: query, to: create }
`;

const TURNS = `turns:
  - { node: query, calls: [{ tool: space_list, args: {} }] }
  - { node: query, calls: [{ tool: builtin_node_follow_up, args: { question: 新站点叫什么名字？ } }] }
  - { node: query, calls: [{ tool: builtin_node_finish, args: { summary: 已查询 } }] }
  - { node: create, calls: [{ tool: web_site_create, args: { spaceId: s1, name: 官网 } }] }
  - { node: create, calls: [{ tool: builtin_node_approval, args: { tool: web_site_create, summary: 创建站点 官网 } }] }
  - { node: create, calls: [{ tool: web_site_create, args: { spaceId: s1, name: 官网 } }] }
  - { node: create, calls: [{ tool: web_site_get, args: { siteId: site_1 } }] }
  - { node: create, calls: [{ tool: web_site_get, args: { siteId: site_1 } }] }
  - { node: create, calls: [{ tool: builtin_output_set, args: { key: siteId, value: site_1, sourceType: evidence, sourceRef: ev_2 } }] }
  - { node: create, calls: [{ tool: builtin_node_finish, args: { summary: 站点已创建 } }] }
`;

let t: TestServer;

beforeAll(async () => {
  const flowsDir = await tempDir({ 'site-builder/flow.yaml': FLOW, 'site-builder/turns.yaml': TURNS });
  t = await startServer({ flowsDir });
});
afterAll(async () => {
  await t.stop();
});

describe('a full run over HTTP', () => {
  it('starts, asks, is answered, is approved and completes; the trace records who and when', async () => {
    const flows = (await (await t.call('GET', '/v1/flows', { token: TOKENS.viewer })).json()) as {
      flowId: string;
      version: string | number;
    }[];
    expect(flows.map((f) => [f.flowId, f.version])).toEqual([['site-builder', 3]]);

    const started = await t.call('POST', '/v1/runs', {
      token: TOKENS.operator,
      json: { flowId: 'site-builder', input: '帮我建一个站点' },
    });
    expect(started.status).toBe(201);
    const { runId, status } = (await started.json()) as { runId: string; status: string };
    expect(status).toBe('running');
    expect(started.headers.get('location')).toBe(`/v1/runs/${runId}`);

    const stream = await openEvents(t.url, runId, { token: TOKENS.viewer });
    expect(stream.status).toBe(200);
    const untilQuestion = await stream.events((e) => e.type === 'run.suspended');
    expect(untilQuestion.at(-1)).toMatchObject({
      kind: 'FOLLOW_UP',
      pending: { question: '新站点叫什么名字？' },
    });

    const asked = (await (await t.call('GET', `/v1/runs/${runId}`, { token: TOKENS.viewer })).json()) as {
      status: string;
      suspension: { kind: string };
    };
    expect(asked).toMatchObject({ status: 'suspended', suspension: { kind: 'FOLLOW_UP' } });

    const answered = await t.call('POST', `/v1/runs/${runId}/answer`, {
      token: TOKENS.operator,
      json: { text: '官网' },
    });
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { status: string }).status).toBe('running');

    const untilApproval = await stream.events((e) => e.type === 'run.suspended');
    expect(untilApproval.at(-1)).toMatchObject({
      kind: 'APPROVAL',
      pending: { tool: 'web_site_create', args: { spaceId: 's1', name: '官网' } },
    });
    expect(readWriteLog(dataDir)).toEqual([]);

    const approved = await t.call('POST', `/v1/runs/${runId}/approval`, {
      token: TOKENS.operator,
      json: { decision: 'approve', comment: 'ok' },
    });
    expect(approved.status).toBe(200);

    const rest = await stream.events();
    expect(rest.at(-1)).toMatchObject({
      type: 'run.completed',
      outputs: { query: {}, create: { siteId: 'site_1' } },
    });
    const all = [...untilQuestion, ...untilApproval, ...rest];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    const resumed = all.filter((e) => e.type === 'run.resumed');
    expect(resumed).toMatchObject([
      { kind: 'FOLLOW_UP', answer: '官网', who: 'olivia' },
      { kind: 'APPROVAL', decision: 'approved', comment: 'ok', who: 'olivia' },
    ]);
    expect(typeof resumed[1]?.ts).toBe('string');
    expect(readWriteLog(dataDir).map((w) => w.tool)).toEqual(['web_site_create']);

    const summary = (await (
      await t.call('GET', `/v1/runs/${runId}`, { token: TOKENS.viewer })
    ).json()) as Record<string, unknown>;
    expect(summary).toMatchObject({
      runId,
      status: 'completed',
      flowId: 'site-builder',
      outputs: { create: { siteId: 'site_1' } },
    });
    const list = (await (
      await t.call('GET', '/v1/runs?status=completed', { token: TOKENS.viewer })
    ).json()) as { runId: string }[];
    expect(list.map((r) => r.runId)).toContain(runId);
  });
});
