import type { Localized } from './locale.js';

/**
 * Texts shown to the model about approval policies, several approvers and edited arguments
 * (docs/approvals.md). Part of the one table of hints.ts (`hint()`), kept here so each file stays readable.
 */
export const APPROVAL_TEXTS = {
  APPROVAL_RULE_GRANTED: {
    'zh-CN': '审批策略的 auto 规则已批准：现在可以用完全相同的参数调用一次 {tool}',
    en: "The approval policy's auto rule approved the call: {tool} may now be called once with exactly the same arguments",
  },
  APPROVAL_RULE_REJECTED: {
    'zh-CN': '审批策略的 reject 规则拒绝了该调用',
    en: "the approval policy's reject rule declined the call",
  },
  APPROVAL_GRANTED_EDITED: {
    'zh-CN':
      '用户批准时修改了参数：{changes}。现在可以用修改后的参数调用一次 {tool}：{args}；不要使用原来的参数',
    en: 'The user approved with changed arguments: {changes}. {tool} may now be called once with exactly these arguments: {args}; do not use the original ones',
  },
} as const satisfies Record<string, Localized<string>>;
