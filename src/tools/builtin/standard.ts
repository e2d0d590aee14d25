import { approvalTool } from '../approval/index.js';
import type { BuiltinDefinition } from './define.js';
import { delegateTool } from './delegate.js';
import { evidenceReadTool } from './evidence-read.js';
import { failTool } from './fail.js';
import { finishTool } from './finish.js';
import { followUpTool } from './follow-up.js';
import { mergeFollowUpRules, type FollowUpRules } from './follow-up-rules.js';
import { outputSetTool } from './output-set.js';
import { resourceListTool } from './resource-list.js';
import { resourceReadTool } from './resource-read.js';

// The list of this package's builtins: adding one is its file (src/tools/builtin/<name>.ts, the whole
// definition) and its line here (plus its codes and hints in src/domain when it brings new ones).

/**
 * The standard builtins in the order the model sees them (and docs/observations.md lists them), with
 * builtin_node_follow_up using `rules`.
 */
export function standardBuiltins(rules: FollowUpRules): readonly BuiltinDefinition[] {
  return [
    finishTool,
    failTool,
    followUpTool(rules),
    approvalTool,
    outputSetTool,
    delegateTool,
    evidenceReadTool,
    resourceReadTool,
    resourceListTool,
  ];
}

/** The standard builtins with the default follow-up rules. */
export const STANDARD_BUILTINS: readonly BuiltinDefinition[] = standardBuiltins(mergeFollowUpRules());
