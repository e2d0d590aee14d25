import { evaluate, ExpressionError } from '../tools/expressions.js';

/** How long the `when`s of the edges leaving one node may take together (ms of evaluation, not of waiting for the sandbox). */
export const EDGES_BUDGET_MS = 1_000;
import type { FlowEdge } from '../domain/flow.js';

/** What an edge's `when` sees about the node just finished (docs/flows.md). */
export interface EdgeScope {
  status: 'completed' | 'failed';
  outputs: Record<string, unknown>;
  input: unknown;
}

/**
 * The first edge leaving `from` whose `when` holds, in file order; an edge without `when` always
 * holds for a completed node, and never for a failed one (a failed node continues only along an
 * edge that matches its `status = 'failed'`).
 */
export async function nextNode(
  edges: readonly FlowEdge[],
  from: string,
  scope: EdgeScope,
): Promise<string | null> {
  const meter = { ms: 0 };
  for (const edge of edges) {
    if (edge.from !== from) continue;
    if (edge.when === undefined) {
      if (scope.status === 'completed') return edge.to;
      continue;
    }
    if (meter.ms > EDGES_BUDGET_MS)
      throw new ExpressionError(
        'EVALUATE',
        edge.when,
        `the conditions of the edges leaving ${from} took longer than ${EDGES_BUDGET_MS} ms together`,
      );
    const value = await evaluate(edge.when, scope, { meter });
    if (value === true) return edge.to;
  }
  return null;
}
