import type { ErrorObject } from 'ajv';
import { hint, list } from '../../domain/hints.js';
import { compileSchema, type SchemaOutcome } from '../../domain/schema-engine.js';
import type { Locale } from '../../domain/locale.js';
import type { PipelineLogger } from '../call.js';
import { showValue } from '../matching.js';

/**
 * JSON Schema validation of tool arguments (draft-07 by default; 2019-09 or 2020-12 when the schema's
 * `$schema` says so), and the localized description of a violated rule. Compiling and validating go
 * through src/domain/schema-engine.ts: each schema compiled alone (no `$id` shared with another
 * schema), a bounded cache, a bounded validation (at most 20 errors; a value over 16 KB of JSON is
 * checked for its first problem). A schema that cannot be compiled fails closed: the call is
 * refused (the rule says why), never let through unchecked.
 */

/** One schema violation, located and described for the model. */
export interface SchemaViolation {
  /** Dotted path of the field (`address.city`), `(root)` for the arguments object itself. */
  field: string;
  /** The violated rule in the locale (`不能大于 10`). */
  rule: string;
}

/** The result of validating against a schema. */
export interface SchemaCheck {
  /** Required fields that are missing (dotted paths). */
  missing: string[];
  /** Other violations, most specific first. */
  violations: SchemaViolation[];
}

/** Enum values named in a rule at most. */
const MAX_ENUM_SHOWN = 8;

/** The outcome of `value` against `schema`, or why the schema cannot be used (logged). */
function outcomeOf(
  schema: Record<string, unknown>,
  value: unknown,
  logger: PipelineLogger,
): SchemaOutcome | { unusable: string } {
  try {
    return compileSchema(schema, { profile: 'tool' }).check(value);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    logger.warn('TOOL schema not compiled', { error: why });
    return { unusable: why.length > 200 ? `${why.slice(0, 199)}…` : why };
  }
}

/** Validates `value` against `schema`; `prefix` is prepended to every field path (for per-param schemas). */
export function checkSchema(
  schema: Record<string, unknown>,
  value: unknown,
  locale: Locale,
  logger: PipelineLogger,
  prefix = '',
): SchemaCheck {
  const outcome = outcomeOf(schema, value, logger);
  if ('unusable' in outcome) {
    const field = prefix === '' ? '(root)' : prefix;
    return {
      missing: [],
      violations: [{ field, rule: hint(locale, 'RULE_SCHEMA_UNUSABLE', { why: outcome.unusable }) }],
    };
  }
  if (outcome.ok) return { missing: [], violations: [] };
  const errors = outcome.errors;
  const missing: string[] = [];
  const violations: SchemaViolation[] = [];
  for (const error of errors) {
    if (error.keyword === 'required') {
      const prop = asText((error.params as { missingProperty?: unknown }).missingProperty);
      missing.push(clip(joinPath(prefix, pathOf(error.instancePath), prop)));
    } else if (
      !['anyOf', 'oneOf', 'allOf', 'if', 'not', '$ref', 'dependentRequired'].includes(error.keyword) ||
      errors.length === 1
    ) {
      violations.push({
        field: clip(fieldOf(error, prefix)),
        rule: clip(describeRule(error, locale, schema)),
      });
    }
  }
  if (violations.length === 0 && missing.length === 0 && errors[0]) {
    violations.push({
      field: clip(fieldOf(errors[0], prefix)),
      rule: clip(describeRule(errors[0], locale, schema)),
    });
  }
  return {
    missing: [...new Set(missing)],
    violations: violations.sort((a, b) => depth(b.field) - depth(a.field)),
  };
}

function depth(field: string): number {
  return field === '(root)' ? 0 : field.split('.').length;
}

function pathOf(instancePath: string): string {
  return instancePath
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

function joinPath(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('.');
}

function fieldOf(error: ErrorObject, prefix: string): string {
  const base = joinPath(prefix, pathOf(error.instancePath));
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const extra = error.params as { additionalProperty?: unknown; unevaluatedProperty?: unknown };
    return joinPath(base, asText(extra.additionalProperty ?? extra.unevaluatedProperty));
  }
  return base === '' ? '(root)' : base;
}

