import type { Localized } from './locale.js';

/**
 * Texts shown to the model about values: how they are matched against tool results and the user's
 * words, typed outputs and structured tool results, and the plain error of the evals' ablation. Part of
 * the one table of hints.ts (`hint()`), kept here so that each file stays readable.
 */
export const VALUE_TEXTS = {
  // ---- value matching and provenance (docs/flows.md, "How values are matched")
  NEXT_OUTPUT_VALUE_EXACT: {
    'zh-CN': '引用含有该值的证据：该值须与结果中的某个值完全相同（此产出不接受文本中的片段）',
    en: 'cite the evidence that holds the exact value: it must equal a value of the result (this output takes no part of a text)',
  },
  OUTPUT_VALUE_SAMPLES: {
    'zh-CN': '该证据中 [{key}] 的值有：{values}',
    en: 'values of [{key}] in it: {values}',
  },
  NEXT_PROVENANCE_MISMATCH_CONTAINS: {
    'zh-CN': '改用 {tools} 查询结果中原样出现的值（完整的值，或结果文本中完整的词语或片段），例如：{values}',
    en: 'use a value that stands exactly in a result of {tools} (a whole value, or a whole word or phrase of its text), for example: {values}',
  },
  NEXT_PROVENANCE_MISMATCH_OR_USER: {
    'zh-CN': '改用 {tools} 查询结果中的值（例如：{values}），或用户原话中的值',
    en: 'use a value from the results of {tools} (for example: {values}), or one the user said',
  },
  NEXT_MISMATCH_OR_ASK: {
    'zh-CN':
      '使用 {tools} 查询结果中原样出现的值，或用户原话中的值；都没有时调用 builtin_node_follow_up 向用户询问参数 [{field}]',
    en: 'use a value exactly as it stands in a result of {tools}, or one the user said; if neither holds it, ask the user for argument [{field}] with builtin_node_follow_up',
  },
  NEXT_QUERY_OR_ASK: {
    'zh-CN': '先调用 {tools} 查询，再用查询结果中的值调用 {tool}；或使用用户原话中的值',
    en: 'call {tools} first and call {tool} with a value from its result, or use a value the user said',
  },
  // ---- typed outputs and structured tool results (issue 26)
  NEXT_OUTPUT_SCHEMA: {
    'zh-CN':
      '重新写入 [{key}]，value 须是符合其 schema {schema} 的 JSON 值（数字、对象直接写，不要写成字符串）',
    en: 'write [{key}] again with a JSON value its schema {schema} accepts (numbers and objects as they are, not as strings)',
  },
  NEXT_MCP_OUTPUT_SCHEMA: {
    'zh-CN':
      '不要采用这个结果，也不要重复写操作；换用其他工具查询，或调用 builtin_node_fail 说明原因（工具服务端的问题）',
    en: 'do not rely on this result and do not repeat a write; use another tool, or call builtin_node_fail with the reason (the tool server is at fault)',
  },
  RULE_FIELD_MISSING: { 'zh-CN': '缺少字段 {field}', en: 'missing field {field}' },
  RULES_MORE: { 'zh-CN': '另有 {count} 处不符', en: 'and {count} more' },
  RULE_UNKNOWN_FIELD: {
    'zh-CN': '不是允许的字段（允许：{allowed}）',
    en: 'is not an allowed field (allowed: {allowed})',
  },
  STRUCTURED_CONTENT_MISSING: {
    'zh-CN': '结果没有 structuredContent',
    en: 'the result has no structuredContent',
  },
  // MCP authorization (docs/mcp.md, "Authorization"): the run stops until a person authorizes.
  NEXT_MCP_UNAUTHORIZED: {
    'zh-CN': '运行暂停，等待有人授权该服务器；运行继续后再调用一次该工具',
    en: 'the run stops until a person authorizes the server; once it goes on, call the tool again',
  },
  NEXT_MCP_TASK_REQUIRED: {
    'zh-CN': '不要再调用该工具；换用其他工具，或调用 builtin_node_fail 说明原因',
    en: 'do not call this tool again; use another tool, or call builtin_node_fail with the reason',
  },
  // Evals (issue 32): the generic error text of `--observations plain` (no code, reason or next step).
  PLAIN_ERROR: {
    'zh-CN': '错误：工具调用失败。',
    en: 'Error: the tool call failed.',
  },
} as const satisfies Record<string, Localized<string>>;
