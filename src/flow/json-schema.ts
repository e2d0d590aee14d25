import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { enableLinearRegExps, schemaRegExp } from '../domain/regex.js';
import type { PathSegment } from './problems.js';

/**
 * JSON Schema handling for the schemas a flow carries (`input`, params' `schema`): checking that a
 * schema is valid, and validating values with messages that name the failing field. Draft 2020-12 when
 * the schema's `$schema` says so, else draft-07 (what most MCP tools use). Unknown keywords are errors
 * (a misspelt `requried` would otherwise silently accept everything); `format` is not checked.
 * Patterns are compiled by `schemaRegExp`, so one that backtracks excessively runs in linear time.
 */

type AjvInstance = Ajv | Ajv2020;

const options = {
  strict: true,
  strictTypes: false,
  strictTuples: false,
  strictRequired: false,
  allowUnionTypes: true,
  allErrors: true,
  validateFormats: false,
  logger: false,
  code: { regExp: schemaRegExp },
} as const;

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: Record<string, unknown>): AjvInstance {
  enableLinearRegExps();
  const uri = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (uri.includes('2020-12')) return (draft2020 ??= new Ajv2020(options));
  return (draft07 ??= new Ajv(options));
}

/** A problem inside a schema: path relative to the schema, message. */
export interface SchemaIssue {
  readonly path: readonly PathSegment[];
  readonly message: string;
}

const compiled = new WeakMap<object, ValidateFunction>();

/** What is wrong with `schema` as a JSON Schema (empty when it is valid and compiles). */
export function jsonSchemaIssues(schema: Record<string, unknown>): SchemaIssue[] {
  const ajv = ajvFor(schema);
  if (!ajv.validateSchema(schema)) {
    const seen = new Set<string>();
    const issues: SchemaIssue[] = [];
    for (const error of ajv.errors ?? []) {
      if (seen.has(error.instancePath)) continue;
      seen.add(error.instancePath);
      issues.push({
        path: pointerSegments(error.instancePath),
        message: `expected a valid JSON Schema: ${String(error.message)}`,
      });
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
        message: `expected a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`,
      },
    ];
  }
}

/** Compiles (once per schema object) a validator; throws for an invalid schema. */
export function compile(schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajvFor(schema).compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
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

/** One line per failing field: `name: required`, `plan: expected one of: basic, pro`. */
export function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines = new Set<string>();
  for (const error of errors) {
    const params = error.params as Record<string, unknown>;
    switch (error.keyword) {
      case 'required':
        lines.add(`${fieldOf(error.instancePath, String(params.missingProperty))}: required`);
        break;
      case 'additionalProperties':
        lines.add(
          `${fieldOf(error.instancePath, String(params.additionalProperty))}: unknown field (not allowed by the schema)`,
        );
        break;
      case 'type':
        lines.add(`${fieldOf(error.instancePath)}: expected ${String(params.type)}`);
        break;
      case 'enum':
        lines.add(
          `${fieldOf(error.instancePath)}: expected one of: ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        );
        break;
      default:
        lines.add(`${fieldOf(error.instancePath)}: ${String(error.message)}`);
    }
  }
  return [...lines];
}

/** Validates `value` against `schema`: the failing fields, one line each (empty when valid). */
export function validateAgainst(schema: Record<string, unknown>, value: unknown): string[] {
  const validate = compile(schema);
  return validate(value) ? [] : describeErrors(validate.errors ?? []);
}
