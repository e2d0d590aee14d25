import { describe, expect, it } from 'vitest';
import { INLINE_WHEN, type EdgeCondition } from '../../src/domain/edge-condition.js';
import { FlowSchema } from '../../src/domain/flow.js';
import { conditionProblems, withEdgeConditions } from '../../src/flow/edge-conditions.js';
import { jsonataProblem } from '../../src/flow/expressions.js';

/** Function `when`s of code flows, kept by edge index, and the JSONata syntax check of expressions. */

describe('withEdgeConditions', () => {
  it('takes each function out by edge index and puts `when: inline` in its place, leaving the source as it was', () => {
    const done = () => true;
    const failed = () => false;
    const source = {
      id: 'f',
      edges: [
        { from: 'a', to: 'b', when: done },
        { from: 'a', to: 'c', when: "status = 'failed'" },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'd', when: failed },
      ],
    };
    const { data, conditions } = withEdgeConditions(source);
    expect([...conditions]).toEqual([
      [0, done],
      [3, failed],
    ]);
    expect((data as typeof source).edges).toEqual([
      { from: 'a', to: 'b', when: INLINE_WHEN },
      { from: 'a', to: 'c', when: "status = 'failed'" },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'd', when: INLINE_WHEN },
    ]);
    expect(source.edges[0]?.when).toBe(done);
    expect(JSON.parse(JSON.stringify(data))).toEqual(data); // what is stored is data alone
  });

  it('gives back the same object when no edge has a function', () => {
    for (const source of [{ edges: [{ from: 'a', to: 'b', when: 'true' }] }, { edges: 'nope' }, {}]) {
      const { data, conditions } = withEdgeConditions(source);
      expect(data).toBe(source);
      expect(conditions.size).toBe(0);
    }
  });
});

describe('conditionProblems', () => {
  const flow = FlowSchema.parse({
    id: 'f',
    nodes: [
      { id: 'a', instructions: 'a' },
      { id: 'b', instructions: 'b' },
    ],
    edges: [
      { from: 'a', to: 'b', when: INLINE_WHEN },
      { from: 'b', to: 'a', when: INLINE_WHEN },
    ],
  });

  it('names each `when: inline` without its function, by path', () => {
    const problems = conditionProblems(flow, new Map([[1, () => true]]));
    expect(problems).toEqual([
      { path: ['edges', 0, 'when'], message: expect.stringContaining('when: inline') },
    ]);
    expect(problems[0]?.message).toContain('a YAML or JSON flow writes a JSONata expression');
  });

  it('finds nothing when every `when: inline` has its function', () => {
    expect(
      conditionProblems(
        flow,
        new Map<number, EdgeCondition>([
          [0, () => true],
          [1, () => false],
        ]),
      ),
    ).toEqual([]);
  });
});

describe('jsonataProblem', () => {
  it('accepts expressions that parse, without evaluating them', () => {
    for (const ok of ["status = 'completed'", 'outputs.total > 100 and input.vip', '$undefinedFn(1)'])
      expect(jsonataProblem(ok)).toBeUndefined();
  });

  it('says what is wrong and where', () => {
    expect(jsonataProblem("status = 'completed")).toBe(
      'expected a JSONata expression: String literal must be terminated by a matching quote at character 19',
    );
    // The token is named unless the message already names it.
    expect(jsonataProblem('outputs.(')).toBe(
      'expected a JSONata expression: Expected ")" before end of expression near "(end)" at character 9',
    );
    expect(jsonataProblem('a b')).toBe('expected a JSONata expression: Syntax error: "b" at character 3');
  });
});
