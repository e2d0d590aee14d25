import type { Flow, OutputContract } from '../domain/flow.js';

/** One output of a node as published (docs/api.md, `GET /v1/flows/{flowId}`; docs/cli.md, `validate --json`). */
export interface PublishedOutput {
  required: boolean;
  sources: OutputContract['sources'];
  from?: string[];
  description?: string;
  /** The JSON Schema its value satisfies (a code flow's zod schema in its JSON Schema form); absent: any JSON. */
  schema?: Record<string, unknown>;
}

/** What callers of a flow need to generate types for its runs: its input and each node's outputs. */
export interface FlowInterface {
  readonly flowId: string;
  readonly version: string | number;
  readonly description?: string;
  /** JSON Schema of the run input. */
  readonly input: Record<string, unknown>;
  /** Nodes in file order, each with its declared outputs. */
  readonly nodes: { id: string; outputs: Record<string, PublishedOutput> }[];
  /**
   * JSON Schema of the run summary's `outputs` (keyed by node id, then output key): a node's entry
   * appears once the node completed, and then holds its required outputs. Each output's `schema` is
   * embedded as is, so one using `$ref` to its own root (`#/…`) resolves only in `nodes[].outputs`.
   */
  readonly outputsSchema: Record<string, unknown>;
}

/** The published interface of a validated flow (no servers, tools or texts: nothing a viewer may not see). */
export function describeFlow(flow: Flow): FlowInterface {
  const nodes = flow.nodes.map((node) => ({
    id: node.id,
    outputs: Object.fromEntries(Object.entries(node.outputs).map(([key, c]) => [key, published(c)])),
  }));
  return {
    flowId: flow.id,
    version: flow.version,
    ...(flow.description ? { description: flow.description } : {}),
    input: flow.input,
    nodes,
    outputsSchema: outputsSchema(flow),
  };
}

function published(contract: OutputContract): PublishedOutput {
  return {
    required: contract.required,
    sources: contract.sources,
    ...(contract.from ? { from: contract.from } : {}),
    ...(contract.description !== undefined ? { description: contract.description } : {}),
    ...(contract.schema ? { schema: contract.schema } : {}),
  };
}

function outputsSchema(flow: Flow): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const node of flow.nodes) {
    const entries = Object.entries(node.outputs);
    properties[node.id] = {
      type: 'object',
      properties: Object.fromEntries(entries.map(([key, c]) => [key, c.schema ?? {}])),
      required: entries.filter(([, c]) => c.required).map(([key]) => key),
      additionalProperties: false,
    };
  }
  return { type: 'object', properties, additionalProperties: false };
}
