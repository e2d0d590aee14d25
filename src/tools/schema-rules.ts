import { hint, hintTemplate } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import type { PipelineLogger } from './call.js';
import { checkSchema } from './guards/schema-validation.js';

/** Rules named in one observation: enough to fix the value, short enough to read. */
export const MAX_RULES = 3;

/**
 * The rules `value` breaks in `schema` (validated by the shared argument validator, with its compile
 * cache and bounds), in the locale, at most `max` of them plus "and N more": missing fields first,
 * each with its path inside the value (`items.0.id: must be of type string`), a rule of the value
 * itself bare (`must be >= 0`). Empty when the value satisfies the schema (or the schema does not
 * compile: that is logged, and nothing is enforced).
 */
export function schemaRules(
  schema: Record<string, unknown>,
  value: unknown,
  locale: Locale,
  logger: PipelineLogger,
  max = MAX_RULES,
): string[] {
  const check = checkSchema(schema, value, locale, logger);
  const rules = [
    ...check.missing.map((field) => hint(locale, 'RULE_FIELD_MISSING', { field })),
    ...check.violations.map((v) => {
      const rule = asFieldRule(v.rule, locale);
      return v.field === '(root)' ? rule : `${v.field}: ${rule}`;
    }),
  ];
  if (rules.length <= max) return rules;
  return [...rules.slice(0, max), hint(locale, 'RULES_MORE', { count: rules.length - max })];
}

/**
 * The shared validator words an unknown property for tool arguments ("is not an argument of this
 * tool"); a value's unknown field is worded as such, with the same list of allowed ones.
 */
function asFieldRule(rule: string, locale: Locale): string {
  const [before = '', after = ''] = hintTemplate(locale, 'RULE_ADDITIONAL').split('{allowed}');
  if (!rule.startsWith(before) || !rule.endsWith(after) || rule.length < before.length + after.length)
    return rule;
  const allowed = rule.slice(before.length, rule.length - after.length);
  return hint(locale, 'RULE_UNKNOWN_FIELD', { allowed });
}

/** Rules joined for a reason text. */
export function joinRules(locale: Locale, rules: readonly string[]): string {
  return rules.join(locale === 'zh-CN' ? '；' : '; ');
}

/** JSON text of a value at most `max` characters long (a string keeps its quotes, so "3" and 3 differ). */
export function clippedJson(value: unknown, max: number): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
