import type { EdgeCondition } from '../domain/edge-condition.js';
import type { CodeFlowEdge, CodeFlowInput, CodeFlowNode, OutputsOf } from './typed-outputs.js';

/**
 * The typed flow builder (docs/flows.md, "Flows in code"): a flow written in code, node by node and
 * edge by edge, in which TypeScript checks what a flow object cannot: an edge's `from` and `to` name
 * nodes added before, a node id is not used twice, and a function `when` reads only outputs its `from`
 * node declares (typed by their zod schemas). `build()` returns a plain flow object for `loadFlow`,
 * `runtime.start` and `createRuntime({ flows })`, whose runs' outputs are typed as with `defineFlow`.
 * Types only check: `loadFlow` still checks everything at run time.
 */

/** The flow keys other than `nodes` and `edges` (id, version, model, locale, limits, tools, …). */
export type FlowSettings = Omit<CodeFlowInput, 'nodes' | 'edges'>;

type IdOf<N> = N extends { readonly id: infer I extends string } ? I : never;
type IdsOf<N extends readonly CodeFlowNode[]> = IdOf<N[number]>;

/** The outputs a completed node `F` of nodes `N` gives a function `when` (a map node's: `items`). */
export type OutputsOfNode<N extends readonly CodeFlowNode[], F extends string> = OutputsOf<
  Extract<N[number], { readonly id: F }>,
  N[number]
>;

/** Where an edge goes: one node id, or a non-empty list of node ids that start at once. */
export type EdgeTarget<I extends string> = I | readonly [I, ...I[]];

/** The options of `edge()`: `when`, a JSONata expression or a function of the node just finished. */
export interface EdgeOptions<O> {
  readonly when?: string | EdgeCondition<O>;
}

/** A node whose id is new among `N` (a reused id makes `id` expect `never`). */
type NewNode<X extends CodeFlowNode, N extends readonly CodeFlowNode[]> =
  IdOf<X> extends IdsOf<N> ? X & { readonly id: never } : X;

/** An immutable builder: each call returns a new builder; `build()` gives the flow object. */
export class FlowBuilder<S extends FlowSettings, N extends CodeFlowNode[]> {
  /** Use `flowBuilder(settings)`. */
  constructor(
    private readonly settings: S,
    private readonly nodes: N,
    private readonly edges: readonly CodeFlowEdge[],
  ) {}

  /** Adds a node (model or code, exactly as in a flow object); the first node added runs first. */
  node<const X extends CodeFlowNode>(node: NewNode<X, N>): FlowBuilder<S, [...N, X]> {
    return new FlowBuilder<S, [...N, X]>(this.settings, [...this.nodes, node], this.edges);
  }

  /**
   * Adds an edge from a node added before to one (or several, which start at once) added before. The
   * first edge leaving a node whose `when` holds is taken, in the order the edges were added.
   */
  edge<const F extends IdsOf<N>>(
    from: F,
    to: EdgeTarget<IdsOf<N>>,
    options: EdgeOptions<OutputsOfNode<N, F>> = {},
  ): FlowBuilder<S, N> {
    const edge: CodeFlowEdge = {
      from,
      to: typeof to === 'string' ? to : [...(to as readonly string[])],
      ...(options.when !== undefined ? { when: options.when as string | EdgeCondition } : {}),
    };
    return new FlowBuilder<S, N>(this.settings, this.nodes, [...this.edges, edge]);
  }

  /** The flow object: the settings, the nodes and the edges, in the order they were added. */
  build(): S & { nodes: N; edges: CodeFlowEdge[] } {
    return { ...this.settings, nodes: [...this.nodes] as N, edges: [...this.edges] };
  }
}

/** Starts a typed flow from its settings (`id` at least); add nodes, then edges, then `build()`. */
export function flowBuilder<const S extends FlowSettings>(settings: S): FlowBuilder<S, []> {
  return new FlowBuilder<S, []>(settings, [], []);
}
