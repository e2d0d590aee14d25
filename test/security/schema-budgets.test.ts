import { describe, expect, it } from 'vitest';
import { schemaCacheStats } from '../../src/domain/schema-engine.js';
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
    // 600 KB of input: the validation stops after 100 errors.
    const { value: big, ms } = timed(() =>
      validateAgainst(schema, { who: Array.from({ length: 60_000 }, () => 'nobody-x') }),
    );
    expect(big).toHaveLength(21);
    expect(big[19]).toMatch(/^who\[19\]: expected one of: /);
    expect(JSON.stringify(big).length).toBeLessThan(8_000);
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
    ]);
    expect(duplicate.ms).toBeLessThan(1_000);
  });

  it('stops a recursive schema that would take exponential time at its budget, and refuses the value', () => {
    // Valid all the way down, so no error cuts it short: 2^40 evaluations without the budget.
    const schema = { type: 'array', items: { allOf: [{ $ref: '#' }, { $ref: '#' }] } };
    let value: unknown = [];
    for (let i = 0; i < 40; i++) value = [value];
    const { value: problems, ms } = timed(() => validateAgainst(schema, value));
    expect(problems).toEqual([
      '(input): could not be checked within 250 ms; simplify the schema or send a smaller value',
      '(further problems not listed)',
    ]);
    expect(ms).toBeLessThan(1_500);
    const tool = {
      type: 'object',
      properties: { a: { $ref: '#/definitions/n' } },
      definitions: {
        n: { type: 'array', items: { allOf: [{ $ref: '#/definitions/n' }, { $ref: '#/definitions/n' }] } },
      },
    };
    const args = checkSchema(tool, { a: value }, 'en', logger);
    expect(args.violations).toEqual([
      { field: '(root)', rule: 'could not be checked within 250 ms; send a smaller value' },
    ]);
  });

  it('stops collecting errors that multiply (rules × items) after 100, in time and memory', () => {
    const names = Array.from({ length: 1_000 }, (_, i) => `p${i}`);
    const schema = { type: 'array', items: { type: 'object', required: names } };
    const before = process.memoryUsage().heapUsed;
    const { value: problems, ms } = timed(() =>
      validateAgainst(
        schema,
        Array.from({ length: 5_000 }, () => ({})),
      ),
    );
    expect(problems).toHaveLength(21);
    expect(problems[0]).toBe('[0].p0: required');
    expect(ms).toBeLessThan(1_000);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('still accepts a value one anyOf branch accepts when another branch collects many errors', () => {
    const schema = {
      anyOf: [
        { type: 'array', items: { type: 'string' } },
        { type: 'array', items: { type: 'number' } },
      ],
    };
    expect(
      validateAgainst(
        schema,
        Array.from({ length: 500 }, (_, i) => i),
      ),
    ).toEqual([]);
    expect(validateAgainst(schema, [...Array.from({ length: 500 }, (_, i) => i), 'x'])).not.toEqual([]);
  });

  it('refuses a schema of more than 500 subschemas (compiling it would hold the server)', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 600 }, (_, i) => [`f${i}`, { type: 'string' }]),
    );
    const { value: issues, ms } = timed(() => jsonSchemaIssues({ type: 'object', properties }));
    expect(issues).toEqual([
      {
        path: [],
        message: 'expected a valid JSON Schema: the schema has 601 subschemas; at most 500 are accepted',
      },
    ]);
    expect(ms).toBeLessThan(500);
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
