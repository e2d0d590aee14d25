import type { z } from 'zod';
import { listOf, suggest, type PathSegment, type RawProblem } from './problems.js';

/**
 * Turns zod issues into problems whose messages say what is expected, in the words of the flow format
 * (`expected a list`, `unknown key "tool"; expected one of: …`), and picks the meant branch of a union
 * (a stdio or an HTTP server) instead of reporting both.
 */

type Issue = z.core.$ZodIssue;

/** The parts of a zod schema definition this module walks. */
interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly valueType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

function defOf(schema: z.ZodType): Def {
  const def: unknown = schema._zod.def;
  return def as Def;
}

/** All problems of a failed parse of `data` against `schema`. */
export function schemaProblems(schema: z.ZodType, issues: readonly Issue[], data: unknown): RawProblem[] {
  return issues.flatMap((issue) => issueProblems(schema, issue, [], data));
}

function issueProblems(
  root: z.ZodType,
  issue: Issue,
  base: readonly PathSegment[],
  data: unknown,
): RawProblem[] {
  const path = [...base, ...(issue.path as PathSegment[])];
  const value = valueAt(data, path);
  switch (issue.code) {
    case 'unrecognized_keys': {
      const allowed = Object.keys(objectShapeAt(root, path, data, issue.keys) ?? {});
      return issue.keys.map((key) => ({
        path: [...path, key],
        atKey: true,
        message: `unknown key "${key}"${suggest(key, allowed)}; expected one of: ${listOf(allowed)}`,
      }));
    }
    case 'invalid_union':
      return unionProblems(root, issue, path, data, value);
    case 'invalid_key': {
      const inner = issue.issues[0];
      const why = inner ? innerMessage(inner) : 'invalid key';
      return [{ path, atKey: true, message: `key "${String(path.at(-1))}": ${why}` }];
    }
    default:
      return [{ path, message: issueMessage(issue, value) }];
  }
}

function unionProblems(
  root: z.ZodType,
  issue: Issue & { code: 'invalid_union' },
  path: PathSegment[],
  data: unknown,
  value: unknown,
): RawProblem[] {
  const branches = issue.errors;
  if (isRecord(value)) {
    const options = defOf(schemaAt(root, path, data, false) ?? root).options ?? [];
    const index = bestOption(options, value);
    const branch = index === undefined ? undefined : branches[index];
    if (branch) return branch.flatMap((inner) => issueProblems(root, inner, path, data));
  }
  const custom = issue.message !== 'Invalid input';
  if (custom) return [{ path, message: issue.message }];
  const expected = branches.flatMap((b) =>
    b.filter((i) => i.code === 'invalid_type').map((i) => typeWords(i.expected)),
  );
  return [
    {
      path,
      message: `expected ${[...new Set(expected)].join(' or ') || 'another value'}, got ${typeOf(value)}`,
    },
  ];
}

/** The union option sharing the most keys with the object given (a stdio server has `command`, …), if any. */
function bestOption(
  options: readonly z.ZodType[],
  value: Record<string, unknown>,
  unknown: readonly string[] = [],
): number | undefined {
  let best: number | undefined;
  let bestScore = -1;
  options.forEach((option, i) => {
    const shape = defOf(option).shape;
    // An option that has a key zod called unknown is not the one that refused it.
    if (!shape || unknown.some((key) => key in shape)) return;
    const score = Object.keys(value).filter((key) => key in shape).length;
    if (score > 0 && score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

function innerMessage(issue: Issue): string {
  return issue.code === 'invalid_format' && issue.format === 'regex'
    ? issue.message
    : issueMessage(issue, undefined);
}

function issueMessage(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined
        ? `required; expected ${typeWords(issue.expected)}`
        : `expected ${typeWords(issue.expected)}, got ${typeOf(value)}`;
    case 'too_small':
      return tooSmall(issue);
    case 'too_big':
      // The schema's own words when it has them (`expected a JSONata expression of at most 8192 characters`).
      if (issue.message !== '' && !issue.message.startsWith('Too big')) return issue.message;
      return `expected at most ${String(issue.maximum)}${UNITS[issue.origin] ?? ''}`;
    case 'invalid_value':
      return issue.values.length === 1
        ? `expected ${JSON.stringify(issue.values[0])}, got ${JSON.stringify(value)}`
        : `expected one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}; got ${JSON.stringify(value)}`;
    case 'invalid_format':
      if (issue.format === 'regex') return `${issue.message}; got ${JSON.stringify(value)}`;
      return `expected ${issue.format === 'url' ? 'an absolute URL' : `a ${issue.format}`}; got ${JSON.stringify(value)}`;
    default:
      return issue.message;
  }
}

const UNITS: Readonly<Record<string, string>> = { array: ' items', string: ' characters', set: ' items' };

function tooSmall(issue: Issue & { code: 'too_small' }): string {
  const min = Number(issue.minimum);
  if (issue.origin === 'array') return `expected at least ${min} item${min === 1 ? '' : 's'}`;
  if (issue.origin === 'string')
    return min === 1 ? 'expected a non-empty string' : `expected at least ${min} characters`;
  if (min === 0 && !issue.inclusive) return 'expected a positive number';
  return `expected a number ${issue.inclusive ? '>=' : '>'} ${min}`;
}

function typeWords(expected: string): string {
  const words: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    object: 'a mapping',
    record: 'a mapping',
    array: 'a list',
  };
  return words[expected] ?? expected;
}

/** A word for the type of a YAML/JSON value, for `got …`. */
export function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `"${value}"`;
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `${value}`;
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let current = data;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current)) current = current[String(segment)];
    else return undefined;
  }
  return current;
}

/** Strips optional/default/prefault/nullable wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (let def = defOf(current); def.innerType; def = defOf(current)) current = def.innerType;
  return current;
}

/** The schema that describes the value at `path` (unions resolved by the data found there). */
function schemaAt(
  root: z.ZodType,
  path: readonly PathSegment[],
  data: unknown,
  resolveLast = true,
  unknown: readonly string[] = [],
): z.ZodType | undefined {
  let schema: z.ZodType | undefined = unwrap(root);
  for (const [i, segment] of path.entries()) {
    schema = resolveUnion(schema, valueAt(data, path.slice(0, i)));
    const def = defOf(schema);
    const next: z.ZodType | undefined = def.shape?.[String(segment)] ?? def.valueType ?? def.element;
    if (!next) return undefined;
    schema = unwrap(next);
  }
  return resolveLast ? resolveUnion(schema, valueAt(data, path), unknown) : schema;
}

function resolveUnion(schema: z.ZodType, value: unknown, unknown: readonly string[] = []): z.ZodType {
  const options = defOf(schema).options;
  if (!options || !isRecord(value)) return schema;
  const index = bestOption(options, value, unknown);
  return index === undefined ? schema : unwrap(options[index] ?? schema);
}

function objectShapeAt(
  root: z.ZodType,
  path: readonly PathSegment[],
  data: unknown,
  unknown: readonly string[] = [],
): Record<string, z.ZodType> | undefined {
  const schema = schemaAt(root, path, data, true, unknown);
  return schema ? defOf(schema).shape : undefined;
}
