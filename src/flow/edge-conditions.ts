import { INLINE_WHEN, type EdgeCondition } from '../domain/edge-condition.js';
import type { Flow } from '../domain/flow.js';
import type { RawProblem } from './problems.js';

/**
 * Function `when`s of flows written in code (docs/flows.md, "Flows in code"): taken out of the flow
 * object before it is validated (a flow is persisted with its runs as JSON data, with `when: inline`
 * in their place) and kept by edge index; and the check that every `when: inline` has its function.
 */

/** The flow object with each function `when` replaced by `when: inline`, and those functions by edge index. */
export function withEdgeConditions(source: object): {
  data: object;
  conditions: Map<number, EdgeCondition>;
} {
  const conditions = new Map<number, EdgeCondition>();
  const edges = (source as { edges?: unknown }).edges;
  if (!Array.isArray(edges) || !edges.some(hasFunctionWhen)) return { data: source, conditions };
  const converted = edges.map((edge: unknown, i) => {
    if (!hasFunctionWhen(edge)) return edge;
    const { when, ...rest } = edge as { when: EdgeCondition };
    conditions.set(i, when);
    return { ...rest, when: INLINE_WHEN };
  });
  return { data: { ...source, edges: converted }, conditions };
}

/**
 * `when: inline` written in a flow (YAML, JSON, or an object) without a function for it: the marker a
 * stored flow carries in place of a function, never an expression of its own.
 */
export function conditionProblems(flow: Flow, conditions: ReadonlyMap<number, EdgeCondition>): RawProblem[] {
  const problems: RawProblem[] = [];
  flow.edges.forEach((edge, i) => {
    if (edge.when === INLINE_WHEN && !conditions.has(i))
      problems.push({
        path: ['edges', i, 'when'],
        message:
          'when: inline stands for a function in flows written in code; a YAML or JSON flow writes a JSONata expression (e.g. "status = \'completed\'")',
      });
  });
  return problems;
}

function hasFunctionWhen(edge: unknown): boolean {
  return typeof edge === 'object' && edge !== null && typeof (edge as { when?: unknown }).when === 'function';
}
