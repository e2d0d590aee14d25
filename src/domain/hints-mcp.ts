import type { Localized } from './locale.js';

/**
 * Texts shown to the model about what MCP servers ask of the run (docs/mcp.md, "Elicitation"). Part of
 * the one table of hints.ts (`hint()`), kept here so that each file stays readable.
 */
export const MCP_TEXTS = {
  SUSPENDED_ELICITATION: {
    'zh-CN': 'MCP 服务器 {server} 向用户提问，等待回答',
    en: 'MCP server {server} asked the user a question; waiting for the answer',
  },
  ELICITATION_ANSWERED: {
    'zh-CN':
      '用户已回答 MCP 服务器 {server} 的提问（{action}）；以相同参数再次调用 {tool} 时，该回答会交给服务器',
    en: 'The user answered the question of MCP server {server} ({action}); the answer is given to the server when {tool} is called again with the same arguments',
  },
  SUSPENDED_TASK: {
    'zh-CN': 'MCP 服务器 {server} 正在以任务方式执行 {tool}，等待任务结束',
    en: 'MCP server {server} runs {tool} as a task; waiting for the task to end',
  },
  AUTHORIZATION_NEEDED: {
    'zh-CN': 'MCP 服务器 {server} 需要有人授权后才能使用；等待授权',
    en: 'MCP server {server} needs a person to authorize it before it can be used; waiting for the authorization',
  },
  AUTHORIZATION_ANSWERED: {
    'zh-CN': '已处理 MCP 服务器 {server} 的授权；以相同参数再次调用 {tool}',
    en: 'The authorization of MCP server {server} was attended to; call {tool} again with the same arguments',
  },
} as const satisfies Record<string, Localized<string>>;
