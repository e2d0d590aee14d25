import { describe, expect, it } from 'vitest';
import {
  compileSchema,
  MAX_SCHEMA_ERRORS,
  MAX_SUBSCHEMAS,
  metaSchemaErrors,
  releaseSchemas,
  SCHEMA_CACHE_BYTES,
  schemaCacheStats,
  VALIDATION_BUDGET_MS,
} from '../../src/domain/schema-engine.js';
import { BUDGET_KEYWORD, withBudget } from '../../src/domain/schema-keywords.js';

/**
 * The one place JSON Schemas are compiled and values validated (src/domain/schema-engine.ts): the two
 * profiles, the dialects, the validator's two ways of answering, at most 20 errors, linear
 * `uniqueItems`, the cache and its release. The budgets under load are test/security/schema-*.test.ts.
 */

/** A schema no other suite compiles (the cache is shared by the files of a worker). */
let serial = 0;
function fresh(schema: Record<string, unknown>): Record<string, unknown> {
  serial += 1;
  return { title: `schema-engine.test ${serial} ${Math.random()}`, ...schema };
}

describe('the published limits', () => {
  it('are 20 errors, 250 ms and 500 subschemas', () => {
    expect(MAX_SCHEMA_ERRORS).toBe(20);
    expect(VALIDATION_BUDGET_MS).toBe(250);
    expect(MAX_SUBSCHEMAS).toBe(500);
  });
});

describe('a validator', () => {
  it('answers like an Ajv function: a boolean, then errors (null once a value is valid)', () => {
    const validate = compileSchema(
      fresh({ type: 'object', required: ['n'], properties: { n: { type: 'integer' } } }),
    );
    expect(validate({ n: 'x' })).toBe(false);
    expect(validate.errors).toMatchObject([
      { keyword: 'type', instancePath: '/n', params: { type: 'integer' } },
    ]);
    expect(validate({ n: 3 })).toBe(true);
    expect(validate.errors).toBeNull();
    expect(validate({})).toBe(false);
    expect(validate.errors).toMatchObject([{ keyword: 'required', params: { missingProperty: 'n' } }]);
  });

  it('answers through check with an outcome, and complete: true when every error is listed', () => {
    const validate = compileSchema(fresh({ type: 'array', items: { type: 'string' } }));
    expect(validate.check(['a'])).toEqual({ ok: true });
    const outcome = validate.check(['a', 1, 2]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.complete).toBe(true);
    expect(outcome.errors.map((e) => e.instancePath)).toEqual(['/1', '/2']);
  });

  it('keeps the schema it compiled, without the budget keyword', () => {
    const schema = fresh({ type: 'string' });
    const validate = compileSchema(schema);
    expect(validate.schema).toBe(schema);
    expect(BUDGET_KEYWORD in validate.schema).toBe(false);
  });

  it('returns at most 20 errors, and says the list is incomplete past them', () => {
    const schema = fresh({ type: 'array', items: { type: 'string' } });
    const validate = compileSchema(schema);
    const exactly = validate.check(Array.from({ length: MAX_SCHEMA_ERRORS }, (_, i) => i));
    expect(exactly).toMatchObject({ ok: false, complete: true });
    if (!exactly.ok) expect(exactly.errors).toHaveLength(20);
    const more = validate.check(Array.from({ length: MAX_SCHEMA_ERRORS + 1 }, (_, i) => i));
    expect(more).toMatchObject({ ok: false, complete: false });
    if (!more.ok) {
      expect(more.errors).toHaveLength(20);
      expect(more.errors[19]?.instancePath).toBe('/19');
    }
    expect(validate(Array.from({ length: 50 }, (_, i) => i))).toBe(false);
    expect(validate.errors).toHaveLength(20);
  });
});

describe('the flow profile (flow files)', () => {
  it('refuses a schema with an unknown keyword', () => {
    expect(() => compileSchema(fresh({ type: 'string', maxLen: 3 }))).toThrow(/unknown keyword: "maxLen"/);
  });

  it('does not check formats', () => {
    const validate = compileSchema(fresh({ type: 'string', format: 'email' }));
    expect(validate('not an email')).toBe(true);
  });

  it('accepts union types', () => {
    const validate = compileSchema(fresh({ type: ['string', 'null'] }));
    expect([validate('a'), validate(null), validate(1)]).toEqual([true, true, false]);
  });
});

