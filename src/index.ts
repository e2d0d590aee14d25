/**
 * The public API of g2rain-agent-runtime. Every export here is public; heavy adapters live behind
 * subpath exports.
 */
export { Outcome, type OutcomeName } from './domain/outcome.js';
export { Observation, type ObservationJSON } from './domain/observation.js';
export { RuntimeErrorCode, code, type RuntimeErrorCodeName } from './domain/error-codes.js';
export { hint, type HintKey } from './domain/hints.js';
export type { Locale } from './domain/locale.js';
export type { Flow, FlowInput, ToolPolicy, FlowNode, FlowEdge } from './domain/flow.js';
export { defineTool, type LocalTool, type DefineToolOptions, type ToolDescriptor } from './tools/tool.js';
export { ToolRejectedException } from './tools/rejected.js';
