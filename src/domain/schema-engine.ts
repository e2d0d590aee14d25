import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { LRUCache } from 'lru-cache';
import { enableLinearRegExps, schemaRegExp } from './regex.js';
import {
  SchemaBudgetExceeded,
  budgetKeyword,
  startBudget,
  uniqueItemsKeyword,
  withBudget,
} from './schema-keywords.js';

/**
 * The one place JSON Schemas are compiled and values validated (flow `input`, params' `schema`, tool
 * argument schemas, output schemas). Every schema is compiled in an Ajv instance of its own: no `$id`
 * is registered where another schema (another tenant's) could claim or resolve it, and nothing is
 * kept but what the cache keeps. Validators are cached by the schema's exact text in one LRU cache
 * bounded by an estimate of their bytes. A validation is bounded: `uniqueItems` runs in linear time,
 * every subschema evaluation counts against a wall-time budget, and at most 20 errors come back
 * (docs/security.md, "Budgets for tenant content").
 */

/** How strictly a schema is read: `flow` (flow files: unknown keywords are errors, no formats) or `tool`. */
export type SchemaProfile = 'flow' | 'tool';

/** At most this many errors come back from one validation. */
export const MAX_SCHEMA_ERRORS = 20;
/** Values up to this many characters of JSON are validated for all their errors; larger ones for the first. */
export const FULL_CHECK_CHARS = 16 * 1024;
/** Wall time one validation may take (ms); past it the value is refused. */
export const VALIDATION_BUDGET_MS = 250;
/** Estimated bytes of compiled validators kept (a validator costs roughly 12× its schema's JSON text). */
const CACHE_BYTES = 48 * 1024 * 1024;
const BYTES_PER_CHAR = 12;

/** A validation's outcome: `ok`, or the first errors (at most 20) and whether more may exist. */
export type SchemaOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly errors: readonly ErrorObject[]; readonly complete: boolean };

/**
 * A compiled schema: validates values within the budget. Called like Ajv's `ValidateFunction`
 * (`validate(value)` then `validate.errors`), or through `check`.
 */
export interface SchemaValidator {
  /** Whether `value` is valid; sets `errors` (null when valid, else at most 20). */
  (value: unknown): boolean;
  /** The errors of the last call (null when it was valid). */
  errors: ErrorObject[] | null;
  /** The outcome for `value` (never throws for a hostile value: a budget overrun is an error). */
  check(value: unknown): SchemaOutcome;
  /** The schema as compiled (for error descriptions that look at it). */
  readonly schema: Record<string, unknown>;
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

const PROFILES: Record<SchemaProfile, Options> = {
  flow: {
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allowUnionTypes: true,
    validateFormats: false,
  },
  tool: { strict: false, verbose: true, formats: FORMATS },
};

type Dialect = 'draft7' | 'draft2019' | 'draft2020';
type AjvInstance = Ajv | Ajv2019 | Ajv2020;

function dialectOf(schema: Record<string, unknown>): Dialect {
  const uri = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (uri.includes('2020-12')) return 'draft2020';
  if (uri.includes('2019-09')) return 'draft2019';
  return 'draft7';
}

function newAjv(dialect: Dialect, options: Options): AjvInstance {
  enableLinearRegExps();
  const all: Options = { logger: false, code: { regExp: schemaRegExp }, ...options };
  if (dialect === 'draft2020') return new Ajv2020(all);
  if (dialect === 'draft2019') return new Ajv2019(all);
  return new Ajv(all);
}

/** Instances that only check schemas against their meta-schema (they compile no user schema). */
const metaCheckers = new Map<string, AjvInstance>();

/** Ajv's problems with `schema` as a schema of its dialect (null: none). */
export function metaSchemaErrors(
  schema: Record<string, unknown>,
  profile: SchemaProfile = 'flow',
): readonly ErrorObject[] | null {
  const dialect = dialectOf(schema);
  const key = `${profile}:${dialect}`;
  let ajv = metaCheckers.get(key);
  if (!ajv) {
    ajv = newAjv(dialect, PROFILES[profile]);
    metaCheckers.set(key, ajv);
  }
  return ajv.validateSchema(schema) ? null : (ajv.errors ?? []);
}

/** One Ajv function compiled in an instance of its own (so nothing it names is seen by others). */
function compileAlone(
  schema: Record<string, unknown>,
  profile: SchemaProfile,
  allErrors: boolean,
): ValidateFunction {
  const dialect = dialectOf(schema);
  let usable = schema;
  // Ajv knows draft-07/2019-09/2020-12 meta-schemas only; tools' other dialects are read as draft-07.
  if (profile === 'tool' && dialect === 'draft7' && typeof schema.$schema === 'string') {
    if (!schema.$schema.includes('draft-07')) {
      usable = { ...schema };
      delete usable.$schema;
    }
  }
  const ajv = newAjv(dialect, { ...PROFILES[profile], allErrors, validateSchema: false, meta: false });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItemsKeyword);
  ajv.addKeyword(budgetKeyword);
  return ajv.compile(withBudget(usable).schema);
}

