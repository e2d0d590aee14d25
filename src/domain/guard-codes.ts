import type { Localized } from './locale.js';

// The codes of user guards (docs/interceptors.md): the range their own codes must be numbered in, and
// the runtime's codes for a guard that broke its contract. Part of the one code table of error-codes.ts.

/** The numbers reserved for the codes of user guards, both ends included. */
export const USER_CODE_RANGE = Object.freeze({ min: 60000, max: 69999 });

/** True for a whole number in USER_CODE_RANGE. */
export function isUserCodeNumber(no: unknown): no is number {
  return (
    Number.isInteger(no) && (no as number) >= USER_CODE_RANGE.min && (no as number) <= USER_CODE_RANGE.max
  );
}

/** The runtime's codes for a user guard that broke its contract: both FAILED, never SUCCESS. */
export const GUARD_CODES = {
  GUARD_ERROR: {
    no: 50010,
    producer: 'user-guards',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '拦截器 {guard} 在检查 {tool} 的调用时出错：{detail}',
      en: 'Guard {guard} failed while checking the call of {tool}: {detail}',
    },
  },
  GUARD_VERDICT_INVALID: {
    no: 50011,
    producer: 'user-guards',
    outcome: 'FAILED',
    reason: {
      'zh-CN': '拦截器 {guard} 对 {tool} 的调用给出了无效的结论：{detail}',
      en: 'Guard {guard} gave an invalid verdict on the call of {tool}: {detail}',
    },
  },
} as const satisfies Record<
  string,
  { no: number; producer: 'user-guards'; outcome: 'FAILED'; reason: Localized<string> }
>;

/** The next steps of GUARD_CODES (part of the hints table, hints.ts). */
export const GUARD_TEXTS = {
  NEXT_GUARD_ERROR: {
    'zh-CN': '这是运行环境的配置问题，不是你的调用有误：不要重复这次调用；调用 builtin_node_fail 说明原因',
    en: 'this is a fault in how the runtime is set up, not in your call: do not repeat it; call builtin_node_fail with the reason',
  },
} as const satisfies Record<string, Localized<string>>;
