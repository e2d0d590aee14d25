import type { FlowNode } from '../../domain/flow.js';
import type { Locale } from '../../domain/locale.js';
import type { Observation } from '../../domain/observation.js';
import type { CallContext } from '../pipeline.js';
import type { ToolDescriptor } from '../tool.js';
import { approvalTool, followUpTool } from './control-tools.js';
import { delegateTool } from './delegate.js';
import { evidenceReadTool } from './evidence-read.js';
import { BUILTIN_NAMES, builtinDescriptor, type BuiltinName } from './descriptors.js';
import { mergeFollowUpRules, type FollowUpRules } from './follow-up-rules.js';
import { failTool, finishTool, outputSetTool } from './node-tools.js';

/**
 * A builtin tool (docs/observations.md). It runs in the pipeline's invoke step with the call context; it rejects
 * a call by throwing ToolRejectedException, asks the loop to end the node or suspend the run through
 * `ctx.effect`, and returns its observation otherwise.
 */
export interface BuiltinTool {
  readonly name: BuiltinName;
  /** True when the tool is visible in `node`. */
  visible(node: FlowNode): boolean;
  /**
   * True for a builtin with an effect outside the run (a delegation starts a child run): the step so
   * far is committed before it runs, like a write's in-flight mark (docs/durability.md). A failed commit is not
   * the tool's failure: it stops the driver.
   */
  readonly writeAhead?: boolean;
  execute(args: Record<string, unknown>, ctx: CallContext): Promise<Observation>;
}

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
