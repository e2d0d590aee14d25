import type { Locale, Localized } from './locale.js';
import { fill, type ReasonParams } from './error-codes.js';
import { VALUE_TEXTS } from './hints-values.js';
import { GUARD_TEXTS } from './guard-codes.js';
import { APPROVAL_TEXTS } from './hints-approval.js';
import { MCP_TEXTS } from './hints-mcp.js';
import { NOTIFY_TEXTS } from './hints-notify.js';

import { PROVENANCE_TEXTS } from './error-codes-provenance.js';

/**
 * Every text the runtime shows to the model besides the codes' reason templates (docs/observations.md, docs/flows.md).
 * NEXT_* texts say what to do next and always give advice; the other texts only state facts.
 * Templates use `{name}` placeholders, filled by `hint()`.
 */
const TEXTS = {
  // ---- next steps of the guards and the loop
  NEXT_ARG_JSON_INVALID: {
    'zh-CN': '用合法的 JSON 对象作为参数重新调用 {tool}',
    en: 'call {tool} again with a valid JSON object as its arguments',
  },
  NEXT_REQUIRED_MISSING: {
    'zh-CN':
      '补齐后再调用；无法补齐时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因',
    en: 'add it and call again; if you cannot, ask the user with builtin_node_follow_up, or call builtin_node_fail with the reason',
  },
  NEXT_ARG_REJECTED: {
    'zh-CN': '按规则修正参数 [{field}] 后再调用 {tool}',
    en: 'fix argument [{field}] as the rule says and call {tool} again',
  },
  NEXT_CATALOG_DENIED: {
    'zh-CN': '只调用本节点可用的工具：{tools}',
    en: 'call only the tools available in this node: {tools}',
  },
  NEXT_QUERY_FIRST: {
    'zh-CN': '先调用 {tools} 查询，再用查询结果中的值调用 {tool}',
    en: 'call {tools} first, then call {tool} with a value from its result',
  },
  NEXT_PROVENANCE_MISMATCH: {
    'zh-CN': '改用 {tools} 查询结果中的值，例如：{values}',
    en: 'use a value from the results of {tools}, for example: {values}',
  },
  NEXT_ASK_FIRST: {
    'zh-CN': '调用 builtin_node_follow_up 向用户询问参数 [{field}]，再用用户给出的值调用',
    en: 'ask the user for argument [{field}] with builtin_node_follow_up, then use the value they give',
  },
  NEXT_ENUM: {
    'zh-CN': '改用允许的值之一：{values}',
    en: 'use one of the allowed values: {values}',
  },
  NEXT_FINGERPRINT_TRIP: {
    'zh-CN':
      '不要再用相同参数调用 {tool}；根据已有结果继续，无法继续时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因',
    en: 'do not call {tool} again with the same arguments; go on from the results you have, or ask the user with builtin_node_follow_up, or call builtin_node_fail with the reason',
  },
  NEXT_APPROVAL_REQUIRED: {
    'zh-CN': '调用 builtin_node_approval 申请用户确认，参数 tool 填 {tool}；批准后再用相同参数调用 {tool}',
    en: 'call builtin_node_approval with tool {tool} to ask the user for approval; once approved, call {tool} again with the same arguments',
  },
  NEXT_PENDING_VERIFY: {
    'zh-CN': '调用 {verifyTool} 核实写操作结果，参数 {verifyArgs}',
    en: 'call {verifyTool} with {verifyArgs} to verify the result of the write',
  },
  NEXT_IN_FLIGHT: {
    'zh-CN': '等待该写操作结束，不要重复发起；可以先做其它步骤',
    en: 'wait for that write to end and do not send it again; other steps may go first',
  },
  NEXT_WRITE_NOT_EXECUTED: {
    'zh-CN': '用相同参数再次调用 {tool}，用户的确认仍然有效',
    en: 'call {tool} again with the same arguments; the user’s approval still holds',
  },
  NEXT_WRITE_RESULT_UNKNOWN: {
    'zh-CN': '等待用户答复如何处理，不要自行重试该写操作',
    en: 'wait for the user to say how to go on; do not retry the write yourself',
  },
  NEXT_BUSINESS: {
    'zh-CN': '根据业务失败原因修正后再调用；无法修正时调用 builtin_node_follow_up 向用户说明并询问如何处理',
    en: 'fix the cause of the business failure and call again; if you cannot, explain it to the user with builtin_node_follow_up and ask how to go on',
  },
  NEXT_APPROVED_FAILED: {
    'zh-CN':
      '用 builtin_node_follow_up 向用户说明失败原因并询问如何处理；用户不再继续时调用 builtin_node_fail；不要自行改用其它写操作补救',
    en: 'explain the failure to the user with builtin_node_follow_up and ask how to proceed; call builtin_node_fail if they stop; do not try another write to compensate',
  },
  // ---- next steps of invoker-level failures (ToolErrors)
  NEXT_TIMEOUT: {
    'zh-CN': '稍后重试一次；仍然超时则调用 builtin_node_follow_up 告知用户并询问如何处理',
    en: 'retry once later; if it times out again, tell the user with builtin_node_follow_up and ask how to go on',
  },
  NEXT_UNREACHABLE: {
    'zh-CN': '稍后重试一次；仍不可达时调用 builtin_node_fail 说明原因',
    en: 'retry once later; if it is still unreachable, call builtin_node_fail with the reason',
  },
  NEXT_IO: {
    'zh-CN': '稍后重试一次；仍然失败时调用 builtin_node_fail 说明原因',
    en: 'retry once later; if it fails again, call builtin_node_fail with the reason',
  },
  NEXT_RPC: {
    'zh-CN': '检查调用的工具与参数；无法解决时调用 builtin_node_fail 说明原因',
    en: 'check the tool and its arguments; if that does not help, call builtin_node_fail with the reason',
  },
  NEXT_INVALID_PARAMS: {
    'zh-CN': '按工具的参数说明修正参数后再调用',
    en: 'fix the arguments as the tool’s input schema says and call again',
  },
  NEXT_TOOL_ERROR: {
    'zh-CN':
      '根据错误信息修正后再调用；无法解决时调用 builtin_node_follow_up 询问用户，或调用 builtin_node_fail 说明原因',
    en: 'fix what the error names and call again; if you cannot, ask the user with builtin_node_follow_up, or call builtin_node_fail with the reason',
  },
  // ---- next steps of the builtin tools
  NEXT_APPROVAL_NOT_GATED: {
    'zh-CN': '先直接调用写工具，被拦下后再按提示申请确认',
    en: 'call the write tool directly first; ask for approval only after it is stopped',
  },
  NEXT_APPROVAL_TOOL_MISMATCH: {
    'zh-CN': '调用 builtin_node_approval，参数 tool 填被拦下的写工具 {gated}',
    en: 'call builtin_node_approval with tool {gated}, the gated write tool',
  },
  NEXT_APPROVAL_DENIED: {
    'zh-CN':
      '不要重试该写操作；调用 builtin_node_follow_up 询问用户如何处理，或调用 builtin_node_finish / builtin_node_fail 结束',
    en: 'do not retry the write; ask the user how to go on with builtin_node_follow_up, or end with builtin_node_finish / builtin_node_fail',
  },
  NEXT_FOLLOW_UP_ANSWERED: {
    'zh-CN': '按用户的这个回答继续，不要重复提问',
    en: 'go on from this answer; do not ask again',
  },
  NEXT_FOLLOW_UP_WRITE: {
    'zh-CN': '直接调用写工具，确认由审批完成（被拦下后调用 builtin_node_approval）',
    en: 'call the write tool directly; approval does the confirming (call builtin_node_approval once it is stopped)',
  },
  NEXT_OUTPUT_KEYS: {
    'zh-CN': '只写节点声明的产出键：{keys}',
    en: 'write only the output keys the node declares: {keys}',
  },
  NEXT_OUTPUT_SOURCE_TYPES: {
    'zh-CN': 'sourceType 使用该键接受的来源类型：{types}',
    en: 'use a sourceType this key accepts: {types}',
  },
  NEXT_OUTPUT_SOURCE_REF: {
    'zh-CN': 'sourceRef 填 {what}',
    en: 'set sourceRef to {what}',
  },
  NEXT_OUTPUT_TOOLS: {
    'zh-CN': '引用以下工具成功调用的证据编号：{tools}',
    en: 'cite the evidence id of a successful call of one of: {tools}',
  },
  NEXT_OUTPUT_VALUE: {
    'zh-CN':
      '引用结果中原样含有该值的证据：字符串可以是结果文本中完整的词语或片段（至少 3 个字符，中日文至少 2 个字，不能是更长的词或数字的一部分），其它值须与结果中的某个值相同',
    en: 'cite the evidence whose text holds the exact value: a string may be a whole word or phrase inside a result text (at least 3 characters, 2 for Chinese or Japanese, never part of a longer word or number); any other value must equal a value of the result',
  },
  NEXT_OPTIONAL_OUTPUT: {
    'zh-CN': '也可以不写，直接调用 builtin_node_finish',
    en: 'you may also leave it unwritten and call builtin_node_finish',
  },
  NEXT_FINISH_MISSING: {
    'zh-CN': '先用 builtin_output_set 写入 {keys}，再调用 builtin_node_finish',
    en: 'write {keys} with builtin_output_set, then call builtin_node_finish',
  },
  NEXT_DELEGATION: {
    'zh-CN': '只委派给本节点允许的流程：{flows}',
    en: 'delegate only to the flows this node allows: {flows}',
  },
  NEXT_DELEGATE_FAILED: {
    'zh-CN': '调用 builtin_node_follow_up 向用户说明并询问如何处理，或调用 builtin_node_fail 说明原因',
    en: 'explain it to the user with builtin_node_follow_up and ask how to go on, or call builtin_node_fail with the reason',
  },
  // ---- facts shown in success observations and tool messages
  SUCCESS: { 'zh-CN': '调用 {tool} 成功', en: 'Call of {tool} succeeded' },
  REUSED: {
    'zh-CN': '该写操作此前已成功执行，本次未重复执行',
    en: 'This write already succeeded earlier; it was not executed again',
  },
  LOOKED_BACK: {
    'zh-CN': '写操作 {tool} 被中断，回查确认已生效，未重复执行',
    en: 'The write {tool} was interrupted; the look-back found its effect, so it was not sent again',
  },
  APPROVAL_GRANTED: {
    'zh-CN': '用户已批准：现在可以用完全相同的参数调用一次 {tool}',
    en: 'The user approved: {tool} may now be called once with exactly the same arguments',
  },
  FOLLOW_UP_ANSWER: { 'zh-CN': '用户回答：{answer}', en: 'The user answered: {answer}' },
  OUTPUT_WRITTEN: { 'zh-CN': '产出 [{key}] 已写入', en: 'Output [{key}] written' },
  NODE_FINISHED: { 'zh-CN': '节点已完成', en: 'Node finished' },
  NODE_FAILED: { 'zh-CN': '节点已失败：{reason}', en: 'Node failed: {reason}' },
  SKIPPED: {
    'zh-CN': '未执行：同一轮中前面的调用未成功',
    en: 'Not executed: an earlier call in the same round did not succeed',
  },
  EVIDENCE: { 'zh-CN': 'evidence: {id}', en: 'evidence: {id}' },
  RECOVERY_QUESTION: {
    'zh-CN': '写操作 {tool}（参数 {args}）在执行中被中断，无法确定是否已生效。请问如何继续？',
    en: 'The write {tool} (arguments {args}) was interrupted while executing and its result cannot be determined. How should we go on?',
  },
  NO_PROGRESS_REACHED: {
    'zh-CN': '连续 {stalls} 次调用或轮次没有进展',
    en: '{stalls} consecutive calls or rounds without progress',
  },
  ROUND_LIMIT_REACHED: {
    'zh-CN': '已达到轮次上限 maxRounds = {maxRounds}',
    en: 'maxRounds {maxRounds} reached',
  },
  NO_TOOL_CALL: {
    'zh-CN': '上一轮没有调用任何工具。',
    en: 'The previous round called no tool.',
  },
  NODE_RETRIED: {
    'zh-CN':
      '本节点此前以 {reason} 失败（{message}），现由操作员重试：轮次与无进展计数已重新开始，之前的对话、证据、批准与产出仍然有效。',
    en: 'This node failed with {reason} ({message}) and is being retried by an operator: its round and stall counts start afresh; the conversation, evidence, approvals and outputs so far still hold.',
  },
  // ---- phase hint (contract facts only)
  PHASE_MISSING: { 'zh-CN': '必填产出尚未写入：{keys}', en: 'Required outputs not written yet: {keys}' },
  PHASE_ALL_WRITTEN: { 'zh-CN': '必填产出已全部写入', en: 'All required outputs are written' },
  // ---- follow-up UNGROUNDED reasons (what the question did)
  UNGROUNDED_CONFIRMS_WRITE: {
    'zh-CN': '在口头确认写操作 {tool}',
    en: 'asks to confirm the write {tool} verbally',
  },
  UNGROUNDED_ECHO: { 'zh-CN': '复述了用户已经说过的内容', en: 'repeats what the user already said' },
  // ---- guard and builtin details (issue 3: pipeline and builtins)
  DETAIL_JSON_PARSE: { 'zh-CN': '无法解析（{error}）', en: 'cannot parse ({error})' },
  DETAIL_NOT_OBJECT: { 'zh-CN': '得到的是 {type}', en: 'got {type}' },
  BUSINESS_FAILED_NO_CODE: { 'zh-CN': '业务失败：{message}', en: 'Business failure: {message}' },
  NO_MESSAGE: { 'zh-CN': '（未返回说明）', en: '(no message)' },
  NO_COMMENT: { 'zh-CN': '（未说明原因）', en: '(no comment)' },
  NONE: { 'zh-CN': '（无）', en: '(none)' },
  RULE_TYPE: { 'zh-CN': '类型应为 {type}', en: 'must be of type {type}' },
  RULE_ENUM: { 'zh-CN': '取值应为以下之一：{values}', en: 'must be one of: {values}' },
  RULE_CONST: { 'zh-CN': '取值应为 {value}', en: 'must be {value}' },
  RULE_MINIMUM: { 'zh-CN': '不能小于 {limit}', en: 'must be >= {limit}' },
  RULE_MAXIMUM: { 'zh-CN': '不能大于 {limit}', en: 'must be <= {limit}' },
  RULE_EXCLUSIVE_MINIMUM: { 'zh-CN': '应大于 {limit}', en: 'must be > {limit}' },
  RULE_EXCLUSIVE_MAXIMUM: { 'zh-CN': '应小于 {limit}', en: 'must be < {limit}' },
  RULE_MULTIPLE_OF: { 'zh-CN': '应为 {limit} 的倍数', en: 'must be a multiple of {limit}' },
  RULE_MIN_LENGTH: { 'zh-CN': '长度不能少于 {limit} 个字符', en: 'must have at least {limit} characters' },
  RULE_MAX_LENGTH: { 'zh-CN': '长度不能超过 {limit} 个字符', en: 'must have at most {limit} characters' },
  RULE_PATTERN: { 'zh-CN': '应匹配正则表达式 {pattern}', en: 'must match the pattern {pattern}' },
  RULE_FORMAT: { 'zh-CN': '格式应为 {format}', en: 'must be in {format} format' },
  RULE_MIN_ITEMS: { 'zh-CN': '至少应有 {limit} 项', en: 'must have at least {limit} items' },
  RULE_MAX_ITEMS: { 'zh-CN': '最多只能有 {limit} 项', en: 'must have at most {limit} items' },
  RULE_UNIQUE_ITEMS: { 'zh-CN': '各项不能重复', en: 'must not contain duplicate items' },
  RULE_MIN_PROPERTIES: { 'zh-CN': '至少应有 {limit} 个字段', en: 'must have at least {limit} properties' },
  RULE_MAX_PROPERTIES: { 'zh-CN': '最多只能有 {limit} 个字段', en: 'must have at most {limit} properties' },
  RULE_ADDITIONAL: {
    'zh-CN': '不是该工具接受的参数（接受：{allowed}）',
    en: 'is not an argument of this tool (accepted: {allowed})',
  },
  RULE_OTHER: {
    'zh-CN': '不满足 {keyword} 约束（{message}）',
    en: 'breaks the {keyword} constraint ({message})',
  },
  // issue 27: bounded schema checks
  RULE_ENUM_SOME: {
    'zh-CN': '取值应为以下之一：{values}（另有 {more} 个取值）',
    en: 'must be one of: {values} (and {more} more)',
  },
  RULE_BUDGET: {
    'zh-CN': '无法在 {ms} 毫秒内完成校验，请缩小取值',
    en: 'could not be checked within {ms} ms; send a smaller value',
  },
  RULE_SCHEMA_UNUSABLE: {
    'zh-CN': '该工具的参数模式无法使用（{why}），不允许调用',
    en: "cannot be checked: the tool's argument schema is unusable ({why}), so the call is not allowed",
  },
  OUTPUT_TYPE_UNKNOWN: { 'zh-CN': '来源类型 {type} 不存在', en: 'there is no source type {type}' },
  OUTPUT_TYPE_NOT_ACCEPTED: {
    'zh-CN': '产出 [{key}] 不接受来源类型 {type}',
    en: 'output [{key}] does not accept source type {type}',
  },
  OUTPUT_EVIDENCE_UNKNOWN: { 'zh-CN': '证据 {ref} 不存在', en: 'there is no evidence {ref}' },
  OUTPUT_EVIDENCE_FAILED: {
    'zh-CN': '{tool} 的调用 {ref} 未成功',
    en: 'the call {ref} of {tool} did not succeed',
  },
  OUTPUT_EVIDENCE_TOOL: {
    'zh-CN': '{tool}（{ref}）不是产出 [{key}] 接受的来源工具',
    en: '{tool} ({ref}) is not a source tool output [{key}] accepts',
  },
  OUTPUT_VALUE_NOT_IN_EVIDENCE: {
    'zh-CN': '{tool} 的结果 {ref} 中没有值 {value}',
    en: 'the result {ref} of {tool} does not hold the value {value}',
  },
  OUTPUT_VALUE_NOT_SAID: {
    'zh-CN': '用户的输入和回答中没有 {value}',
    en: 'the user’s input and answers do not contain {value}',
  },
  OUTPUT_NODE_UNKNOWN: { 'zh-CN': '节点产出 {ref} 不存在', en: 'there is no node output {ref}' },
  OUTPUT_VALUE_NOT_IN_NODE: {
    'zh-CN': '节点产出 {ref} 中没有值 {value}',
    en: 'the node output {ref} does not hold the value {value}',
  },
  OUTPUT_REF_EVIDENCE: {
    'zh-CN': '{tools} 成功调用的证据编号（如 ev_1）',
    en: 'the evidence id (e.g. ev_1) of a successful call of {tools}',
  },
  OUTPUT_REF_NODE: {
    'zh-CN': '已完成节点的产出，格式 <节点id>.<键>：{refs}',
    en: 'a completed node’s output as <node id>.<key>: {refs}',
  },
  ANY_TOOL: { 'zh-CN': '任一工具', en: 'any tool' },
  NEXT_OUTPUT_USER_VALUE: {
    'zh-CN': '使用用户原话中的值；用户没有说过时调用 builtin_node_follow_up 询问',
    en: 'use a value in the user’s own words; if they have not said it, ask with builtin_node_follow_up',
  },
  NEXT_OUTPUT_NODE_VALUE: { 'zh-CN': '使用 {ref} 的值：{value}', en: 'use the value of {ref}: {value}' },
  SUSPENDED_FOLLOW_UP: {
    'zh-CN': '已向用户提问，等待回答',
    en: 'The question was sent to the user; waiting for the answer',
  },
  SUSPENDED_APPROVAL: {
    'zh-CN': '已申请用户确认 {tool}，等待决定',
    en: 'Approval of {tool} was requested; waiting for the decision',
  },
  DELEGATE_COMPLETED: { 'zh-CN': '委派的流程 {flow} 已完成', en: 'The delegated flow {flow} completed' },
  // ---- context compaction and budgets (issue 20)
  CONTEXT_STUB: {
    'zh-CN': '[结果已压缩（{chars} 字符）；调用 builtin_evidence_read {"id":"{id}"} 可再次查看]',
    en: '[result compacted ({chars} characters); builtin_evidence_read {"id":"{id}"} shows it again]',
  },
  CONTEXT_DIGEST: {
    'zh-CN':
      '本节点第 {from}–{to} 轮已压缩，以控制上下文长度。以下是这些轮次的调用及结论；需要再次查看某个结果时，用其 evidence 编号调用 builtin_evidence_read。',
    en: 'Rounds {from}–{to} of this node were compacted to keep the conversation within its budget. Their calls and outcomes follow; to see a result again, call builtin_evidence_read with its evidence id.',
  },
  CONTEXT_DIGEST_USER: { 'zh-CN': '用户消息：{text}', en: 'User message: {text}' },
  NEXT_RESOURCE_LINK: {
    'zh-CN': '只读取工具结果中 resource_link 给出的 uri（{uris}）',
    en: 'read only a uri a tool result gave as a resource_link ({uris})',
  },
  NEXT_RESOURCE_SERVER: {
    'zh-CN': '在 server 中填写本节点的一个资源服务器（{servers}）',
    en: "name one of this node's resource servers in `server` ({servers})",
  },
  EVIDENCE_READ: {
    'zh-CN': '{id} 是 {tool} 的调用结果（{outcome}，参数 {args}）',
    en: '{id} is the result of {tool} ({outcome}, arguments {args})',
  },
  EVIDENCE_READ_PART: {
    'zh-CN': '{id} 是 {tool} 的调用结果（{outcome}，参数 {args}），以下是 {path} 选出的部分',
    en: '{id} is the result of {tool} ({outcome}, arguments {args}); this is the part {path} selects',
  },
  NEXT_EVIDENCE_ID: {
    'zh-CN': '使用本次运行已有的证据编号（{ids}）',
    en: 'use an evidence id of this run ({ids})',
  },
  BUDGET_TOKENS_REACHED: {
    'zh-CN': '运行已用 {spent} 个 token，达到上限 maxTokens = {limit}',
    en: 'The run has used {spent} tokens, reaching maxTokens {limit}',
  },
  BUDGET_COST_REACHED: {
    'zh-CN': '运行费用已达 {spent}，达到上限 maxCost = {limit}',
    en: 'The run has cost {spent}, reaching maxCost {limit}',
  },
  BUDGET_NO_PRICE: {
    'zh-CN': '设置了 maxCost，但配置的 prices 中没有模型 {model} 的价格',
    en: 'maxCost is set, but `prices` has no price for the model {model}',
  },
  ...VALUE_TEXTS,
  ...GUARD_TEXTS,
  ...MCP_TEXTS,
  ...APPROVAL_TEXTS,
  ...NOTIFY_TEXTS,
  ...PROVENANCE_TEXTS,
  // ---- threads and text answers (issue 29)
  PROMPT_ANSWER_TEXT: {
    'zh-CN':
      '## 回答\n本节点可以直接用文字回答用户：必填产出写入后，一轮只有文字、没有工具调用即结束本节点，这段文字就是给用户的回答。',
    en: '## Answer\nThis node may answer the user in plain text: once the required outputs are written, a turn with text and no tool call ends the node, and that text is the answer to the user.',
  },
  THREAD_EARLIER: {
    'zh-CN': '（本会话中较早的对话）',
    en: '(earlier in this conversation)',
  },
} as const satisfies Record<string, Localized<string>>;

export type HintKey = keyof typeof TEXTS;

/** The text of a hint in a locale, with its `{name}` placeholders filled. */
export function hint(locale: Locale, key: HintKey, params: ReasonParams = {}): string {
  return fill(TEXTS[key][locale], params);
}

/** The raw template of a hint (for docs and tests). */
export function hintTemplate(locale: Locale, key: HintKey): string {
  return TEXTS[key][locale];
}

/** All hint keys (for docs and tests). */
export function hintKeys(): HintKey[] {
  return Object.keys(TEXTS) as HintKey[];
}

/** Joins a list for a text shown to the model: `a、b、c` in zh-CN, `a, b, c` in en. */
export function list(locale: Locale, items: readonly string[]): string {
  return items.join(locale === 'zh-CN' ? '、' : ', ');
}
