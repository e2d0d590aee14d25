import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { LRUCache } from 'lru-cache';
import { withoutCodeCache } from './no-code-cache.js';
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
/** Errors a validation may collect before it stops (Ajv would collect items × rules of them). */
const COLLECTED_ERRORS = 100;
/** Wall time one validation may take (ms); past it the value is refused. */
export const VALIDATION_BUDGET_MS = 250;
/** Subschemas one schema may have: compiling costs ~0.3 ms each, on the thread that serves everyone. */
export const MAX_SUBSCHEMAS = 500;
/** Enum values and required names above which Ajv checks them in a loop instead of inlined code. */
const LOOP_ABOVE = 32;
/**
 * Bytes of compiled validators kept, across all flows and tenants (docs/security.md, "Limits for
 * parallel flows, sampling and uploads"). An entry is sized by its generated code: a validator holds
 * about 6 bytes of heap per character of it (its text, bytecode and closures; measured on Node 24 with
 * a 24 KB schema of 300 properties: 198 K characters, 1.2 MB), and at least 12 bytes per character
 * of its schema's text.
 */
export const SCHEMA_CACHE_BYTES = 48 * 1024 * 1024;
const CACHE_BYTES = SCHEMA_CACHE_BYTES;
const BYTES_PER_CHAR = 12;
const BYTES_PER_CODE_CHAR = 6;

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

/** Thrown (as a plain object) by compiled code that collected more than COLLECTED_ERRORS errors. */
interface TooMany {
  readonly agentRuntimeTooManyErrors: ErrorObject[];
}

/**
 * Ajv's generated code with a stop after each place it adds errors: past COLLECTED_ERRORS it throws
 * them (test/security/schema-budgets.test.ts checks that this still matches what Ajv generates).
 */
function capErrors(code: string): string {
  const stop = `if(vErrors.length>${COLLECTED_ERRORS}){throw {agentRuntimeTooManyErrors: vErrors};}`;
  return code
    .replace(/vErrors\.push\((err\d*)\);/g, `vErrors.push($1);${stop}`)
    .replace(/(vErrors = vErrors === null \? ([\w.]+) : vErrors\.concat\(\2\);)/g, `$1${stop}`);
}

function newAjv(dialect: Dialect, options: Options, compiling = false): AjvInstance {
  enableLinearRegExps();
  // `optimize: false`: Ajv's optimizer passes double the time of a compile and gain little.
  const code = { regExp: schemaRegExp, optimize: false, ...(compiling ? { process: capErrors } : {}) };
  const all: Options = { logger: false, code, loopEnum: LOOP_ABOVE, loopRequired: LOOP_ABOVE, ...options };
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
    // Meta-schemas say `uniqueItems` of `enum`, `required`, `type`: Ajv's own is quadratic.
    ajv.removeKeyword('uniqueItems');
    ajv.addKeyword(uniqueItemsKeyword);
    metaCheckers.set(key, ajv);
  }
  try {
    return ajv.validateSchema(schema) ? null : (ajv.errors ?? []);
  } catch (error) {
    // Ajv throws for a `$schema` it has no meta-schema of (draft-04, a private URI): a problem of the
    // schema, said as such, not a crash.
    const uri = typeof schema.$schema === 'string' ? schema.$schema : '';
    const known = 'draft-07, 2019-09 or 2020-12';
    const message =
      uri === ''
        ? error instanceof Error
          ? error.message
          : String(error)
        : `unknown $schema ${JSON.stringify(uri.slice(0, 200))} (known: ${known})`;
    return [{ instancePath: '/$schema', schemaPath: '#/$schema', keyword: '$schema', params: {}, message }];
  }
}

/**
 * One Ajv function compiled in an instance of its own (so nothing it names is seen by others);
 * throws for a schema Ajv refuses or one of more than MAX_SUBSCHEMAS subschemas.
 */
