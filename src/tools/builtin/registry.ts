import type { FlowNode } from '../../domain/flow.js';
import type { Locale } from '../../domain/locale.js';
import type { ToolDescriptor } from '../tool.js';
import { followUpTool } from './control-tools.js';
import { approvalTool } from '../approval/index.js';
import { delegateTool } from './delegate.js';
import { evidenceReadTool } from './evidence-read.js';
import { resourceReadTool } from './resource-read.js';
import { resourceListTool } from './resource-list.js';
import type { BuiltinTool, NodeTools } from './builtin-tool.js';
import { BUILTIN_NAMES, builtinDescriptor, type BuiltinName } from './descriptors.js';
import { mergeFollowUpRules, type FollowUpRules } from './follow-up-rules.js';
import { failTool, finishTool, outputSetTool } from './node-tools.js';

/** The builtins of a runtime. */
export interface BuiltinRegistry {
  get(name: string): BuiltinTool | undefined;
  /**
   * Descriptors of the builtins visible in `node` (whose callable tools `tools` describes), in `locale`,
   * in the order of BUILTIN_NAMES (for the model and the catalog): only what the node can use.
   */
  descriptors(node: FlowNode, locale: Locale, tools: NodeTools): ToolDescriptor[];
}

/** Options of `createBuiltins`. */
export interface BuiltinOptions {
  /** Words added to the follow-up rules' defaults (see follow-up-rules.ts). */
  followUp?: Partial<FollowUpRules>;
}

/** Creates the builtin tools; `options` extend the follow-up word lists. */
export function createBuiltins(options: BuiltinOptions = {}): BuiltinRegistry {
  const rules = mergeFollowUpRules(options.followUp);
  const tools: Record<BuiltinName, BuiltinTool> = {
    builtin_node_finish: finishTool,
    builtin_node_fail: failTool,
    builtin_node_follow_up: followUpTool(rules),
    builtin_node_approval: approvalTool,
    builtin_output_set: outputSetTool,
    builtin_node_delegate: delegateTool,
    builtin_evidence_read: evidenceReadTool,
    builtin_resource_read: resourceReadTool,
    builtin_resource_list: resourceListTool,
  };
  return {
    get: (name) => (Object.hasOwn(tools, name) ? tools[name as BuiltinName] : undefined),
    descriptors: (node, locale, callable) =>
      BUILTIN_NAMES.filter((name) => tools[name].visible(node, callable)).map((name) =>
        builtinDescriptor(name, locale),
      ),
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
