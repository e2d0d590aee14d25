import { z } from 'zod';

/**
 * The graph parts of the flow format (docs/flows.md, "Edges", "Parallel branches", "Map"): edges
 * (a `to` of one node or several) and map nodes, with the id and expression rules they share with
 * the rest of src/domain/flow.ts.
 */

/** Ids of the flow, its nodes, servers, providers and output keys: they appear in `a.b` references. */
export const ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** The longest JSONata expression a flow may hold: a compiled expression takes ~35× its text in memory. */
export const MAX_EXPRESSION_LENGTH = 8192;

/** The most items a map node runs its body for; more fail the node MAP_TOO_MANY_ITEMS. */
export const MAX_MAP_ITEMS = 100;
/** The highest `map.concurrency`. */
export const MAX_MAP_CONCURRENCY = 16;
/**
 * The most nodes one edge starts at once (a `to` list): a fan-out wider than this is refused when the
 * flow is checked. Every branch is a node run with its own state in the run's document and its own
 * model calls; 64 is far above a hand-drawn fork and keeps one edge from making one run a crowd.
 */
export const MAX_EDGE_TARGETS = 64;
/**
 * The most branches one run holds at once (flows.md, "Parallel branches"). A flow whose `to` lists add
 * up to more, plus its maps' concurrency, is refused when checked; a run that would still start more
 * (edges taken again in a cycle) fails TOO_MANY_BRANCHES. Each commit of a run writes every branch's
 * state, so this bounds what one step of one run costs the process (and so the other tenants).
 */
export const MAX_RUN_BRANCHES = 256;

const id = z.string().regex(ID_PATTERN, { error: 'expected an id: a letter, then letters, digits, _ or -' });
const text = z.string().min(1);

/** A node's `map`: runs another node once per item of a list. */
export const MapSchema = z
  .strictObject({
    over: text
      .max(MAX_EXPRESSION_LENGTH, {
        error: `expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`,
      })
      .describe(
        'The list to map over: a JSONata expression over {input, outputs} (outputs by node id, e.g. `outputs.plan.lines`), or one template reference such as `{{nodes.plan.outputs.lines}}`.',
      ),
    node: id.describe(
      'The node run once per item (its body); it sees the item as `{{item}}` and as `ctx.item` in code nodes. No edge may lead to it.',
    ),
    concurrency: z
      .int()
      .min(1)
      .max(MAX_MAP_CONCURRENCY)
      .default(4)
      .describe(`How many items run at the same time (1-${MAX_MAP_CONCURRENCY}, default 4).`),
  })
  .optional()
  .describe(
    `A map node: runs \`node\` once per item of \`over\` (at most ${MAX_MAP_ITEMS} items); its output is \`items\`, the body's outputs per item in item order (docs/flows.md, "Map").`,
  );

/** An edge between nodes; `to` is one node id or a list of ids that start at once. */
export const EdgeSchema = z.strictObject({
  from: id,
  to: z
    .union([id, z.array(id).min(1)], { error: 'expected a node id or a non-empty list of node ids' })
    .describe('The node to run next, or a list of nodes that all start at once (parallel branches).'),
  when: text
    .max(MAX_EXPRESSION_LENGTH, {
      error: `expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`,
    })
    .describe('JSONata expression over {status, outputs, input} of the node just finished')
    .optional()
    .describe('No `when`: always.'),
});

/** The node ids an edge leads to (`to` as a list, one id or several). */
export function edgeTargets(edge: { to: string | readonly string[] }): string[] {
  return typeof edge.to === 'string' ? [edge.to] : [...edge.to];
}
