import { code } from '../domain/error-codes.js';
import type { Flow } from '../domain/flow.js';
import { hint, list } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import { Observation } from '../domain/observation.js';
import { defaultBuiltins, type BuiltinRegistry } from './builtin/registry.js';
import type { CallInput } from './call.js';
import type { Check } from './compose.js';
import type { ResolvedTool } from './stages.js';
import { isWriteTool, type ToolDescriptor } from '../domain/tool.js';
import type { ProducedCase } from './produces.js';

/** What the model may call in one node, and every real tool of the flow. */
export interface Catalog {
  /** The node's `tools` that exist, then the builtins visible in the node, by model-facing name. */
  readonly visible: ReadonlyMap<string, ToolDescriptor>;
  /** Every real tool (MCP and local) by model-facing name. */
  readonly tools: ReadonlyMap<string, ToolDescriptor>;
  /** Names in the node's `tools` that no server or local tool provides (validation reports these). */
  readonly missing: readonly string[];
}

/** What `buildCatalog` needs. */
export interface CatalogInput {
  /** The flow, or the part of it the catalog reads (without `tools`, writes are known by annotations only). */
  flow: Pick<Flow, 'id' | 'locale' | 'nodes'> & Partial<Pick<Flow, 'tools'>>;
  nodeId: string;
  /** Every real tool available to the flow, by model-facing name (after aliasing). */
  tools: Iterable<ToolDescriptor>;
  /** Default: the flow's locale. */
  locale?: Locale;
  /** Default: the standard builtins. */
  builtins?: BuiltinRegistry;
}

/**
 * The catalog of one node (pipeline step 1, docs/design.md; docs/observations.md): the node's declared tools plus the builtins visible
 * there — only those the node can use: builtin_node_approval where one of its tools is a write, builtin_output_set
 * where it has `outputs`, builtin_node_delegate where it has `delegates`.
 */
export function buildCatalog(input: CatalogInput): Catalog {
  const node = input.flow.nodes.find((n) => n.id === input.nodeId);
  if (!node) throw new Error(`flow ${input.flow.id} has no node ${input.nodeId}`);
  const tools = new Map<string, ToolDescriptor>();
  for (const tool of input.tools) tools.set(tool.name, tool);
  const builtins = input.builtins ?? defaultBuiltins;
  const visible = new Map<string, ToolDescriptor>();
  const missing: string[] = [];
  for (const name of node.tools) {
    const tool = tools.get(name);
    if (tool) visible.set(name, tool);
    // A user's builtin listed in `tools` is offered with the builtins below.
    else if (!builtins.get(name)) missing.push(name);
  }
  const writes = [...visible.values()].some((tool) => isWriteTool(tool, input.flow.tools?.[tool.name]));
  for (const descriptor of builtins.descriptors(node, input.locale ?? input.flow.locale, { writes }))
    visible.set(descriptor.name, descriptor);
  return { visible, tools, missing };
}

/** What the catalog step produces (for docs/observations.md). */
export const CATALOG_PRODUCES: readonly ProducedCase[] = [
  {
    producer: 'catalog',
    case: 'the tool is not among the node’s tools and visible builtins',
    code: 'CATALOG_DENIED',
    next: 'NEXT_CATALOG_DENIED',
  },
];

/**
 * Step 1: a tool not visible in this node → REJECTED CATALOG_DENIED (next lists the visible tools).
 * Otherwise learns the tool: its descriptor, the flow's policy of it, and whether it writes.
 */
export function catalogGuard(): Check<CallInput, ResolvedTool> {
  return function catalog(ctx) {
    const descriptor = ctx.visible.get(ctx.call.tool);
    if (!descriptor) {
      const stop = Observation.rejected(
        code('CATALOG_DENIED'),
        code('CATALOG_DENIED').reason(ctx.locale, { tool: ctx.call.tool }),
        hint(ctx.locale, 'NEXT_CATALOG_DENIED', { tools: list(ctx.locale, [...ctx.visible.keys()]) }),
      );
      return { stop };
    }
    const policy = descriptor.kind === 'builtin' ? undefined : ctx.flow.tools[descriptor.name];
    return { descriptor, policy, isWrite: isWriteTool(descriptor, policy) };
  };
}