interface Entry {
  readonly quick: ValidateFunction;
  full: ValidateFunction | undefined;
  readonly schema: Record<string, unknown>;
  readonly profile: SchemaProfile;
}

const cache = new LRUCache<string, Entry>({ maxSize: CACHE_BYTES, sizeCalculation: sizeOfKey });
/** The cache key of a schema object already seen (its text is computed once per object). */
const keys = new WeakMap<object, Map<SchemaProfile, string>>();

function sizeOfKey(_entry: Entry, key: string): number {
  return Math.max(1, key.length * BYTES_PER_CHAR);
}

function keyOf(schema: Record<string, unknown>, profile: SchemaProfile): string {
  let byProfile = keys.get(schema);
  if (!byProfile) {
    byProfile = new Map();
    keys.set(schema, byProfile);
  }
  let key = byProfile.get(profile);
  if (key === undefined) {
    key = `${profile}\n${JSON.stringify(schema)}`;
    byProfile.set(profile, key);
  }
  return key;
}

/**
 * Compiles `schema` (or takes it from the cache) into a bounded validator; throws Ajv's error for a
 * schema that cannot be compiled (the caller reports it: a flow error, or a refused tool call).
 */
export function compileSchema(
  schema: Record<string, unknown>,
  options: { profile?: SchemaProfile } = {},
): SchemaValidator {
  const profile = options.profile ?? 'flow';
  const key = keyOf(schema, profile);
  let entry = cache.get(key);
  if (!entry) {
    entry = { quick: compileAlone(schema, profile, false), full: undefined, schema, profile };
    cache.set(key, entry);
  }
  const found = entry;
  const check = (value: unknown): SchemaOutcome => checkWith(found, value);
  const validate = Object.assign(
    (value: unknown): boolean => {
      const outcome = check(value);
      validate.errors = outcome.ok ? null : [...outcome.errors];
      return outcome.ok;
    },
    { errors: null as ErrorObject[] | null, check, schema },
  );
  return validate;
}

/** What the cache holds now (for tests and diagnostics). */
export function schemaCacheStats(): { entries: number; bytes: number } {
  return { entries: cache.size, bytes: cache.calculatedSize };
}

function checkWith(entry: Entry, value: unknown): SchemaOutcome {
  const quick = run(entry.quick, value);
  if (quick === true) return { ok: true };
  if (quick === 'budget' || !smallerThan(value, FULL_CHECK_CHARS))
    return { ok: false, errors: quick === 'budget' ? [budgetError()] : quick.slice(0, 1), complete: false };
  entry.full ??= compileAlone(entry.schema, entry.profile, true);
  const full = run(entry.full, value);
  if (full === true) return { ok: false, errors: quick.slice(0, 1), complete: false }; // not expected
  if (full === 'budget') return { ok: false, errors: quick.slice(0, 1), complete: false };
  return { ok: false, errors: full.slice(0, MAX_SCHEMA_ERRORS), complete: full.length <= MAX_SCHEMA_ERRORS };
}

function run(validate: ValidateFunction, value: unknown): true | 'budget' | ErrorObject[] {
  startBudget(VALIDATION_BUDGET_MS);
  try {
    if (validate(value)) return true;
    return validate.errors ?? [];
  } catch (error) {
    if (error instanceof SchemaBudgetExceeded || error instanceof RangeError) return 'budget';
    throw error;
  }
}

/** The error of a validation stopped by its budget (keyword `budget`). */
function budgetError(): ErrorObject {
  return {
    keyword: 'budget',
    instancePath: '',
    schemaPath: '#',
    params: { ms: VALIDATION_BUDGET_MS },
    message: `could not be checked within ${VALIDATION_BUDGET_MS} ms; simplify the schema or send a smaller value`,
  };
}

/** Whether `value`'s JSON text is shorter than `limit` characters (stops counting past it). */
export function smallerThan(value: unknown, limit: number): boolean {
  let left = limit;
  const walk = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object') {
      left -= typeof v === 'string' ? v.length + 2 : 8;
      return left > 0;
    }
    const entries = Array.isArray(v) ? v : Object.entries(v as Record<string, unknown>);
    for (const item of entries) {
      left -= 2;
      if (!walk(item)) return false;
    }
    return left > 0;
  };
  return walk(value);
}
