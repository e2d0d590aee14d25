// The kinds of node a flow may have (docs/design.md, "Node kinds"): each one definition here, how a node
// of it is recognised, what its outputs' sources are, and which keys of the other kinds it refuses. The
// flow checks (src/flow/code-steps.ts, semantic-*.ts), the flow schema's description of a node
// (src/domain/flow.ts) and the driver's runners (src/engine/driver.ts, one per kind) read these.

/** A key only a model node has: a node of another kind refuses it. */
export type ModelOnlyKey = 'instructions' | 'answer' | 'delegates' | 'prompt';

/** One kind of node. */
export interface NodeKindSpec {
  readonly name: string;
  /** What a node of this kind does, for the flow schema and the docs. */
  readonly summary: string;
  /** The keys that make a node of this kind (none for the model node, which takes every other node). */
  readonly keys: readonly string[];
  /** `code`: its outputs' source is its function (`sources: [code]`, filled in when left out); `declared`: the flow says. */
  readonly outputSources: 'code' | 'declared';
  /** Keys of a model node this kind does not take, and why. */
  readonly refuses: readonly ModelOnlyKey[];
  /** Why it refuses them (said in the problem). */
  readonly refusal?: string;
}

/** The code node: its function (`run` in a flow written in code, or `module`) instead of a model loop. */
const CODE = {
  name: 'code',
  summary: 'a code node runs its function (run or module) instead of a model',
  keys: ['run', 'module'],
  outputSources: 'code',
  refuses: ['instructions', 'answer', 'delegates', 'prompt'],
  refusal: 'a code node runs its function, not a model',
} as const satisfies NodeKindSpec;

/** The model node: the model loop with tools (every node of no other kind). */
const MODEL = {
  name: 'model',
  summary: 'a model node runs the model with its tools',
  keys: [],
  outputSources: 'declared',
  refuses: [],
} as const satisfies NodeKindSpec;

/** Every node kind, the model node last: a node is of the first kind one of whose keys it has. */
export const NODE_KINDS = [CODE, MODEL] as const satisfies readonly NodeKindSpec[];

/** The name of a node kind. */
export type NodeKindName = (typeof NODE_KINDS)[number]['name'];

/** The kind of a node, parsed or raw data: the first kind one of whose keys it has, else the model node. */
export function nodeKindOf(node: object): NodeKind {
  const data = node as Record<string, unknown>;
  return NODE_KINDS.find((kind) => kind.keys.some((key) => data[key] !== undefined)) ?? MODEL;
}

/** A node kind of NODE_KINDS. */
export type NodeKind = (typeof NODE_KINDS)[number];
