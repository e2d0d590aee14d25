import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { schemaProblems, typeOf } from '../../src/flow/schema-issues.js';

/** zod issues turned into problems in the words of the flow format, with the meant union branch picked. */

const Server = z.union([
  z.strictObject({ command: z.string().min(1), args: z.array(z.string()).optional() }),
  z.strictObject({ url: z.url(), headers: z.record(z.string(), z.string()).optional() }),
]);
const Schema = z.strictObject({
  id: z.string().regex(/^[a-z]+$/, { error: 'expected an id: lower-case letters' }),
  version: z.int().positive().optional(),
  locale: z.enum(['en', 'zh-CN']).optional(),
  kind: z.literal('flow').optional(),
  nodes: z
    .array(z.strictObject({ id: z.string().min(1), tools: z.array(z.string()).max(2).optional() }))
    .min(1),
  servers: z.record(z.string(), Server).optional(),
  budget: z.number().min(1).optional(),
  names: z
    .record(z.string().regex(/^[a-z]+$/, { error: 'expected lower-case letters' }), z.string())
    .optional(),
});

function problems(data: unknown): { path: string; message: string; atKey?: boolean }[] {
  const parsed = Schema.safeParse(data);
  if (parsed.success) return [];
  return schemaProblems(Schema, parsed.error.issues, data).map((p) => ({
    path: p.path.join('.'),
    message: p.message,
    ...(p.atKey ? { atKey: true } : {}),
  }));
}

const valid = { id: 'flow', nodes: [{ id: 'a' }] };

describe('schemaProblems', () => {
  it('finds nothing in a valid value', () => {
    expect(problems(valid)).toEqual([]);
  });

  it('names an unknown key at the key, with the nearest allowed one and the full list', () => {
    expect(problems({ ...valid, nodes: [{ id: 'a', tool: ['x'] }] })).toEqual([
      {
        path: 'nodes.0.tool',
        atKey: true,
        message: 'unknown key "tool" (did you mean "tools"?); expected one of: id, tools',
      },
    ]);
  });

  it('says what was expected and what was found, or that a key is required', () => {
    expect(problems({ nodes: 'a' })).toEqual([
      { path: 'id', message: 'required; expected a string' },
      { path: 'nodes', message: 'expected a list, got "a"' },
    ]);
    expect(problems({ ...valid, version: 1.5 })).toEqual([
      { path: 'version', message: 'expected an integer, got the number 1.5' },
    ]);
  });

  it('words bounds, enums, literals and the regex message of the schema', () => {
    expect(problems({ ...valid, nodes: [] })).toEqual([
      { path: 'nodes', message: 'expected at least 1 item' },
    ]);
    expect(problems({ ...valid, nodes: [{ id: '' }] })).toEqual([
      { path: 'nodes.0.id', message: 'expected a non-empty string' },
    ]);
    expect(problems({ ...valid, nodes: [{ id: 'a', tools: ['x', 'y', 'z'] }] })).toEqual([
      { path: 'nodes.0.tools', message: 'expected at most 2 items' },
    ]);
    expect(problems({ ...valid, version: 0 })).toEqual([
      { path: 'version', message: 'expected a positive number' },
    ]);
    expect(problems({ ...valid, budget: 0.5 })).toEqual([
      { path: 'budget', message: 'expected a number >= 1' },
    ]);
    expect(problems({ ...valid, locale: 'fr' })).toEqual([
      { path: 'locale', message: 'expected one of: "en", "zh-CN"; got "fr"' },
    ]);
    expect(problems({ ...valid, kind: 'graph' })).toEqual([
      { path: 'kind', message: 'expected "flow", got "graph"' },
    ]);
    expect(problems({ ...valid, id: 'Flow' })).toEqual([
      { path: 'id', message: 'expected an id: lower-case letters; got "Flow"' },
    ]);
  });

  it('reports the problems of the union branch the object means, not of every branch', () => {
    expect(problems({ ...valid, servers: { shop: { url: 'not a url' } } })).toEqual([
      { path: 'servers.shop.url', message: 'expected an absolute URL; got "not a url"' },
    ]);
    expect(problems({ ...valid, servers: { local: { command: 'npx', env: {} } } })).toEqual([
      {
        path: 'servers.local.env',
        atKey: true,
        message: 'unknown key "env"; expected one of: command, args',
      },
    ]);
  });

  it("lists the keys of the branch that refused a key, not of a branch that has it (a tie's first)", () => {
    // One key of each branch: a tie; `args` belongs to the stdio branch, so the list is the URL one's.
    expect(problems({ ...valid, servers: { web: { url: 'https://x.example/mcp', args: [] } } })).toEqual([
      {
        path: 'servers.web.args',
        atKey: true,
        message: 'unknown key "args"; expected one of: url, headers',
      },
    ]);
  });

  it("keeps a length bound's own words, and says characters for a string", () => {
    const Bound = z.strictObject({
      when: z.string().max(4, { error: 'expected an expression of at most 4 characters' }),
      name: z.string().max(3).optional(),
    });
    const data = { when: 'a or b', name: 'abcd' };
    const parsed = Bound.safeParse(data);
    expect(parsed.success).toBe(false);
    const found = schemaProblems(Bound, parsed.error?.issues ?? [], data).map((p) => [
      p.path.join('.'),
      p.message,
    ]);
    expect(found).toEqual([
      ['when', 'expected an expression of at most 4 characters'],
      ['name', 'expected at most 3 characters'],
    ]);
  });

  it('lists the types a union accepts when the value is not an object', () => {
    expect(problems({ ...valid, servers: { shop: 'https://shop.example' } })).toEqual([
      { path: 'servers.shop', message: 'expected a mapping, got "https://shop.example"' },
    ]);
  });

  it('names a bad key of a mapping at the key', () => {
    expect(problems({ ...valid, names: { Bad: 'x' } })).toEqual([
      { path: 'names.Bad', atKey: true, message: 'key "Bad": expected lower-case letters' },
    ]);
  });
});

describe('typeOf', () => {
  it('names a YAML or JSON value for `got …`', () => {
    expect([null, [], {}, 'x', 2, false, undefined].map(typeOf)).toEqual([
      'null',
      'a list',
      'a mapping',
      '"x"',
      'the number 2',
      'false',
      'undefined',
    ]);
  });
});
