import { describe, expect, it } from 'vitest';
import { FULL_CHECK_CHARS, schemaCacheStats } from '../../src/domain/schema-engine.js';
import { jsonSchemaIssues, validateAgainst } from '../../src/flow/json-schema.js';
import { checkSchema } from '../../src/tools/guards/schema-validation.js';

/**
 * Issue 27, findings 1, 2, 4 and 5 at the level of the schema engine: a validation's output, time and
 * memory are bounded whatever the schema and the value, and a schema's `$id` is its own.
 */

const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

function timed<T>(body: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = body();
  return { value, ms: performance.now() - started };
}

describe('bounded JSON Schema validation', () => {
  it('lists at most 20 problems, an enum by its first 8 values, however many items fail (finding 1)', () => {
    const names = Array.from({ length: 40 }, (_, i) => `name-${i}`);
    const schema = { type: 'object', properties: { who: { type: 'array', items: { enum: names } } } };
    const small = validateAgainst(schema, { who: Array.from({ length: 500 }, () => 'nobody') });
    expect(small).toHaveLength(21);
    expect(small[0]).toBe(
      'who[0]: expected one of: "name-0", "name-1", "name-2", "name-3", "name-4", "name-5", "name-6", "name-7" (and 32 more)',
    );
    expect(small[20]).toBe('(further problems not listed)');
    // 600 KB of input: only its first problem is looked for.
    const { value: big, ms } = timed(() =>
      validateAgainst(schema, { who: Array.from({ length: 60_000 }, () => 'nobody-x') }),
    );
    expect(big).toEqual([
      expect.stringMatching(/^who\[0\]: expected one of: /),
      '(further problems not listed)',
    ]);
    expect(JSON.stringify(big).length).toBeLessThan(1_000);
    expect(ms).toBeLessThan(1_000);
  });

  it('names the first values of a 20,000-value enum in a tool argument rule', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => `v${i}`);
    const check = checkSchema(
      { type: 'object', properties: { plan: { enum: values } } },
      { plan: 'gold' },
      'en',
      logger,
    );
    expect(check.violations).toEqual([
      { field: 'plan', rule: 'must be one of: v0, v1, v2, v3, v4, v5, v6, v7 (and 19992 more)' },
    ]);
  });

  it('checks uniqueItems over 30,000 objects in linear time, keys in any order (finding 2)', () => {
    const items: unknown[] = Array.from({ length: 30_000 }, (_, i) => ({ id: i, name: `n${i}` }));
    const schema = { type: 'array', uniqueItems: true };
    const valid = timed(() => validateAgainst(schema, items));
    expect(valid.value).toEqual([]);
    expect(valid.ms).toBeLessThan(1_000);
    items.push({ name: 'n7', id: 7 });
    const duplicate = timed(() => validateAgainst(schema, items));
    expect(duplicate.value).toEqual([
      '(input): must NOT have duplicate items (items ## 30000 and 7 are identical)',
      '(further problems not listed)',
    ]);
    expect(duplicate.ms).toBeLessThan(1_000);
  });

  it('stops a recursive schema that would take exponential time at its budget, and refuses the value', () => {
    const schema = { type: 'array', items: { anyOf: [{ $ref: '#' }, { $ref: '#' }, { type: 'string' }] } };
    let value: unknown = 1;
    for (let i = 0; i < 40; i++) value = [value];
    const { value: problems, ms } = timed(() => validateAgainst(schema, value));
    expect(problems[0]).toMatch(/^\(input\): could not be checked within 250 ms/);
    expect(ms).toBeLessThan(1_500);
    const tool = {
      type: 'object',
      properties: { a: { $ref: '#/definitions/n' } },
      definitions: {
        n: {
          type: 'array',
          items: { anyOf: [{ $ref: '#/definitions/n' }, { $ref: '#/definitions/n' }, { type: 'string' }] },
        },
      },
    };
    const args = checkSchema(tool, { a: value }, 'en', logger);
    expect(args.violations[0]?.rule).toMatch(/could not be checked within 250 ms/);
  });

  it('lists every problem of a value up to 16 KB of JSON', () => {
    const schema = { type: 'object', required: ['a', 'b', 'c'] };
    expect(validateAgainst(schema, { pad: 'x'.repeat(FULL_CHECK_CHARS - 100) })).toEqual([
      'a: required',
      'b: required',
      'c: required',
    ]);
  });
});

describe('schemas compiled alone (finding 5)', () => {
  it("keeps beta's maxLength: 3 whatever another schema with the same $id said first", () => {
    const acme = { $id: 'https://tools.example/args', type: 'object', properties: { a: { type: 'string' } } };
    const beta = {
      $id: 'https://tools.example/args',
      type: 'object',
      properties: { a: { type: 'string', maxLength: 3 } },
    };
    expect(checkSchema(acme, { a: 'long text' }, 'en', logger).violations).toEqual([]);
    expect(checkSchema(beta, { a: 'long text' }, 'en', logger).violations).toEqual([
      { field: 'a', rule: 'must have at most 3 characters' },
    ]);
    // Both flows' schemas are valid, whoever came first.
    expect(jsonSchemaIssues(acme)).toEqual([]);
    expect(jsonSchemaIssues(beta)).toEqual([]);
  });

  it("never resolves a $ref into another schema's $id", () => {
    const acme = { $id: 'https://tools.example/acme', type: 'string', maxLength: 100 };
    expect(jsonSchemaIssues(acme)).toEqual([]);
    const beta = { type: 'object', properties: { a: { $ref: 'https://tools.example/acme' } } };
    expect(jsonSchemaIssues(beta)).toEqual([
      { path: [], message: expect.stringMatching(/can't resolve reference https:\/\/tools.example\/acme/) },
    ]);
  });

  it('refuses a call when the tool schema cannot be compiled (fails closed)', () => {
    const check = checkSchema(
      { type: 'object', properties: { a: { $ref: 'https://nowhere.example/x' } } },
      { a: 'anything' },
      'en',
      logger,
    );
    expect(check.violations).toEqual([
      {
        field: '(root)',
        rule: expect.stringMatching(
          /^cannot be checked: the tool's argument schema is unusable \(can't resolve/,
        ),
      },
    ]);
  });
});

describe('the validator cache (finding 4)', () => {
  it('keeps a bounded estimate of bytes however many distinct schemas are compiled', () => {
    const pad = 'p'.repeat(20_000);
    for (let i = 0; i < 400; i++) {
      const schema = { type: 'object', description: pad, properties: { [`f${i}`]: { type: 'string' } } };
      expect(validateAgainst(schema, { [`f${i}`]: 'x' })).toEqual([]);
    }
    const stats = schemaCacheStats();
    expect(stats.bytes).toBeLessThanOrEqual(48 * 1024 * 1024);
    expect(stats.entries).toBeLessThan(400);
  });
});
