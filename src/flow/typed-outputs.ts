import type { z } from 'zod';
import type { FlowInput, NodeSchema } from '../domain/flow.js';

/**
 * The types of a run's outputs, inferred from a code flow (docs/flows.md, "Typed outputs"): an output whose
 * `schema` is a zod schema has that schema's type, any other output `unknown`; outputs with
 * `required: true` are present on a completed node, others optional; a node's outputs appear only once
 * it completed, so each node entry is optional. Types only: nothing here runs.
 */

/** A run's outputs keyed by node id, then output key (the run summary's `outputs`). */
export type RunOutputs = Record<string, Record<string, unknown>>;

type NodeInput = z.input<typeof NodeSchema>;
type OutputInput = NonNullable<NodeInput['outputs']>[string];

/** An output contract of a code flow: `schema` may be a zod schema. */
export type CodeOutputContract = Omit<OutputInput, 'schema'> & {
  schema?: Record<string, unknown> | z.ZodType;
};

/** A node of a code flow. */
export type CodeFlowNode = Omit<NodeInput, 'outputs'> & { outputs?: Record<string, CodeOutputContract> };

/** A flow written in code (`loadFlow`, `runtime.start`, `defineFlow`): a flow whose output schemas may be zod schemas. */
export type CodeFlowInput = Omit<FlowInput, 'nodes'> & { nodes: CodeFlowNode[] };

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ValueOf<C> = C extends { schema: infer S } ? (S extends z.ZodType ? z.output<S> : unknown) : unknown;

type RequiredKeys<O> = { [K in keyof O]: O[K] extends { required: true } ? K : never }[keyof O];

type NodeOutputs<O> = Simplify<
  { [K in RequiredKeys<O>]: ValueOf<O[K]> } & { [K in Exclude<keyof O, RequiredKeys<O>>]?: ValueOf<O[K]> }
>;

/** The outputs type of flow `F`; `RunOutputs` when `F` is not a code flow with literal node ids. */
export type FlowOutputs<F> = F extends { readonly nodes: readonly (infer N)[] }
  ? string extends IdOf<N>
    ? RunOutputs
    : Simplify<{
        [M in N as IdOf<M>]?: M extends { readonly outputs: infer O }
          ? NodeOutputs<O>
          : Record<string, never>;
      }>
  : RunOutputs;

type IdOf<N> = N extends { readonly id: infer I extends string } ? I : never;
