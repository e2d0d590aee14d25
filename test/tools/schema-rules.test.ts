import { describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/log/logger.js';
import { clippedJson, joinRules, MAX_RULES, schemaRules } from '../../src/tools/schema-rules.js';

// Direct tests of src/tools/schema-rules.ts.

const rules = (
  schema: Record<string, unknown>,
  value: unknown,
  locale: 'en' | 'zh-CN' = 'en',
  max?: number,
) => schemaRules(schema, value, locale, new MemoryLogger(), max);

const ORDER = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    total: { type: 'number', minimum: 0 },
    items: {
      type: 'array',
      items: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    },
  },
  required: ['id', 'total'],
  additionalProperties: false,
};

describe('schemaRules', () => {
  it('is empty for a value that satisfies the schema', () => {
    expect(rules(ORDER, { id: 'o1', total: 3, items: [{ sku: 'a' }] })).toEqual([]);
    expect(MAX_RULES).toBe(3);
  });

  it('a rule of the value itself stands bare; a field rule has its path', () => {
    expect(rules({ type: 'number', minimum: 0 }, -1)).toEqual(['must be >= 0']);
    expect(rules(ORDER, { id: 5, total: 1 })).toEqual(['id: must be of type string']);
    expect(rules(ORDER, { id: 'o', total: 1, items: [{ sku: 1 }] })).toEqual([
      'items.0.sku: must be of type string',
    ]);
  });

  it('missing fields come first, each as its own rule', () => {
    expect(rules(ORDER, { items: [{ sku: 1 }] })).toEqual([
      'missing field id',
      'missing field total',
      'items.0.sku: must be of type string',
    ]);
    expect(rules(ORDER, { id: 'o', total: 0, items: [{}] })).toEqual(['missing field items.0.sku']);
  });

  it("words a value's unknown field as not allowed, listing the allowed ones", () => {
    expect(rules(ORDER, { id: 'o', total: 1, extra: true })).toEqual([
      'extra: is not an allowed field (allowed: id, total, items)',
    ]);
    expect(rules(ORDER, { id: 'o', total: 1, extra: true }, 'zh-CN')).toEqual([
      'extra: 不是允许的字段（允许：id、total、items）',
    ]);
  });

  it('names at most three rules, then how many more', () => {
    const value = { id: 1, total: -1, items: [{}, {}], a: 1 };
    const all = rules(ORDER, value, 'en', 100);
    expect(all.length).toBeGreaterThan(3);
    expect(rules(ORDER, value)).toEqual([...all.slice(0, 3), `and ${all.length - 3} more`]);
    expect(rules(ORDER, value, 'zh-CN').at(-1)).toBe(`另有 ${all.length - 3} 处不符`);
  });

  it('a max of exactly the number of rules names them all', () => {
    expect(rules(ORDER, {}, 'en', 2)).toEqual(['missing field id', 'missing field total']);
    expect(rules(ORDER, {}, 'en', 1)).toEqual(['missing field id', 'and 1 more']);
  });

  it('enforces an unusable schema as one rule and logs it', () => {
    const logger = new MemoryLogger();
    const found = schemaRules({ type: 'nonsense' }, 1, 'en', logger);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^cannot be checked: the tool's argument schema is unusable/);
    expect(logger.find('TOOL schema not compiled')).toHaveLength(1);
  });
});

describe('joinRules', () => {
  it('joins with "; " in en and "；" in zh-CN', () => {
    expect(joinRules('en', ['a', 'b', 'c'])).toBe('a; b; c');
    expect(joinRules('zh-CN', ['a', 'b'])).toBe('a；b');
    expect(joinRules('en', [])).toBe('');
    expect(joinRules('en', ['only'])).toBe('only');
  });
});

describe('clippedJson', () => {
  it('JSON text, a string keeping its quotes', () => {
    expect(clippedJson('3', 10)).toBe('"3"');
    expect(clippedJson(3, 10)).toBe('3');
    expect(clippedJson({ a: [1] }, 20)).toBe('{"a":[1]}');
    expect(clippedJson(null, 10)).toBe('null');
    expect(clippedJson(undefined, 20)).toBe('undefined');
  });

  it('cuts to max characters with an ellipsis as the last', () => {
    expect(clippedJson('abcdef', 8)).toBe('"abcdef"');
    expect(clippedJson('abcdefg', 8)).toBe('"abcdef…');
    expect(clippedJson([1, 2, 3, 4, 5], 6)).toBe('[1,2,…');
    expect(clippedJson('abc', 1)).toBe('…');
  });
});
