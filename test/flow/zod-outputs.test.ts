import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isZodSchema, withJsonSchemas } from '../../src/flow/zod-outputs.js';

/** A code flow's zod output schemas replaced by their JSON Schema form before the flow is validated. */

describe('isZodSchema', () => {
  it('tells a zod schema from a JSON Schema and from other values', () => {
    expect(isZodSchema(z.string())).toBe(true);
    expect(isZodSchema(z.object({ a: z.number() }).optional())).toBe(true);
    for (const other of [{ type: 'string' }, { _zod: {} }, null, 'string', undefined])
      expect(isZodSchema(other)).toBe(false);
  });
});

describe('withJsonSchemas', () => {
  it('replaces each zod schema by its JSON Schema (output side, no $schema), copying, never changing the source', () => {
    const total = z.number().int().min(0);
    const source = {
      id: 'f',
      nodes: [
        { id: 'plain', outputs: { note: { sources: ['model'], schema: { type: 'string' } } } },
        {
          id: 'typed',
          outputs: {
            total: { sources: ['model'], required: true, schema: total },
            // The output side: a default makes the key required in what a run holds.
            lines: { sources: ['model'], schema: z.object({ sku: z.string(), qty: z.number().default(1) }) },
          },
        },
      ],
    };
    const { data, problems } = withJsonSchemas(source);
    expect(problems).toEqual([]);
    const nodes = (data as typeof source).nodes;
    expect(nodes[0]).toBe(source.nodes[0]);
    expect(nodes[1]?.outputs).toEqual({
      total: {
        sources: ['model'],
        required: true,
        schema: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      },
      lines: {
        sources: ['model'],
        schema: {
          type: 'object',
          properties: { sku: { type: 'string' }, qty: { type: 'number', default: 1 } },
          required: ['sku', 'qty'],
          additionalProperties: false,
        },
      },
    });
    expect(source.nodes[1]?.outputs.total?.schema).toBe(total);
    expect(JSON.parse(JSON.stringify(data))).toEqual(data);
  });

  it('names each zod schema that has no JSON Schema form, by path, and leaves an empty schema in its place', () => {
    const source = {
      nodes: [
        { id: 'a', outputs: { ok: { sources: ['model'], schema: z.string() } } },
        { id: 'b', outputs: { when: { sources: ['model'], schema: z.date() } } },
      ],
    };
    const { data, problems } = withJsonSchemas(source);
    expect(problems).toEqual([
      {
        path: ['nodes', 1, 'outputs', 'when', 'schema'],
        message: expect.stringMatching(
          /^the zod schema has no JSON Schema form \(.+\); expected a schema of plain JSON values$/,
        ),
      },
    ]);
    expect(
      (data as { nodes: { outputs: Record<string, { schema: unknown }> }[] }).nodes[1]?.outputs.when?.schema,
    ).toEqual({});
  });

  it('gives back the source itself when it holds no zod schema', () => {
    for (const source of [
      { nodes: [{ id: 'a', outputs: { k: { sources: ['model'], schema: { type: 'string' } } } }] },
      { nodes: [{ id: 'a', outputs: ['not', 'a', 'mapping'] }, null] },
      { nodes: 'none' },
      {},
    ]) {
      const { data, problems } = withJsonSchemas(source);
      expect(data).toBe(source);
      expect(problems).toEqual([]);
    }
  });
});