/** The violated rule of one Ajv error in the locale. */
export function describeRule(
  error: ErrorObject,
  locale: Locale,
  rootSchema: Record<string, unknown> = {},
): string {
  const p = error.params as Record<string, unknown>;
  const limit = asText(p.limit);
  switch (error.keyword) {
    case 'type':
      return hint(locale, 'RULE_TYPE', { type: String(p.type) });
    case 'enum':
      return enumRule(locale, (p.allowedValues as unknown[] | undefined) ?? []);
    case 'budget':
      return hint(locale, 'RULE_BUDGET', { ms: String(p.ms) });
    case 'const':
      return hint(locale, 'RULE_CONST', { value: showValue(p.allowedValue) });
    case 'minimum':
    case 'formatMinimum':
      return hint(locale, p.comparison === '>' ? 'RULE_EXCLUSIVE_MINIMUM' : 'RULE_MINIMUM', { limit });
    case 'maximum':
    case 'formatMaximum':
      return hint(locale, p.comparison === '<' ? 'RULE_EXCLUSIVE_MAXIMUM' : 'RULE_MAXIMUM', { limit });
    case 'exclusiveMinimum':
      return hint(locale, 'RULE_EXCLUSIVE_MINIMUM', { limit });
    case 'exclusiveMaximum':
      return hint(locale, 'RULE_EXCLUSIVE_MAXIMUM', { limit });
    case 'multipleOf':
      return hint(locale, 'RULE_MULTIPLE_OF', { limit: String(p.multipleOf) });
    case 'minLength':
      return hint(locale, 'RULE_MIN_LENGTH', { limit });
    case 'maxLength':
      return hint(locale, 'RULE_MAX_LENGTH', { limit });
    case 'pattern':
      return hint(locale, 'RULE_PATTERN', { pattern: String(p.pattern) });
    case 'format':
      return hint(locale, 'RULE_FORMAT', { format: String(p.format) });
    case 'minItems':
      return hint(locale, 'RULE_MIN_ITEMS', { limit });
    case 'maxItems':
      return hint(locale, 'RULE_MAX_ITEMS', { limit });
    case 'uniqueItems':
      return hint(locale, 'RULE_UNIQUE_ITEMS');
    case 'minProperties':
      return hint(locale, 'RULE_MIN_PROPERTIES', { limit });
    case 'maxProperties':
      return hint(locale, 'RULE_MAX_PROPERTIES', { limit });
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return hint(locale, 'RULE_ADDITIONAL', { allowed: allowedProperties(error, locale, rootSchema) });
    default:
      return hint(locale, 'RULE_OTHER', { keyword: error.keyword, message: error.message ?? '' });
  }
}

/** `must be one of: a, b, c`, naming the first 8 values of a longer enum and how many more. */
function enumRule(locale: Locale, values: readonly unknown[]): string {
  const shown = list(
    locale,
    values.slice(0, MAX_ENUM_SHOWN).map((v) => showValue(v, 40)),
  );
  if (values.length <= MAX_ENUM_SHOWN) return hint(locale, 'RULE_ENUM', { values: shown });
  return hint(locale, 'RULE_ENUM_SOME', { values: shown, more: String(values.length - MAX_ENUM_SHOWN) });
}

function allowedProperties(error: ErrorObject, locale: Locale, rootSchema: Record<string, unknown>): string {
  const parent: Record<string, unknown> | undefined =
    error.parentSchema ?? (error.instancePath === '' ? rootSchema : undefined);
  const properties = parent?.properties;
  const props = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  if (props.length === 0) return hint(locale, 'NONE');
  const shown = list(locale, props.slice(0, 20));
  return props.length > 20 ? `${shown} …(+${props.length - 20})` : shown;
}

/** `text` cut to 300 characters (marked with …). */
function clip(text: string): string {
  return text.length <= 300 ? text : `${text.slice(0, 299)}…`;
}

/** A JSON value as plain text (strings bare, others as JSON). */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
