import type { z } from 'zod';
import type { CodeStep } from '../domain/code-step.js';
import type { EdgeCondition } from '../domain/edge-condition.js';
import type { FlowInput, NodeSchema } from '../domain/flow.js';
import type { RunOutputs } from '../records/summary.js';

/**
 * The types of a run's outputs, inferred from a code flow (docs/flows.md, "Typed outputs"): an output whose
 * `schema` is a zod schema has that schema's type, any other output `unknown`; outputs with
 * `required: true` are present on a completed node, others optional; a node's outputs appear only once
 * it completed, so each node entry is optional. Types only: nothing here runs.
 */

export type { RunOutputs };

type NodeInput = z.input<typeof NodeSchema>;
type OutputInput = NonNullable<NodeInput['outputs']>[string];

/** An output contract of a code flow: `schema` may be a zod schema. */
export type CodeOutputContract = Omit<OutputInput, 'schema'> & {
  schema?: Record<string, unknown> | z.ZodType;
};

/** A model node of a code flow. */
export type ModelFlowNode = Omit<NodeInput, 'outputs' | 'run'> & {
  outputs?: Record<string, CodeOutputContract>;
  /** `inline` only in a flow read back from a stored run (its function is not data). */
  run?: 'inline';
};

/** A code node of a code flow (docs/flows.md, "Code nodes"): `run` is its function; its outputs need no `sources`. */
export type CodeStepNode = Omit<
  NodeInput,
  'outputs' | 'run' | 'instructions' | 'answer' | 'delegates' | 'module'
> & {
  run: CodeStep;
  outputs?: Record<string, Omit<CodeOutputContract, 'sources'> & { sources?: ['code'] }>;
};

/** A node of a code flow: a model node, or a code node whose `run` is a function. */
export type CodeFlowNode = ModelFlowNode | CodeStepNode;

type EdgeInput = NonNullable<FlowInput['edges']>[number];

/** An edge of a code flow: `when` may be a function of the node just finished (docs/flows.md, "Flows in code"). */
export type CodeFlowEdge = Omit<EdgeInput, 'when'> & { when?: string | EdgeCondition };

/**
 * A flow written in code (`loadFlow`, `runtime.start`, `defineFlow`, `flowBuilder`): a flow whose output
 * schemas may be zod schemas, whose code nodes' `run` and edges' `when` may be functions.
 */
export type CodeFlowInput = Omit<FlowInput, 'nodes' | 'edges'> & {
  nodes: CodeFlowNode[];
  edges?: CodeFlowEdge[];
};

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ValueOf<C> = C extends { schema: infer S } ? (S extends z.ZodType ? z.output<S> : unknown) : unknown;

type RequiredKeys<O> = { [K in keyof O]: O[K] extends { required: true } ? K : never }[keyof O];

/** The outputs of a completed node whose `outputs` contracts are `O` (required keys present). */
export type NodeOutputs<O> = Simplify<
  { [K in RequiredKeys<O>]: ValueOf<O[K]> } & { [K in Exclude<keyof O, RequiredKeys<O>>]?: ValueOf<O[K]> }
>;

/** The outputs type of flow `F`; `RunOutputs` when `F` is not a code flow with literal node ids. */
export type FlowOutputs<F> = F extends { readonly nodes: readonly (infer N)[] }
  ? string extends IdOf<N>
    ? RunOutputs
    : Simplify<{
        [M in N as IdOf<M>]?: OutputsOf<M, N>;
      }>
  : RunOutputs;

/**
 * The outputs of node `M` among nodes `N`: a map node's are `items`, its body's outputs per item
 * (docs/flows.md, "Map"); a node without `outputs` has none.
 */
export type OutputsOf<M, N> = M extends { readonly map: { readonly node: infer B extends string } }
  ? { items: OutputsOf<Extract<N, { readonly id: B }>, N>[] }
  : M extends { readonly outputs: infer O }
    ? NodeOutputs<O>
    : Record<string, never>;

type IdOf<N> = N extends { readonly id: infer I extends string } ? I : never;
