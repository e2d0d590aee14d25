import type { ErrorObject } from 'ajv';
import { compileSchema, metaSchemaErrors, type SchemaValidator } from '../domain/schema-engine.js';
import type { PathSegment } from './problems.js';

/**
 * JSON Schema handling for the schemas a flow carries (`input`, params' `schema`): checking that a
 * schema is valid, and validating values with messages that name the failing field. Draft 2020-12 when
 * the schema's `$schema` says so, else draft-07 (what most MCP tools use). Unknown keywords are errors
 * (a misspelt `requried` would otherwise silently accept everything); `format` is not checked.
 * Patterns are compiled by `schemaRegExp`, so one that backtracks excessively runs in linear time.
 * Compiling and validating go through src/domain/schema-engine.ts: each schema compiled alone, a
 * bounded cache, a bounded validation, at most 20 messages of bounded length.
 */

export { type SchemaValidator } from '../domain/schema-engine.js';

/** A problem inside a schema: path relative to the schema, message. */
export interface SchemaIssue {
  readonly path: readonly PathSegment[];
  readonly message: string;
}

/** What is wrong with `schema` as a JSON Schema (empty when it is valid and compiles). */
export function jsonSchemaIssues(schema: Record<string, unknown>): SchemaIssue[] {
  const errors = metaSchemaErrors(schema);
  if (errors) {
    const seen = new Set<string>();
    const issues: SchemaIssue[] = [];
    for (const error of errors) {
      if (seen.has(error.instancePath)) continue;
      seen.add(error.instancePath);
      issues.push({
        path: pointerSegments(error.instancePath),
        message: `expected a valid JSON Schema: ${clip(String(error.message))}`,
      });
      if (issues.length >= MAX_LINES) break;
    }
    return issues;
  }
  try {
    compile(schema);
    return [];
  } catch (error) {
    return [
      {
        path: [],
        message: `expected a valid JSON Schema: ${clip(error instanceof Error ? error.message : String(error))}`,
      },
    ];
  }
}

/**
 * The validator of a flow's schema (compiled once per schema text, kept in a bounded cache); throws
 * for an invalid schema. The shared entry point for every schema a flow carries.
 */
export function compile(schema: Record<string, unknown>): SchemaValidator {
  return compileSchema(schema, { profile: 'flow' });
}

/** `/properties/text/type` → ['properties', 'text', 'type']. */
function pointerSegments(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** A field path for messages: `buyer.address[0].city`, or `(input)` for the whole value. */
function fieldOf(pointer: string, extra?: string): string {
  let out = '';
  for (const segment of pointerSegments(pointer)) {
    out += typeof segment === 'number' ? `[${segment}]` : out === '' ? segment : `.${segment}`;
  }
  if (extra !== undefined) out += out === '' ? extra : `.${extra}`;
  return out === '' ? '(input)' : out;
}

/** Lines of problems given back at most (the first ones). */
const MAX_LINES = 20;
/** Characters of one line at most. */
const MAX_LINE = 300;
/** Values of an enum named in a message at most. */
const MAX_ENUM_SHOWN = 8;

/** `text` cut to `max` characters (marked with …). */
function clip(text: string, max = MAX_LINE): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** An enum's values for a message: the first 8, then how many more. */
export function enumShown(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_ENUM_SHOWN).map((v) => clip(JSON.stringify(v) ?? String(v), 40));
  const more = values.length - shown.length;
  return more > 0 ? `${shown.join(', ')} (and ${more} more)` : shown.join(', ');
}

/**
 * One line per failing field, at most 20, each at most 300 characters: `name: required`, `plan:
 * expected one of: basic, pro` (an enum names its first 8 values).
 */
export function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = new Set<string>();
  for (const error of errors) {
    if (lines.size >= MAX_LINES) break;
    lines.add(clip(describeError(error)));
  }
  return [...lines];
}

function describeError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${fieldOf(error.instancePath, String(params.missingProperty))}: required`;
    case 'additionalProperties':
      return `${fieldOf(error.instancePath, String(params.additionalProperty))}: unknown field (not allowed by the schema)`;
    case 'type':
      return `${fieldOf(error.instancePath)}: expected ${String(params.type)}`;
    case 'enum':
      return `${fieldOf(error.instancePath)}: expected one of: ${enumShown(params.allowedValues as unknown[])}`;
    default:
      return `${fieldOf(error.instancePath)}: ${String(error.message)}`;
  }
}

/**
 * Validates `value` against `schema`: the failing fields, one line each (empty when valid); at most
 * 20 lines, the last saying that more were not listed when the value has more problems or is larger
 * than 16 KB of JSON (then only its first problem is looked for).
 */
export function validateAgainst(schema: Record<string, unknown>, value: unknown): string[] {
  const outcome = compile(schema).check(value);
  if (outcome.ok) return [];
  const lines = describeErrors(outcome.errors);
  if (!outcome.complete) lines.push('(further problems not listed)');
  return lines;
}
