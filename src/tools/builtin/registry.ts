import type { FlowNode } from '../../domain/flow.js';
import type { Locale } from '../../domain/locale.js';
import type { ToolDescriptor } from '../tool.js';
import { approvalTool, followUpTool } from './control-tools.js';
import { delegateTool } from './delegate.js';
import { evidenceReadTool } from './evidence-read.js';
import type { BuiltinTool } from './builtin-tool.js';
import { BUILTIN_NAMES, builtinDescriptor, type BuiltinName } from './descriptors.js';
import { mergeFollowUpRules, type FollowUpRules } from './follow-up-rules.js';
import { failTool, finishTool, outputSetTool } from './node-tools.js';

/** The builtins of a runtime. */
export interface BuiltinRegistry {
  get(name: string): BuiltinTool | undefined;
  /** Descriptors of the builtins visible in `node`, in `locale`, in the order of BUILTIN_NAMES (for the model and the catalog). */
  descriptors(node: FlowNode, locale: Locale): ToolDescriptor[];
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
  };
  return {
    get: (name) => (Object.hasOwn(tools, name) ? tools[name as BuiltinName] : undefined),
    descriptors: (node, locale) =>
      BUILTIN_NAMES.filter((name) => tools[name].visible(node)).map((name) =>
        builtinDescriptor(name, locale),
      ),
  };
}

/** The standard builtins. */
export const defaultBuiltins: BuiltinRegistry = createBuiltins();

/** Descriptors of the standard builtins visible in `node` (all, and builtin_node_delegate only with `delegates`). */
export function builtinDescriptors(node: FlowNode, locale: Locale): ToolDescriptor[] {
  return defaultBuiltins.descriptors(node, locale);
}

export type { BuiltinTool } from './builtin-tool.js';
