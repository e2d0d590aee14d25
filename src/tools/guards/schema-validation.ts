import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { hint, list } from '../../domain/hints.js';
import { enableLinearRegExps, schemaRegExp } from '../../domain/regex.js';
import type { Locale } from '../../domain/locale.js';
import type { PipelineLogger } from '../call.js';
import { showValue } from '../matching.js';

/**
 * JSON Schema validation of tool arguments with Ajv 8 (draft-07 by default; 2019-09 or 2020-12 when
 * the schema's `$schema` says so), and the localized description of a violated rule.
 * Schemas are compiled once (cached per schema object). A schema Ajv cannot compile is the tool's
 * problem, not the model's: it is logged and the arguments are not checked against it. Patterns are
 * compiled by `schemaRegExp`, so one that backtracks excessively runs in linear time.
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

const FORMATS: Record<string, RegExp> = {
  date: /^\d{4}-\d{2}-\d{2}$/,
  time: /^\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?$/i,
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  uri: /^[a-z][a-z0-9+.-]*:[^\s]*$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  ipv4: /^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/,
};

const OPTIONS = {
  allErrors: true,
  strict: false,
  verbose: true,
  logger: false as const,
  formats: FORMATS,
  code: { regExp: schemaRegExp },
};
let engines: { draft7: Ajv; draft2019: Ajv2019; draft2020: Ajv2020 } | null = null;
const compiled = new WeakMap<object, ValidateFunction | null>();

function engineFor(schema: Record<string, unknown>): Ajv | Ajv2019 | Ajv2020 {
  enableLinearRegExps();
  engines ??= { draft7: new Ajv(OPTIONS), draft2019: new Ajv2019(OPTIONS), draft2020: new Ajv2020(OPTIONS) };
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('2020-12')) return engines.draft2020;
  if (dialect.includes('2019-09')) return engines.draft2019;
  return engines.draft7;
}

/**
 * Validators by the schema's JSON text: the same tool schema arrives as a new object with every run's
 * tool list (MCP `tools/list`), and compiling costs far more than a step. Bounded, oldest out.
 */
const byText = new Map<string, ValidateFunction | null>();
const BY_TEXT_LIMIT = 500;

function compile(schema: Record<string, unknown>, logger: PipelineLogger): ValidateFunction | null {
  if (compiled.has(schema)) return compiled.get(schema) ?? null;
  const text = JSON.stringify(schema);
  if (byText.has(text)) {
    const known = byText.get(text) ?? null;
    compiled.set(schema, known);
    return known;
  }
  const fn = compileNew(schema, logger);
  compiled.set(schema, fn);
  byText.set(text, fn);
  if (byText.size > BY_TEXT_LIMIT) {
    const oldest = byText.keys().next().value;
    if (oldest !== undefined) byText.delete(oldest);
  }
  return fn;
}

function compileNew(schema: Record<string, unknown>, logger: PipelineLogger): ValidateFunction | null {
  let fn: ValidateFunction | null = null;
  const engine = engineFor(schema);
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  // Ajv knows draft-07/2019-09/2020-12 meta-schemas only; other dialects are checked with draft-07 rules.
  const usable =
    engine === engines?.draft7 && dialect !== '' && !dialect.includes('draft-07')
      ? withoutDialect(schema)
      : schema;
  try {
    fn = engine.compile(usable);
  } catch (error) {
    logger.warn('TOOL schema not compiled', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return fn;
}

function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...schema };
  delete copy.$schema;
  return copy;
}

/** Validates `value` against `schema`; `prefix` is prepended to every field path (for per-param schemas). */
export function checkSchema(
  schema: Record<string, unknown>,
  value: unknown,
  locale: Locale,
  logger: PipelineLogger,
  prefix = '',
): SchemaCheck {
  const validate = compile(schema, logger);
  if (!validate || validate(value)) return { missing: [], violations: [] };
  const errors = validate.errors ?? [];
  const missing: string[] = [];
  const violations: SchemaViolation[] = [];
  for (const error of errors) {
    if (error.keyword === 'required') {
      const prop = asText((error.params as { missingProperty?: unknown }).missingProperty);
      missing.push(joinPath(prefix, pathOf(error.instancePath), prop));
    } else if (
      !['anyOf', 'oneOf', 'allOf', 'if', 'not', '$ref', 'dependentRequired'].includes(error.keyword) ||
      errors.length === 1
    ) {
      violations.push({ field: fieldOf(error, prefix), rule: describeRule(error, locale, schema) });
    }
  }
  if (violations.length === 0 && missing.length === 0 && errors[0]) {
    violations.push({ field: fieldOf(errors[0], prefix), rule: describeRule(errors[0], locale, schema) });
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
      return hint(locale, 'RULE_ENUM', {
        values: list(
          locale,
          ((p.allowedValues as unknown[]) ?? []).map((v) => showValue(v)),
        ),
      });
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

function allowedProperties(error: ErrorObject, locale: Locale, rootSchema: Record<string, unknown>): string {
  const parent: Record<string, unknown> | undefined =
    error.parentSchema ?? (error.instancePath === '' ? rootSchema : undefined);
  const properties = parent?.properties;
  const props = typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
  return props.length > 0 ? list(locale, props) : hint(locale, 'NONE');
}

/** A JSON value as plain text (strings bare, others as JSON). */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
}
