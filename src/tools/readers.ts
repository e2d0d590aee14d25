import type { Locale } from '../domain/locale.js';
import type { NodeState, RunState } from '../records/run-state.js';
import { builtinDescriptor } from './builtin/descriptors.js';
import { hasResourceLink } from './builtin/resource-read.js';
import type { ToolDescriptor } from './tool.js';

// The reader builtins a node is offered by what its run holds, not by its flow: builtin_evidence_read
// once the node run's conversation was compacted, builtin_resource_read once a tool result linked to a
// resource.

const EVIDENCE_READ = 'builtin_evidence_read';
const RESOURCE_READ = 'builtin_resource_read';

/** What deciding the readers looks at. */
export interface ReaderSources {
  readonly run: RunState;
  readonly node: NodeState;
  /** Every real tool of the flow (a link counts when the tool that gave it has a server). */
  readonly tools: ReadonlyMap<string, ToolDescriptor>;
  readonly locale: Locale;
}

/** The tools a call may use: `visible` plus the readers the run has earned. */
export function withReaders(
  visible: ReadonlyMap<string, ToolDescriptor>,
  sources: ReaderSources,
): ReadonlyMap<string, ToolDescriptor> {
  const { node, locale } = sources;
  const compacted = node.context !== undefined && node.context.compactions > 0;
  const withEvidence =
    !compacted || visible.has(EVIDENCE_READ)
      ? visible
      : new Map([...visible, [EVIDENCE_READ, builtinDescriptor(EVIDENCE_READ, locale)]]);
  return withResourceReader(withEvidence, sources.run, sources.tools, locale);
}

/** `visible` plus builtin_resource_read when the run's evidence holds a resource link. */
export function withResourceReader(
  visible: ReadonlyMap<string, ToolDescriptor>,
  run: RunState,
  tools: ReadonlyMap<string, ToolDescriptor>,
  locale: Locale,
): ReadonlyMap<string, ToolDescriptor> {
  if (visible.has(RESOURCE_READ) || !hasResourceLink({ run, tools })) return visible;
  return new Map([...visible, [RESOURCE_READ, builtinDescriptor(RESOURCE_READ, locale)]]);
}
