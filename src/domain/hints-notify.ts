import type { Localized } from './locale.js';

/**
 * Texts shown to the model about approvals that expired (docs/notifications.md). Part of the one table of hints.ts (`hint()`).
 */
export const NOTIFY_TEXTS = {
  APPROVAL_EXPIRED: {
    'zh-CN': '审批在 {after} 内无人处理，已过期并被自动拒绝',
    en: 'no one decided within {after}: the approval expired and was rejected automatically',
  },
} as const satisfies Record<string, Localized<string>>;
