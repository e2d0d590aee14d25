import type { ErrorObject } from 'ajv';
import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../../src/log/logger.js';
import { checkSchema, describeRule } from '../../../src/tools/guards/schema-validation.js';

// Direct tests of src/tools/guards/schema-validation.ts: how violations are located, ordered and
// worded (test/tools/guards/schema-validation.test.ts covers the compile cache).

const check = (schema: Record<string, unknown>, value: unknown, prefix = '', locale: 'en' | 'zh-CN' = 'en') =>
  checkSchema(schema, value, locale, new MemoryLogger(), prefix);

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

/** An Ajv error as describeRule reads it. */
const error = (
  keyword: string,
  params: Record<string, unknown>,
  extra: Partial<ErrorObject> = {},
): ErrorObject => ({
  keyword,
  instancePath: '',
  schemaPath: `#/${keyword}`,
  params,
  ...extra,
});

describe('checkSchema: valid values', () => {
  it('nothing missing and no violation', () => {
    const schema = object({ n: { type: 'integer', minimum: 0 } }, { required: ['n'] });
    expect(check(schema, { n: 3 })).toEqual({ missing: [], violations: [] });
    expect(check({}, 'anything')).toEqual({ missing: [], violations: [] });
  });
});

describe('checkSchema: missing fields', () => {
  it('lists each missing required field by its dotted path, each once', () => {
    const schema = object(
      { a: { type: 'string' }, address: object({ city: { type: 'string' } }, { required: ['city'] }) },
      { required: ['a', 'address'] },
    );
    expect(check(schema, {})).toEqual({ missing: ['a', 'address'], violations: [] });
    expect(check(schema, { a: 'x', address: {} })).toEqual({ missing: ['address.city'], violations: [] });
  });

  it('paths go through array indexes, and the prefix comes first', () => {
    const schema = object({ items: { type: 'array', items: object({}, { required: ['id'] }) } });
    expect(check(schema, { items: [{ id: 1 }, {}] }).missing).toEqual(['items.1.id']);
    expect(check(schema, { items: [{}] }, 'order').missing).toEqual(['order.items.0.id']);
  });
});

describe('checkSchema: violations', () => {
  it('a rule of the value itself is at (root); under a prefix, at the prefix', () => {
    expect(check({ type: 'string' }, 5)).toEqual({
      missing: [],
      violations: [{ field: '(root)', rule: 'must be of type string' }],
    });
    expect(check({ type: 'string' }, 5, 'name').violations).toEqual([
      { field: 'name', rule: 'must be of type string' },
    ]);
  });

  it('names an unknown property at its own path, with the accepted ones', () => {
    const schema = object({ a: { type: 'string' }, b: { type: 'number' } }, { additionalProperties: false });
    expect(check(schema, { a: 'x', zz: 1 }).violations).toEqual([
      { field: 'zz', rule: 'is not an argument of this tool (accepted: a, b)' },
    ]);
    expect(check(object({}, { additionalProperties: false }), { q: 1 }).violations).toEqual([
      { field: 'q', rule: 'is not an argument of this tool (accepted: (none))' },
    ]);
  });

  it('JSON Pointer escapes in paths are undone (~1 is /, ~0 is ~)', () => {
    const schema = object({ 'a/b': { type: 'string' }, 'c~d': { type: 'string' } });
    expect(
      check(schema, { 'a/b': 1, 'c~d': 2 })
        .violations.map((v) => v.field)
        .sort(),
    ).toEqual(['a/b', 'c~d']);
  });

  it('the most specific violations come first', () => {
    const schema = object(
      {
        top: { type: 'string' },
        deep: object({ inner: object({ leaf: { type: 'integer' } }) }),
      },
      { minProperties: 5 },
    );
    const fields = check(schema, { top: 1, deep: { inner: { leaf: 'x' } } }).violations.map((v) => v.field);
    expect(fields).toEqual(['deep.inner.leaf', 'top', '(root)']);
  });

  it('combinators are left out beside the rules under them, and kept when they are the only error', () => {
    const anyOf = { anyOf: [{ type: 'string' }, { type: 'number' }] };
    const rules = check(anyOf, true).violations.map((v) => v.rule);
    expect(rules).toEqual(['must be of type string', 'must be of type number']);
    const not = { not: { type: 'string' } };
    expect(check(not, 'x').violations).toEqual([
      { field: '(root)', rule: 'breaks the not constraint (must NOT be valid)' },
    ]);
  });

  it('a combinator error with only other combinators is still reported (the first error)', () => {
    const schema = { oneOf: [{ type: 'string' }, { type: 'string', minLength: 0 }] };
    const result = check(schema, 'x');
    expect(result.missing).toEqual([]);
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]?.rule).toMatch(/^breaks the oneOf constraint/);
  });

  it('is worded in the locale', () => {
    expect(check({ type: 'integer', maximum: 10 }, 11, '', 'zh-CN').violations).toEqual([
      { field: '(root)', rule: '不能大于 10' },
    ]);
  });

  it('clips a long field name to 300 characters', () => {
    const key = 'k'.repeat(400);
    const schema = object({ [key]: { type: 'string' } });
    const [violation] = check(schema, { [key]: 1 }).violations;
    expect(violation?.field).toHaveLength(300);
    expect(violation?.field.endsWith('…')).toBe(true);
  });
});

