import { describe, expect, it } from 'vitest';
import { noPositions, parseSource } from '../../src/flow/source.js';

/** A flow file's text parsed into data, with the line and column of any path for problems found later. */

const TEXT = `id: orders
nodes:
  - id: find
    tools: [order_get, order_list]
  - id: tell
    instructions: &say Tell the user.
extra: *say
`;

describe('parseSource', () => {
  it('gives the data and places a path at its value, or at its key', () => {
    const parsed = parseSource(TEXT);
    expect(parsed.syntax).toEqual([]);
    expect(parsed.data).toEqual({
      id: 'orders',
      nodes: [
        { id: 'find', tools: ['order_get', 'order_list'] },
        { id: 'tell', instructions: 'Tell the user.' },
      ],
      extra: 'Tell the user.',
    });
    expect(parsed.locate(['id'])).toEqual({ line: 1, column: 5 });
    expect(parsed.locate(['nodes', 0, 'tools', 1])).toEqual({ line: 4, column: 24 });
    expect(parsed.locate(['nodes', 1, 'instructions'], true)).toEqual({ line: 6, column: 5 });
    expect(parsed.locate([])).toEqual({ line: 1, column: 1 });
  });

  it('places a path that goes past the text at the deepest part that exists', () => {
    const parsed = parseSource(TEXT);
    expect(parsed.locate(['nodes', 0, 'outputs', 'total'])).toEqual({ line: 3, column: 5 });
    expect(parsed.locate(['nodes', 0, 'tools', 0, 'deeper'])).toEqual({ line: 4, column: 13 });
    expect(parsed.locate(['missing'], true)).toEqual({ line: 1, column: 1 });
  });

  it('reads JSON, which is YAML, with positions too', () => {
    const parsed = parseSource('{\n  "id": "x",\n  "nodes": [{ "id": "a" }]\n}');
    expect(parsed.data).toEqual({ id: 'x', nodes: [{ id: 'a' }] });
    expect(parsed.locate(['nodes', 0, 'id'])).toEqual({ line: 3, column: 21 });
  });

  it('reports a duplicate key and a second document as syntax problems, with positions', () => {
    const duplicate = parseSource('id: a\nid: b\n');
    expect(duplicate.data).toBeUndefined();
    expect(duplicate.syntax).toEqual([
      { message: expect.stringMatching(/unique/i), position: { line: 2, column: 1 } },
    ]);
    const two = parseSource('id: a\n---\nid: b\n');
    expect(two.syntax[0]?.message).toContain('expected one YAML document');
    expect(two.syntax[0]?.message).not.toMatch(/at line \d+/);
  });

  it('reports a syntax error with its line and column, and no data', () => {
    const broken = parseSource('id: a\nnodes: [\n');
    expect(broken.data).toBeUndefined();
    expect(broken.syntax.length).toBeGreaterThan(0);
    expect(broken.syntax[0]?.position?.line).toBeGreaterThanOrEqual(2);
  });
});

describe('noPositions', () => {
  it('knows no position (a flow given as an object)', () => {
    expect(noPositions(['id'])).toBeUndefined();
    expect(noPositions([], true)).toBeUndefined();
  });
});
