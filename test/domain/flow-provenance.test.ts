import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  DERIVE_OPS,
  DerivationSchema,
  DeriveOperandSchema,
  FieldContractSchema,
  FromEntrySchema,
  fromTool,
  fromTools,
  ReplySchema,
  SOURCE_KINDS,
  sourceKinds,
  TextRuleSchema,
  TOOL_NAME_PATTERN,
  TrustSchema,
  UNTRUSTED_MODES,
  WhereSchema,
} from '../../src/domain/flow-provenance.js';
import { MAX_EXPRESSION_LENGTH } from '../../src/domain/flow-graph.js';

/**
 * The provenance parts of the flow format (docs/flows.md "Parameter contracts", "Untrusted text",
 * "Confidential values", "Call-level provenance", "Derived values", "Replies and untrusted text").
 */

/** The messages of a failed parse, with their paths (the custom messages of these schemas are exact). */
function messages(schema: z.ZodType, data: unknown): string[] {
  const parsed = schema.safeParse(data);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('the vocabularies', () => {
  it('are the documented lists, in order', () => {
    expect(SOURCE_KINDS).toEqual(['evidence', 'user']);
    expect(UNTRUSTED_MODES).toEqual(['refuse', 'single', 'pinned']);
    expect(DERIVE_OPS).toEqual(['sum', 'difference', 'product', 'percentage', 'round']);
  });

  it('tool names are 1-64 letters, digits, _ or -', () => {
    for (const good of ['a', 'A_b-9', 'x'.repeat(64), '9lives', '_', '-'])
      expect(TOOL_NAME_PATTERN.test(good), good).toBe(true);
    for (const bad of ['', 'x'.repeat(65), 'a.b', 'a b', 'a/b', 'ä', 'a:b'])
      expect(TOOL_NAME_PATTERN.test(bad), bad).toBe(false);
  });
});

describe('sourceKinds', () => {
  it('is a list of the kinds a contract accepts: none, one, or a list with repeats removed', () => {
    expect(sourceKinds({})).toEqual([]);
    expect(sourceKinds({ source: undefined })).toEqual([]);
    expect(sourceKinds({ source: 'user' })).toEqual(['user']);
    expect(sourceKinds({ source: ['evidence', 'user'] })).toEqual(['evidence', 'user']);
    expect(sourceKinds({ source: ['user', 'evidence', 'user'] })).toEqual(['user', 'evidence']);
  });

  it('returns a fresh list, never the contract’s own', () => {
    const source: ('user' | 'evidence')[] = ['user'];
    const kinds = sourceKinds({ source });
    kinds.push('evidence');
    expect(source).toEqual(['user']);
  });
});

describe('fromTool and fromTools', () => {
  it('name the tool of a plain entry and of an entry with where', () => {
    expect(fromTool('space_list')).toBe('space_list');
    expect(fromTool({ tool: 'order_list', where: { customer: 'user' } })).toBe('order_list');
  });

  it('list each tool once, in order of first mention; none for no from', () => {
    expect(fromTools(undefined)).toEqual([]);
    expect(fromTools([])).toEqual([]);
    expect(
      fromTools([
        'b',
        { tool: 'a', where: { x: 'user' } },
        'b',
        { tool: 'a', where: { y: { equals: 1 } } },
        'c',
      ]),
    ).toEqual(['b', 'a', 'c']);
  });
});

describe('source', () => {
  it('takes one kind or a non-empty list of kinds', () => {
    expect(FieldContractSchema.parse({ source: 'user' })).toEqual({ source: 'user' });
    expect(FieldContractSchema.parse({ source: ['evidence', 'user'] })).toEqual({
      source: ['evidence', 'user'],
    });
    expect(FieldContractSchema.safeParse({ source: [] }).success).toBe(false);
  });

  it('says which kind is unknown, in a string or inside a list', () => {
    expect(messages(FieldContractSchema, { source: 'users' })).toEqual([
      'source: expected one of: "evidence", "user"; got "users"',
    ]);
    expect(messages(FieldContractSchema, { source: ['user', 'model', 'x'] })).toEqual([
      'source: expected a list of "evidence" and "user"; got "model"',
    ]);
    expect(messages(FieldContractSchema, { source: 3 })).toEqual([
      'source: expected "evidence", "user", or a non-empty list of them',
    ]);
    expect(messages(FieldContractSchema, { source: { kind: 'user' } })).toEqual([
      'source: expected "evidence", "user", or a non-empty list of them',
    ]);
  });
});

describe('from entries', () => {
  it('are a tool name, or { tool, where } with at least one condition', () => {
    expect(FromEntrySchema.parse('space_list')).toBe('space_list');
    expect(FromEntrySchema.parse({ tool: 'order_list', where: { customer: 'user' } })).toEqual({
      tool: 'order_list',
      where: { customer: 'user' },
    });
    expect(messages(FromEntrySchema, { tool: 'order_list', where: {} })).toEqual([
      'where: expected at least one argument',
    ]);
  });

  it('refuse anything else with the shape they expect', () => {
    const expected =
      ': expected a tool name or { tool: <name>, where: { <argument>: user | { equals: <value> } } }';
    expect(messages(FromEntrySchema, 42)).toEqual([expected]);
    expect(messages(FromEntrySchema, null)).toEqual([expected]);
    expect(FromEntrySchema.safeParse('cloud.list').success).toBe(false);
    expect(FromEntrySchema.safeParse({ tool: 'x' }).success).toBe(false);
    expect(FromEntrySchema.safeParse({ tool: 'x', where: { a: 'user' }, extra: 1 }).success).toBe(false);
  });

  it('where: user, or { equals: <string, number or boolean> }', () => {
    expect(WhereSchema.parse('user')).toBe('user');
    for (const value of ['EUR', 7, 0, false])
      expect(WhereSchema.parse({ equals: value })).toEqual({ equals: value });
    const expected = [': expected user or { equals: <value> }'];
    expect(messages(WhereSchema, 'evidence')).toEqual(expected);
    expect(messages(WhereSchema, { equals: null })).toEqual(expected);
    expect(messages(WhereSchema, { equals: [1] })).toEqual(expected);
    expect(WhereSchema.safeParse({ equals: 1, or: 2 }).success).toBe(false);
    expect(WhereSchema.safeParse({}).success).toBe(false);
  });
});

describe('a field contract', () => {
  it('takes the provenance keys and required', () => {
    const contract = {
      source: 'evidence',
      from: ['space_list', { tool: 'order_list', where: { id: { equals: 3 } } }],
      path: 'data.items.id',
      match: 'contains',
      untrusted: 'pinned',
      enum: ['a', 1, true],
      required: true,
    };
    expect(FieldContractSchema.parse(contract)).toEqual(contract);
  });

  it('refuses an empty from or enum, an unknown match or untrusted mode, and an empty path', () => {
    expect(FieldContractSchema.safeParse({ from: [] }).success).toBe(false);
    expect(FieldContractSchema.safeParse({ enum: [] }).success).toBe(false);
    expect(FieldContractSchema.safeParse({ enum: [null] }).success).toBe(false);
    expect(FieldContractSchema.safeParse({ match: 'prefix' }).success).toBe(false);
    expect(FieldContractSchema.safeParse({ untrusted: 'allow' }).success).toBe(false);
    expect(FieldContractSchema.safeParse({ path: '' }).success).toBe(false);
  });

  it('bounds path to the expression limit', () => {
    expect(FieldContractSchema.safeParse({ path: 'a'.repeat(MAX_EXPRESSION_LENGTH) }).success).toBe(true);
    expect(messages(FieldContractSchema, { path: 'a'.repeat(MAX_EXPRESSION_LENGTH + 1) })).toEqual([
      `path: expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`,
    ]);
  });

  it('has no fields or schema of its own (those belong to a parameter contract)', () => {
    expect(FieldContractSchema.safeParse({ fields: {} }).success).toBe(false);
    expect(FieldContractSchema.safeParse({ schema: {} }).success).toBe(false);
  });
});

describe('derive', () => {
  it('takes an op, its operands and optional factor and decimals', () => {
    const derivation = {
      op: 'percentage',
      of: [{ source: 'evidence', from: ['invoice_get'], path: 'net' }],
      factor: 19.5,
      decimals: 2,
    };
    expect(DerivationSchema.parse(derivation)).toEqual(derivation);
  });

  it('nests: an operand may be a derivation of its own', () => {
    const nested = {
      op: 'sum',
      of: [{ source: 'user' }, { derive: { op: 'product', of: [{ source: 'user' }], factor: 3 } }],
    };
    expect(DerivationSchema.parse(nested)).toEqual(nested);
    expect(
      DerivationSchema.safeParse({ op: 'sum', of: [{ derive: { op: 'avg', of: [{ source: 'user' }] } }] })
        .success,
    ).toBe(false);
  });

  it('needs at least one operand and a known op', () => {
    expect(DerivationSchema.safeParse({ op: 'sum', of: [] }).success).toBe(false);
    expect(DerivationSchema.safeParse({ op: 'sum' }).success).toBe(false);
    expect(DerivationSchema.safeParse({ op: 'mean', of: [{ source: 'user' }] }).success).toBe(false);
  });

  it('decimals is a whole number from 0 to 8', () => {
    const decimals = (value: unknown) =>
      DerivationSchema.safeParse({ op: 'round', of: [{ source: 'user' }], decimals: value }).success;
    expect([0, 2, 8].map(decimals)).toEqual([true, true, true]);
    expect([-1, 9, 1.5, '2'].map(decimals)).toEqual([false, false, false, false]);
  });

  it('an operand takes the provenance keys and derive, but neither enum nor required', () => {
    expect(
      DeriveOperandSchema.parse({ source: ['evidence'], from: ['a'], path: 'x', untrusted: 'single' }),
    ).toEqual({ source: ['evidence'], from: ['a'], path: 'x', untrusted: 'single' });
    expect(DeriveOperandSchema.safeParse({ source: 'user', enum: [1] }).success).toBe(false);
    expect(DeriveOperandSchema.safeParse({ source: 'user', required: true }).success).toBe(false);
    expect(DeriveOperandSchema.safeParse({}).success).toBe(true);
  });

  it('a field contract may derive its value', () => {
    expect(
      FieldContractSchema.parse({
        derive: { op: 'difference', of: [{ source: 'user' }, { source: 'user' }] },
      }),
    ).toEqual({ derive: { op: 'difference', of: [{ source: 'user' }, { source: 'user' }] } });
  });
});

describe('trust', () => {
  it('is trusted, untrusted, or an object of untrusted and/or confidential paths', () => {
    expect(TrustSchema.parse('trusted')).toBe('trusted');
    expect(TrustSchema.parse('untrusted')).toBe('untrusted');
    expect(TrustSchema.parse({ untrusted: ['body'] })).toEqual({ untrusted: ['body'] });
    expect(TrustSchema.parse({ confidential: ['$'] })).toEqual({ confidential: ['$'] });
    expect(TrustSchema.parse({ untrusted: ['a', 'b'], confidential: ['c'] })).toEqual({
      untrusted: ['a', 'b'],
      confidential: ['c'],
    });
  });

  it('an object needs one of its keys', () => {
    expect(messages(TrustSchema, {})).toEqual([
      ': expected untrusted: [<JSONata path>, …], confidential: [<JSONata path>, …] or both',
    ]);
  });

  it('anything else gets the shape it expects', () => {
    const expected =
      ': expected trusted, untrusted or { untrusted: [<JSONata path>, …], confidential: [<JSONata path>, …] }';
    expect(messages(TrustSchema, 'open')).toEqual([expected]);
    expect(messages(TrustSchema, 1)).toEqual([expected]);
    expect(messages(TrustSchema, ['body'])).toEqual([expected]);
  });

  it('refuses an empty path list, an empty path and unknown keys', () => {
    expect(TrustSchema.safeParse({ untrusted: [] }).success).toBe(false);
    expect(TrustSchema.safeParse({ confidential: [''] }).success).toBe(false);
    expect(TrustSchema.safeParse({ untrusted: ['a'], secret: ['b'] }).success).toBe(false);
  });
});

describe('reply and text', () => {
  it('reply takes untrusted: refuse only', () => {
    expect(ReplySchema.parse({ untrusted: 'refuse' })).toEqual({ untrusted: 'refuse' });
    expect(ReplySchema.safeParse({ untrusted: 'single' }).success).toBe(false);
    expect(ReplySchema.safeParse({}).success).toBe(false);
    expect(ReplySchema.safeParse({ untrusted: 'refuse', names: [] }).success).toBe(false);
  });

  it('text takes a non-empty list of distinct argument names and untrusted: refuse', () => {
    expect(TextRuleSchema.parse({ params: ['title', 'body'], untrusted: 'refuse' })).toEqual({
      params: ['title', 'body'],
      untrusted: 'refuse',
    });
    expect(messages(TextRuleSchema, { params: ['title', 'body', 'title'], untrusted: 'refuse' })).toEqual([
      'params: expected each argument once',
    ]);
    expect(TextRuleSchema.safeParse({ params: [], untrusted: 'refuse' }).success).toBe(false);
    expect(TextRuleSchema.safeParse({ params: [''], untrusted: 'refuse' }).success).toBe(false);
    expect(TextRuleSchema.safeParse({ params: ['title'] }).success).toBe(false);
    expect(TextRuleSchema.safeParse({ params: ['title'], untrusted: 'pinned' }).success).toBe(false);
  });
});
