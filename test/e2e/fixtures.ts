import { DEMO_SERVER } from '../helpers/demo-server.js';

/**
 * The console's end-to-end scenario: a site-building flow over the real demo-cloud MCP server whose
 * scripted model exercises every badge (a business FAILED, a REJECTED provenance check, the DEFERRED
 * approval gate, SUCCESS), a pending write with provenance, and a follow-up question with options.
 */
export function siteFlow(dataDir: string): string {
  return `id: site-console
version: 1
description: 建站助手（控制台端到端测试）
locale: zh-CN
model: scripted:./turns.yaml
mcpServers:
  cloud: { command: node, args: [${JSON.stringify(DEMO_SERVER)}], env: { DEMO_CLOUD_DATA: ${JSON.stringify(dataDir)} } }
limits: { maxRounds: 30, maxStalls: 5 }
tools:
  web_site_list:
    response: { okPath: code, okValues: [0], codePath: code, messagePath: message }
  web_site_create:
    write: true
    params:
      spaceId: { source: evidence, from: [space_list], path: 'data.spaceId' }
      name: { source: user, required: true }
      plan: { enum: [basic, pro] }
    response: { okPath: code, okValues: [0], codePath: code, messagePath: message }
    pending: "result.data.status = 'CREATING'"
    verify: { tool: web_site_get, args: { siteId: 'result.data.siteId' }, done: "verify.data.status = 'ACTIVE'" }
nodes:
  - id: query
    instructions: 查询用户的空间和站点。
    tools: [space_list, web_site_list]
  - id: create
    instructions: 按用户要求创建站点。
    tools: [space_list, web_site_list, web_site_create, web_site_get]
    outputs:
      siteId: { required: true, sources: [evidence], from: [web_site_create, web_site_get] }
      language: { required: false, sources: [user] }
edges:
  - { from: query, to: create }
`;
}

/** The scripted model of siteFlow (turn i answers the run's i-th model call). */
export const SITE_TURNS = `turns:
  - node: query
    text: 先查询用户的空间。
    calls: [{ tool: space_list, args: {} }]
  - node: query
    calls: [{ tool: web_site_list, args: { spaceId: s9 } }]
  - node: query
    text: 空间 s9 不存在，改用 space_list 返回的 s1。
    calls: [{ tool: web_site_list, args: { spaceId: s1 } }]
  - node: query
    calls: [{ tool: builtin_node_finish, args: { summary: 已查询空间和站点 } }]
  - node: create
    calls: [{ tool: web_site_create, args: { spaceId: s1, name: 主页, plan: basic } }]
  - node: create
    text: 直接调用写工具创建站点。
    calls: [{ tool: web_site_create, args: { spaceId: s1, name: 官网, plan: basic } }]
  - node: create
    calls: [{ tool: builtin_node_approval, args: { tool: web_site_create, summary: 在「默认空间」创建站点「官网」（basic 套餐） } }]
  - node: create
    text: 已获批准，按原参数创建。
    calls: [{ tool: web_site_create, args: { spaceId: s1, name: 官网, plan: basic } }]
  - node: create
    calls: [{ tool: web_site_get, args: { siteId: site_1 } }]
  - node: create
    calls: [{ tool: web_site_get, args: { siteId: site_1 } }]
  - node: create
    calls: [{ tool: builtin_node_follow_up, args: { question: 站点首页使用哪种语言？, options: [中文, English] } }]
  - node: create
    calls:
      - { tool: builtin_output_set, args: { key: siteId, value: site_1, sourceType: evidence, sourceRef: ev_4 } }
      - { tool: builtin_output_set, args: { key: language, value: 中文, sourceType: user } }
  - node: create
    calls: [{ tool: builtin_node_finish, args: { summary: 站点「官网」已创建并处于 ACTIVE 状态 } }]
`;

/** The input of the scenario's runs. */
export const SITE_INPUT = '在默认空间创建一个名为 官网 的站点';