describe('the tool profile (tool argument schemas)', () => {
  it('ignores unknown keywords', () => {
    const validate = compileSchema(fresh({ type: 'string', 'x-widget': 'textarea' }), { profile: 'tool' });
    expect(validate('text')).toBe(true);
  });

  it.each([
    ['date', '2026-12-07', '07/12/2026'],
    ['time', '15:26:27Z', '3pm'],
    ['date-time', '2026-12-07T15:26:27.5+01:00', '2026-12-07 15:26'],
    ['email', 'ops@example.com', 'ops@example'],
    ['uri', 'https://example.com/a%20b', 'example.com'],
    ['uuid', '123e4567-e89b-12d3-a456-426614174000', '123e4567e89b12d3a456426614174000'],
    ['ipv4', '192.168.0.255', '192.168.0.256'],
  ])('checks the %s format', (format, good, bad) => {
    const validate = compileSchema(fresh({ type: 'string', format }), { profile: 'tool' });
    expect(validate(good)).toBe(true);
    expect(validate(bad)).toBe(false);
    expect(validate.errors).toMatchObject([{ keyword: 'format', params: { format } }]);
  });

  it('passes a format it does not know', () => {
    const validate = compileSchema(fresh({ type: 'string', format: 'hostname' }), { profile: 'tool' });
    expect(validate('not a hostname!')).toBe(true);
  });

  it('reads another draft named in $schema as draft-07', () => {
    const validate = compileSchema(
      fresh({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'integer', minimum: 2 }),
      { profile: 'tool' },
    );
    expect([validate(2), validate(1), validate(2.5)]).toEqual([true, false, false]);
  });

  it('compiles the same schema apart from its flow-profile validator', () => {
    const schema = fresh({ type: 'string', format: 'email' });
    const asFlow = compileSchema(schema);
    const asTool = compileSchema(schema, { profile: 'tool' });
    expect(asTool).not.toBe(asFlow);
    expect([asFlow('x'), asTool('x')]).toEqual([true, false]);
  });
});

describe('dialects', () => {
  it('2020-12 reads prefixItems', () => {
    const validate = compileSchema(
      fresh({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'array',
        prefixItems: [{ type: 'string' }, { type: 'number' }],
        items: false,
      }),
    );
    expect([validate(['a', 1]), validate([1, 'a']), validate(['a', 1, 2])]).toEqual([true, false, false]);
  });

  it('2019-09 reads dependentRequired', () => {
    const validate = compileSchema(
      fresh({
        $schema: 'https://json-schema.org/draft/2019-09/schema',
        type: 'object',
        dependentRequired: { card: ['cvc'] },
      }),
    );
    expect([validate({ card: 1, cvc: 2 }), validate({ card: 1 }), validate({})]).toEqual([true, false, true]);
  });

  it('draft-07 (the default) does not know prefixItems: the flow profile refuses it', () => {
    expect(() => compileSchema(fresh({ type: 'array', prefixItems: [{ type: 'string' }] }))).toThrow(
      /unknown keyword: "prefixItems"/,
    );
  });
});

describe('uniqueItems', () => {
  it('finds equal JSON values whatever their key order, and names both items', () => {
    const validate = compileSchema(fresh({ type: 'array', uniqueItems: true }));
    expect(
      validate([
        { a: 1, b: [1, 2] },
        { b: [1, 2], a: 1 },
      ]),
    ).toBe(false);
    expect(validate.errors).toMatchObject([
      {
        keyword: 'uniqueItems',
        instancePath: '',
        params: { i: 0, j: 1 },
        message: 'must NOT have duplicate items (items ## 1 and 0 are identical)',
      },
    ]);
  });

  it('tells apart values JSON tells apart, and ignores uniqueItems: false', () => {
    const validate = compileSchema(fresh({ type: 'array', uniqueItems: true }));
    expect(validate([1, '1', [1], { a: 1 }, { a: '1' }, null, [null]])).toBe(true);
    expect(
      validate([
        [1, 2],
        [2, 1],
      ]),
    ).toBe(true);
    expect(validate(['x', 'y', 'x'])).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ i: 0, j: 2 });
    const off = compileSchema(fresh({ type: 'array', uniqueItems: false }));
    expect(off([1, 1])).toBe(true);
  });
});

