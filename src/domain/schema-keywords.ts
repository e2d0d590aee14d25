import { AgentRuntimeError } from './agent-runtime-error.js';
import type { ErrorObject, FuncKeywordDefinition } from 'ajv';

/**
 * The two keywords that keep a JSON Schema evaluation within its budget (docs/security.md, "Budgets
 * for tenant content"): `uniqueItems` in linear time, and a step counter in every subschema.
 */

/** Thrown from inside a validation that used up its budget; the caller turns it into a refusal. */
export class SchemaBudgetExceeded extends AgentRuntimeError {
  override readonly name = 'SchemaBudgetExceeded';
  declare readonly code: 'SCHEMA_BUDGET_EXCEEDED';
  constructor(message: string) {
    super('SCHEMA_BUDGET_EXCEEDED', message);
  }
}

/** Subschemas evaluated between two looks at the clock. */
const STEPS_PER_CLOCK_CHECK = 64;

/** The budget of the validation running now (validation is synchronous: one at a time). */
const budget = { deadline: Number.POSITIVE_INFINITY, untilClock: STEPS_PER_CLOCK_CHECK };

/** Starts a budget of `ms` wall time for the validation about to run. */
export function startBudget(ms: number): void {
  budget.deadline = performance.now() + ms;
  budget.untilClock = STEPS_PER_CLOCK_CHECK;
}

/** The keyword put in every subschema: each evaluation is a step; past the deadline it throws. */
export const BUDGET_KEYWORD = 'x-agent-runtime-budget';

/**
 * `x-agent-runtime-budget`: counts a step, and looks at the clock every 64 steps; throws
 * SchemaBudgetExceeded past the deadline.
 */
export const budgetKeyword: FuncKeywordDefinition = {
  keyword: BUDGET_KEYWORD,
  schemaType: 'boolean',
  errors: false,
  validate: () => {
    budget.untilClock -= 1;
    if (budget.untilClock > 0) return true;
    budget.untilClock = STEPS_PER_CLOCK_CHECK;
    if (performance.now() > budget.deadline) throw new SchemaBudgetExceeded('validation budget used up');
    return true;
  },
};

/**
 * `uniqueItems` in linear time (Ajv's compares every pair of non-scalar items: 30,000 objects took
 * 18 s). Items are equal as JSON values: same canonical text, object keys in sorted order.
 */
export const uniqueItemsKeyword: FuncKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  validate: unique,
};

/** The validate function of `uniqueItems` (Ajv reads its errors from `unique.errors`). */
function unique(schema: boolean, data: unknown[]): boolean {
  unique.errors = undefined as Partial<ErrorObject>[] | undefined;
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let j = 0; j < data.length; j += 1) {
    const key = canonical(data[j]);
    const i = seen.get(key);
    if (i !== undefined) {
      unique.errors = [
        {
          keyword: 'uniqueItems',
          params: { i, j },
          message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
        },
      ];
      return false;
    }
    seen.set(key, j);
  }
  return true;
}
unique.errors = undefined as Partial<ErrorObject>[] | undefined;

/** The JSON text of `value` with object keys sorted (equal JSON values give equal texts). */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(',')}}`;
}

const ONE = [
  'additionalItems',
  'additionalProperties',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const MANY = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas'];

/**
 * A copy of `schema` with the budget keyword in every subschema (the places where a schema holds
 * schemas in drafts 07, 2019-09 and 2020-12), and how many subschemas it has. Recursion through
 * `$ref` evaluates subschemas again and again: each evaluation is a step of the budget.
 */
export function withBudget(schema: Record<string, unknown>): {
  schema: Record<string, unknown>;
  nodes: number;
} {
  let nodes = 0;
  const visit = (node: unknown): unknown => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return node;
    nodes += 1;
    const copy: Record<string, unknown> = { ...(node as Record<string, unknown>), [BUDGET_KEYWORD]: true };
    for (const key of ONE) if (key in copy) copy[key] = visit(copy[key]);
    for (const key of MANY) if (Array.isArray(copy[key])) copy[key] = (copy[key] as unknown[]).map(visit);
    if ('items' in copy) copy.items = Array.isArray(copy.items) ? copy.items.map(visit) : visit(copy.items);
    for (const key of [...MAPS, 'dependencies']) {
      const map = copy[key];
      if (map === null || typeof map !== 'object' || Array.isArray(map)) continue;
      copy[key] = Object.fromEntries(
        Object.entries(map as Record<string, unknown>).map(([k, v]) => [k, visit(v)]),
      );
    }
    return copy;
  };
  return { schema: visit(schema) as Record<string, unknown>, nodes };
}
