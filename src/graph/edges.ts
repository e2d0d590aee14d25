import { INLINE_WHEN, type EdgeCondition, type EdgeConditionScope } from '../domain/edge-condition.js';
import { evaluate, ExpressionError } from '../tools/expressions.js';

/** How long the `when`s of the edges leaving one node may take together (ms of evaluation, not of waiting for the sandbox). */
export const EDGES_BUDGET_MS = 1_000;
import { edgeTargets, type FlowEdge } from '../domain/flow.js';

/** What an edge's `when` sees about the node just finished (docs/flows.md). */
export interface EdgeScope {
  status: 'completed' | 'failed';
  outputs: Record<string, unknown>;
  input: unknown;
}

/** The edges leaving one node with their indexes in the flow, in file order (src/graph/graph-index.ts). */
export interface EdgesFrom {
  readonly entries: readonly (readonly [number, FlowEdge])[];
}

/** The function `when`s of a flow written in code, by edge index (docs/flows.md, "Flows in code"). */
export type EdgeConditions = ReadonlyMap<number, EdgeCondition>;

/**
 * The targets of the first edge leaving `from` whose `when` holds, in file order (one node, or several
 * that start at once); an edge without `when` always holds for a completed node, and never for a failed
 * one (a failed node continues only along an edge that matches its `status = 'failed'`). Null: no edge.
 * A `when` given as a function (in `conditions`, by edge index) holds when it returns `true`; one that
 * throws, or a `when: inline` whose function this runtime was not given, throws (the run fails EDGE_ERROR).
 */
export async function nextNodes(
  edges: readonly FlowEdge[] | EdgesFrom,
  from: string,
  scope: EdgeScope,
  conditions?: EdgeConditions,
): Promise<string[] | null> {
  const meter = { ms: 0 };
  const leaving = Array.isArray(edges)
    ? (edges as readonly FlowEdge[]).entries()
    : (edges as EdgesFrom).entries;
  for (const [i, edge] of leaving) {
    if (edge.from !== from) continue;
    const condition = conditions?.get(i);
    if (condition !== undefined || edge.when === INLINE_WHEN) {
      if (callCondition(condition, scope, i, edge)) return edgeTargets(edge);
      continue;
    }
    if (edge.when === undefined) {
      if (scope.status === 'completed') return edgeTargets(edge);
      continue;
    }
    if (meter.ms > EDGES_BUDGET_MS)
      throw new ExpressionError(
        'EVALUATE',
        edge.when,
        `the conditions of the edges leaving ${from} took longer than ${EDGES_BUDGET_MS} ms together`,
      );
    const value = await evaluate(edge.when, scope, { meter });
    if (value === true) return edgeTargets(edge);
  }
  return null;
}

/** Calls a function `when` with copies of the scope's values; throws when there is none or it throws. */
function callCondition(
  condition: EdgeCondition | undefined,
  scope: EdgeScope,
  index: number,
  edge: FlowEdge,
): boolean {
  const name = `the when of edges[${index}] (${edge.from} → ${edgeTargets(edge).join(', ')})`;
  if (condition === undefined)
    throw new Error(
      `${name} is a function of a flow written in code that this runtime was not given; give the flow to createRuntime({ flows }) to continue its runs, then retry the run`,
    );
  const copy = {
    status: scope.status,
    outputs: structuredClone(scope.outputs),
    input: structuredClone(scope.input),
  };
  try {
    return condition(copy as EdgeConditionScope) === true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${name} threw: ${message}`, { cause: error });
  }
}