describe('metaSchemaErrors', () => {
  it('is null for a valid schema of its dialect', () => {
    expect(metaSchemaErrors({ type: 'object', properties: { a: { type: 'string' } } })).toBeNull();
    expect(
      metaSchemaErrors({ $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{}] }),
    ).toBeNull();
  });

  it('lists what breaks the meta-schema', () => {
    const errors = metaSchemaErrors({ type: 'numbr' });
    expect(errors).not.toBeNull();
    expect(errors?.length).toBeGreaterThan(0);
    expect(errors?.some((e) => e.instancePath === '/type')).toBe(true);
    expect(metaSchemaErrors({ required: 'name' })?.[0]?.instancePath).toBe('/required');
    expect(metaSchemaErrors({ type: 'array', uniqueItems: 'yes' })?.[0]?.instancePath).toBe('/uniqueItems');
  });

  it('refuses a repeated required name (uniqueItems of the meta-schema, in linear time)', () => {
    expect(metaSchemaErrors({ type: 'object', required: ['a', 'b', 'a'] })?.[0]).toMatchObject({
      keyword: 'uniqueItems',
      instancePath: '/required',
    });
  });
});

describe('subschemas', () => {
  const withProperties = (n: number): Record<string, unknown> =>
    fresh({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }])),
    });

  it('a schema of 500 subschemas compiles; one of 501 is refused', () => {
    expect(compileSchema(withProperties(MAX_SUBSCHEMAS - 1))({ p0: 'x' })).toBe(true);
    expect(() => compileSchema(withProperties(MAX_SUBSCHEMAS))).toThrow(
      'the schema has 501 subschemas; at most 500 are accepted',
    );
  });

  it('withBudget counts every object subschema and marks each, without changing the schema given', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'string' } }, b: true },
      anyOf: [{ required: ['a'] }, { not: { required: ['b'] } }],
      $defs: { x: { type: 'number' } },
      items: [{ type: 'string' }, {}],
    };
    const copy = JSON.parse(JSON.stringify(schema)) as unknown;
    const budgeted = withBudget(schema);
    // root, a, a.items, anyOf[0], anyOf[1], anyOf[1].not, $defs.x, items[0], items[1]; `b: true` is no object.
    expect(budgeted.nodes).toBe(9);
    expect(schema).toEqual(copy);
    const out = budgeted.schema as Record<string, Record<string, Record<string, unknown>>>;
    expect(out[BUDGET_KEYWORD]).toBe(true);
    expect(out.properties?.a?.[BUDGET_KEYWORD]).toBe(true);
    expect(out.properties?.b).toBe(true);
    expect((out.properties?.a?.items as Record<string, unknown>)[BUDGET_KEYWORD]).toBe(true);
  });
});

describe('the cache', () => {
  it('gives the same validator for the same schema object and for an equal text', () => {
    const schema = fresh({ type: 'integer' });
    const first = compileSchema(schema);
    expect(compileSchema(schema)).toBe(first);
    expect(compileSchema(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>)).toBe(first);
  });

  it('holds one more entry per new schema, counts its bytes, and gives them back on release', () => {
    const schema = fresh({ type: 'boolean' });
    const before = schemaCacheStats();
    // The cache is shared by the suites of this worker: far below its bound, nothing is evicted.
    expect(before.bytes).toBeLessThan(SCHEMA_CACHE_BYTES / 2);
    compileSchema(schema);
    const after = schemaCacheStats();
    expect(after.entries).toBe(before.entries + 1);
    expect(after.bytes).toBeGreaterThan(before.bytes);
    expect(releaseSchemas(schema)).toBe(1);
    expect(schemaCacheStats()).toEqual(before);
  });

  it('releaseSchemas drops the validators of every schema object inside a value, each profile', () => {
    const input = fresh({ type: 'object' });
    const param = fresh({ type: 'string', maxLength: 3 });
    const flow = { input, tools: { t: { params: { p: { schema: param } } } }, loop: null as unknown };
    flow.loop = flow;
    const inputValidator = compileSchema(input);
    compileSchema(param);
    compileSchema(param, { profile: 'tool' });
    expect(releaseSchemas(flow)).toBe(3);
    expect(releaseSchemas(flow)).toBe(0);
    const again = compileSchema(input);
    expect(again).not.toBe(inputValidator);
    expect(again({})).toBe(true);
  });

  it('releaseSchemas of a value holding no compiled schema drops nothing', () => {
    expect(releaseSchemas(fresh({ type: 'string' }))).toBe(0);
    expect(releaseSchemas(null)).toBe(0);
    expect(releaseSchemas('text')).toBe(0);
  });
});
