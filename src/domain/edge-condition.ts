/**
 * Edge conditions written as functions (docs/flows.md, "Flows in code"): in a flow written in code an
 * edge's `when` may be a function of the node just finished instead of a JSONata expression. A
 * function is not data: the flow is stored with `when: inline` in its place, and the function is kept
 * beside the flow (by edge index) by the runtime that was given it.
 */

/**
 * What a function `when` is given about the node just finished: its status, its outputs (a completed
 * node's; none for a failed one) and the run input. The values are copies: changing them changes nothing.
 */
export type EdgeConditionScope<O = Record<string, unknown>> =
  | { readonly status: 'completed'; readonly outputs: O; readonly input: unknown }
  | {
      readonly status: 'failed';
      readonly outputs: { readonly [K in keyof O]?: undefined };
      readonly input: unknown;
    };

/** A function `when`: `true` takes the edge; anything else (false, or a value that is not a boolean) does not. */
export type EdgeCondition<O = Record<string, unknown>> = (scope: EdgeConditionScope<O>) => boolean;

/** What a stored flow says in place of a function `when` (a JSONata path that never means anything else). */
export const INLINE_WHEN = 'inline';
