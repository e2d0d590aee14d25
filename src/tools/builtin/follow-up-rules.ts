import { normalise } from '../matching.js';

/**
 * The project's word lists for telling a follow-up that verbally confirms a write (docs/observations.md
 * FOLLOW_UP_UNGROUNDED (a)). Matching is on normalised text (case, width and white space folded), in
 * both languages whatever the flow's locale. Extend them with `createBuiltins({ followUp: { … } })`;
 * the lists are documented in docs/observations.md.
 */
export interface FollowUpRules {
  /** A question containing one of these asks for confirmation. */
  confirmWords: readonly string[];
  /** Options made only of these are a yes/no choice. */
  yesNoOptions: readonly string[];
}

/** The default confirmation words, zh-CN then en. */
export const DEFAULT_CONFIRM_WORDS: readonly string[] = [
  '确认',
  '确定',
  '是否',
  '要不要',
  '需不需要',
  '可以吗',
  '行吗',
  '好吗',
  '同意',
  '批准',
  '允许',
  '可否',
  '能否',
  '是不是要',
  'confirm',
  'proceed',
  'are you sure',
  'shall i',
  'should i',
  'do you want me to',
  'may i',
  'ok to',
  'okay to',
  'go ahead',
  'approve',
];

/** The default yes/no option words, zh-CN then en. */
export const DEFAULT_YES_NO_OPTIONS: readonly string[] = [
  '是',
  '否',
  '是的',
  '不是',
  '好',
  '好的',
  '不',
  '不要',
  '要',
  '确认',
  '取消',
  '可以',
  '不可以',
  '行',
  '不行',
  '同意',
  '不同意',
  'yes',
  'no',
  'y',
  'n',
  'ok',
  'okay',
  'cancel',
  'confirm',
  'sure',
];

/** The default rules extended with `extra` (words are added, never removed). */
export function mergeFollowUpRules(extra: Partial<FollowUpRules> = {}): FollowUpRules {
  return {
    confirmWords: [...DEFAULT_CONFIRM_WORDS, ...(extra.confirmWords ?? [])],
    yesNoOptions: [...DEFAULT_YES_NO_OPTIONS, ...(extra.yesNoOptions ?? [])],
  };
}

/** True when the question asks for confirmation: a confirmation word, or options that are only yes/no. */
export function asksConfirmation(
  rules: FollowUpRules,
  question: string,
  options: readonly string[] | null,
): boolean {
  const q = normalise(question);
  if (rules.confirmWords.some((word) => q.includes(normalise(word)))) return true;
  if (!options || options.length === 0) return false;
  const yesNo = new Set(rules.yesNoOptions.map((o) => normalise(o, { punctuation: true })));
  return options.every((option) => yesNo.has(normalise(option, { punctuation: true })));
}