function compileAlone(
  schema: Record<string, unknown>,
  profile: SchemaProfile,
  allErrors = true,
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
  const budgeted = withBudget(usable);
  if (budgeted.nodes > MAX_SUBSCHEMAS)
    throw new Error(`the schema has ${budgeted.nodes} subschemas; at most ${MAX_SUBSCHEMAS} are accepted`);
  const options = { ...PROFILES[profile], allErrors, validateSchema: false, meta: false };
  const ajv = newAjv(dialect, options, true);
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItemsKeyword);
  ajv.addKeyword(budgetKeyword);
  return withoutCodeCache(() => ajv.compile(budgeted.schema));
}

interface Entry {
  validator?: SchemaValidator;
  /** Collects every error (up to COLLECTED_ERRORS). */
  readonly validate: ValidateFunction;
  /** Stops at the first error: says whether a value that made `validate` stop is valid after all. */
  first?: ValidateFunction;
  readonly schema: Record<string, unknown>;
  readonly profile: SchemaProfile;
  readonly key: string;
}

const cache = new LRUCache<string, Entry>({ maxSize: CACHE_BYTES, sizeCalculation: sizeOfEntry });
/** The cache key of a schema object already seen (its text is computed once per object). */
const keys = new WeakMap<object, Map<SchemaProfile, string>>();

function sizeOfEntry(entry: Entry, key: string): number {
  const code = entry.validate.toString().length + (entry.first?.toString().length ?? 0);
  return Math.max(1, key.length * 2 + Math.max(code * BYTES_PER_CODE_CHAR, key.length * BYTES_PER_CHAR));
}

/**
 * Drops the compiled validators of every schema object inside `value` (the flow version being
 * replaced): they are compiled again if something still validates with them. Returns how many were
 * dropped. Schemas compiled from copies are left to the cache's byte bound.
 */
export function releaseSchemas(value: unknown): number {
  let released = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const at = stack.pop();
    if (typeof at !== 'object' || at === null || seen.has(at)) continue;
    seen.add(at);
    const byProfile = keys.get(at);
    if (byProfile) {
      for (const key of byProfile.values()) if (cache.delete(key)) released += 1;
      keys.delete(at);
    }
    for (const child of Object.values(at)) stack.push(child);
  }
  return released;
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
    entry = { validate: compileAlone(schema, profile), schema, profile, key };
    cache.set(key, entry);
  }
  entry.validator ??= validatorOf(entry);
  return entry.validator;
}

function validatorOf(entry: Entry): SchemaValidator {
  const { schema } = entry;
  const check = (value: unknown): SchemaOutcome => checkWith(entry, value);
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

/**
 * Validates collecting errors; when they are too many (perhaps inside an `anyOf` branch that does
 * not matter), asks the first-error validator whether the value is valid after all.
 */
function checkWith(entry: Entry, value: unknown): SchemaOutcome {
  const all = run(entry.validate, value);
  if (all === true || all === 'budget' || Array.isArray(all)) return outcome(all, true);
  if (!entry.first) {
    entry.first = compileAlone(entry.schema, entry.profile, false);
    // Sized again with its second validator (when it is still cached).
    if (cache.peek(entry.key) === entry) cache.set(entry.key, entry);
  }
  const first = run(entry.first, value);
  return first === true || first === 'budget' ? outcome(first, false) : outcome(all.tooMany, false);
}

function run(
  validate: ValidateFunction,
  value: unknown,
): true | 'budget' | ErrorObject[] | { tooMany: ErrorObject[] } {
  startBudget(VALIDATION_BUDGET_MS);
  try {
    return validate(value) ? true : (validate.errors ?? []);
  } catch (error) {
    if (isTooMany(error)) return { tooMany: error.agentRuntimeTooManyErrors };
    if (error instanceof SchemaBudgetExceeded || error instanceof RangeError) return 'budget';
    throw error;
  }
}

function outcome(result: true | 'budget' | ErrorObject[], complete: boolean): SchemaOutcome {
  if (result === true) return { ok: true };
  if (result === 'budget') return { ok: false, errors: [budgetError()], complete: false };
  const errors = result.slice(0, MAX_SCHEMA_ERRORS);
  return { ok: false, errors, complete: complete && result.length <= MAX_SCHEMA_ERRORS };
}

function isTooMany(error: unknown): error is TooMany {
  return typeof error === 'object' && error !== null && 'agentRuntimeTooManyErrors' in error;
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
