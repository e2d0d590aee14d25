/**
 * The invoker's codes for what an MCP server answered that the runtime cannot use as is: a structured
 * result breaking the tool's outputSchema, a person must authorize first, or the tool runs only as a
 * task. Part of the one table of error-codes.ts, kept here so that each file stays readable; same
 * shape as its entries.
 */
export const MCP_SPECS = {
  MCP_OUTPUT_SCHEMA_MISMATCH: {
    no: 50204,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '工具 {tool} 的结构化结果不符合它声明的 outputSchema：{detail}',
      en: 'Tool {tool} returned a structured result that does not match its declared outputSchema: {detail}',
    },
  },
  // Issue 30: a server needs a person to authorize (again) before it runs the call.
  MCP_UNAUTHORIZED: {
    no: 50303,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '工具 {tool} 的服务器需要一次新的授权：{detail}',
      en: 'The server of tool {tool} needs a new authorization: {detail}',
    },
  },
  // Issue 30: a tool the server runs only as a task (`execution.taskSupport: required`).
  MCP_TASK_REQUIRED: {
    no: 50205,
    producer: 'invoker',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '工具 {tool} 只能以任务（task）方式运行，其服务器未向本运行时提供任务，未调用',
      en: 'Tool {tool} runs only as a task, which its server does not offer to this runtime; it was not called',
    },
  },
} as const;
