import type { FlowNode } from '../../domain/flow.js';
import type { Locale } from '../../domain/locale.js';
import type { ToolDescriptor } from '../tool.js';
import type { BuiltinTool, NodeTools } from './builtin-tool.js';
import type { BuiltinDefinition } from './define.js';
import { mergeFollowUpRules, type FollowUpRules } from './follow-up-rules.js';
import { standardBuiltins } from './standard.js';

/** The builtins of a runtime. */
export interface BuiltinRegistry {
  get(name: string): BuiltinTool | undefined;
  /**
   * Descriptors of the builtins visible in `node` (whose callable tools `tools` describes), in `locale`:
   * the standard ones in their order, then the user's (for the model and the catalog): only what the
   * node can use.
   */
  descriptors(node: FlowNode, locale: Locale, tools: NodeTools): ToolDescriptor[];
}

/** Options of `createBuiltins`. */
export interface BuiltinOptions {
  /** Words added to the follow-up rules' defaults (see follow-up-rules.ts). */
  followUp?: Partial<FollowUpRules>;
  /** The user's builtins (`defineBuiltin`, docs/builtins.md), already checked by `checkBuiltins`. */
  user?: readonly BuiltinDefinition[];
}

/** Creates the builtin tools; `options` extend the follow-up word lists and add the user's builtins. */
export function createBuiltins(options: BuiltinOptions = {}): BuiltinRegistry {
  const all = [...standardBuiltins(mergeFollowUpRules(options.followUp)), ...(options.user ?? [])];
  const byName = new Map<string, BuiltinDefinition>(all.map((b) => [b.name, b]));
  return {
    get: (name) => byName.get(name),
    descriptors: (node, locale, callable) =>
      all.filter((b) => b.visible(node, callable)).map((b) => b.descriptor(locale)),
  };
}

/** The standard builtins. */
export const defaultBuiltins: BuiltinRegistry = createBuiltins();

/**
 * Descriptors of the standard builtins visible in `node`: finish, fail and follow-up always;
 * builtin_node_approval only when the node can call a write tool (`tools.writes`), builtin_output_set
 * only with `outputs`, builtin_node_delegate only with `delegates`.
 */
export function builtinDescriptors(node: FlowNode, locale: Locale, tools: NodeTools): ToolDescriptor[] {
  return defaultBuiltins.descriptors(node, locale, tools);
}

export type { BuiltinTool, NodeTools } from './builtin-tool.js';
