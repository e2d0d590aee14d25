import type { Localized } from './locale.js';

/**
 * Texts shown to the model about approvals that expired and words a person added to a running run
 * (docs/notifications.md). Part of the one table of hints.ts (`hint()`).
 */
export const NOTIFY_TEXTS = {
  APPROVAL_EXPIRED: {
    'zh-CN': '审批在 {after} 内无人处理，已过期并被自动拒绝',
    en: 'no one decided within {after}: the approval expired and was rejected automatically',
  },
  STEERING_MESSAGE: {
    'zh-CN': '用户在运行中补充：{text}',
    en: 'The user adds, while the run is going: {text}',
  },
} as const satisfies Record<string, Localized<string>>;
