import type { CodeFlowEdge, CodeFlowInput } from './typed-outputs.js';

type IdOf<N> = N extends { readonly id: infer I extends string } ? I : never;

/** The edges `defineFlow` accepts for flow `F`: `from` and every `to` name one of its nodes. */
export type CheckedEdges<F extends CodeFlowInput> = {
  edges?: (Omit<CodeFlowEdge, 'from' | 'to'> & {
    from: IdOf<F['nodes'][number]>;
    to: IdOf<F['nodes'][number]> | [IdOf<F['nodes'][number]>, ...IdOf<F['nodes'][number]>[]];
  })[];
};

/**
 * Returns the flow as given (docs/flows.md, "Typed outputs"): it only types a code flow, so editors check
 * its keys, an edge's `from` and `to` must name its nodes, and `loadFlow` / `runtime.start` infer the
 * outputs' types from its zod output schemas. A flow kept in a variable without it loses its literal
 * node ids (add `as const` instead). For `when` functions typed by their node's outputs, use `flowBuilder`.
 */
export function defineFlow<const F extends CodeFlowInput>(flow: F & CheckedEdges<NoInfer<F>>): F {
  return flow;
}