describe('checkSchema: a schema that cannot be compiled fails closed', () => {
  it('one violation saying why, at (root) or the prefix, and a warning logged', () => {
    const logger = new MemoryLogger();
    const result = checkSchema({ type: 'no-such-type' }, 'x', 'en', logger);
    expect(result.missing).toEqual([]);
    expect(result.violations).toHaveLength(1);
    expect(result.violations[0]?.field).toBe('(root)');
    expect(result.violations[0]?.rule).toMatch(
      /^cannot be checked: the tool's argument schema is unusable \(.+\), so the call is not allowed$/,
    );
    expect(logger.find('TOOL schema not compiled')).toHaveLength(1);
    expect(checkSchema({ type: 'no-such-type' }, 'x', 'en', logger, 'arg').violations[0]?.field).toBe('arg');
  });
});

describe('describeRule', () => {
  const rule = (keyword: string, params: Record<string, unknown>, extra: Partial<ErrorObject> = {}) =>
    describeRule(error(keyword, params, extra), 'en');

  it('words the numeric bounds, exclusive ones from either draft', () => {
    expect(rule('minimum', { limit: 1, comparison: '>=' })).toBe('must be >= 1');
    expect(rule('minimum', { limit: 1, comparison: '>' })).toBe('must be > 1');
    expect(rule('maximum', { limit: 9, comparison: '<=' })).toBe('must be <= 9');
    expect(rule('maximum', { limit: 9, comparison: '<' })).toBe('must be < 9');
    expect(rule('exclusiveMinimum', { limit: 0 })).toBe('must be > 0');
    expect(rule('exclusiveMaximum', { limit: 100 })).toBe('must be < 100');
    expect(rule('multipleOf', { multipleOf: 0.5 })).toBe('must be a multiple of 0.5');
    expect(rule('formatMinimum', { limit: '2025-01-01', comparison: '>=' })).toBe('must be >= 2025-01-01');
  });

  it('words lengths, counts, patterns and formats', () => {
    expect(rule('minLength', { limit: 2 })).toBe('must have at least 2 characters');
    expect(rule('maxLength', { limit: 5 })).toBe('must have at most 5 characters');
    expect(rule('minItems', { limit: 1 })).toBe('must have at least 1 items');
    expect(rule('maxItems', { limit: 3 })).toBe('must have at most 3 items');
    expect(rule('minProperties', { limit: 1 })).toBe('must have at least 1 properties');
    expect(rule('maxProperties', { limit: 2 })).toBe('must have at most 2 properties');
    expect(rule('uniqueItems', { i: 1, j: 0 })).toBe('must not contain duplicate items');
    expect(rule('pattern', { pattern: '^[a-z]+$' })).toBe('must match the pattern ^[a-z]+$');
    expect(rule('format', { format: 'email' })).toBe('must be in email format');
    expect(rule('budget', { ms: 250 })).toBe('could not be checked within 250 ms; send a smaller value');
  });

  it('shows a const value as JSON, strings bare', () => {
    expect(rule('const', { allowedValue: 'on' })).toBe('must be on');
    expect(rule('const', { allowedValue: { a: 1 } })).toBe('must be {"a":1}');
  });

  it('names up to 8 enum values, then how many more', () => {
    expect(rule('enum', { allowedValues: ['basic', 'pro', 1, null] })).toBe(
      'must be one of: basic, pro, 1, null',
    );
    const many = Array.from({ length: 11 }, (_, i) => `v${i}`);
    expect(rule('enum', { allowedValues: many })).toBe(
      'must be one of: v0, v1, v2, v3, v4, v5, v6, v7 (and 3 more)',
    );
    expect(rule('enum', {})).toBe('must be one of: ');
  });

  it('the accepted properties come from the parent schema, else the root schema at the root', () => {
    const parentSchema = { properties: { x: {}, y: {} } };
    expect(rule('additionalProperties', { additionalProperty: 'z' }, { parentSchema })).toBe(
      'is not an argument of this tool (accepted: x, y)',
    );
    const root = { properties: { p: {} } };
    expect(describeRule(error('additionalProperties', { additionalProperty: 'z' }), 'en', root)).toBe(
      'is not an argument of this tool (accepted: p)',
    );
    expect(describeRule(error('additionalProperties', {}, { instancePath: '/deep' }), 'en', root)).toBe(
      'is not an argument of this tool (accepted: (none))',
    );
  });

  it('lists at most 20 accepted properties and counts the rest', () => {
    const properties = Object.fromEntries(Array.from({ length: 23 }, (_, i) => [`p${i}`, {}]));
    const text = rule(
      'unevaluatedProperties',
      { unevaluatedProperty: 'q' },
      { parentSchema: { properties } },
    );
    expect(text).toBe(
      `is not an argument of this tool (accepted: ${Array.from({ length: 20 }, (_, i) => `p${i}`).join(', ')} …(+3))`,
    );
  });

  it('any other keyword is named with the validator message', () => {
    expect(
      rule('dependencies', { property: 'a' }, { message: 'must have property b when property a is present' }),
    ).toBe('breaks the dependencies constraint (must have property b when property a is present)');
    expect(rule('weird', {})).toBe('breaks the weird constraint ()');
  });

  it('is worded in zh-CN too', () => {
    expect(describeRule(error('minLength', { limit: 2 }), 'zh-CN')).toBe('长度不能少于 2 个字符');
    expect(describeRule(error('enum', { allowedValues: ['a', 'b'] }), 'zh-CN')).toBe(
      '取值应为以下之一：a、b',
    );
  });
});
