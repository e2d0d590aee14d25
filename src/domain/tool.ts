import type { ToolPolicy, ToolTrust } from './flow.js';

/** A JSON Schema object as found in MCP `inputSchema`. */
export type JsonSchema = Record<string, unknown>;

/** Where a tool lives. */
export type ToolKind = 'mcp' | 'local' | 'builtin';

/** A tool as the model sees it, with what the runtime needs to call and classify it. */
export interface ToolDescriptor {
  /** The name the model sees (after aliasing). */
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly kind: ToolKind;
  /** For MCP tools: the flow's server id and the tool's name on that server. */
  readonly server?: string;
  readonly remoteName?: string;
  /** MCP annotation `readOnlyHint`, or the local tool's `write: false`. */
  readonly readOnlyHint?: boolean;
  /** For MCP tools: the `outputSchema` the tool declares; its structured results are checked against it. */
  readonly outputSchema?: JsonSchema;
  /** MCP annotation `openWorldHint` (or the local tool's `openWorld`): its results are untrusted text by default. */
  readonly openWorldHint?: boolean;
  /** MCP annotation `destructiveHint` (shown on the approval card; it changes no rule). */
  readonly destructiveHint?: boolean;
  /** MCP `execution.taskSupport`: `required` means the server runs the tool only as a task. */
  readonly taskSupport?: 'forbidden' | 'optional' | 'required';
  /** For MCP tools: the tool's first safe icon URL (domain/tool-icon.ts), for the console only — never the model. */
  readonly icon?: string;
}

/**
 * True for a write tool: the flow policy's `write` when given, else MCP annotations (readOnlyHint
 * true → read, anything else → write). Builtins are never writes.
 */
export function isWriteTool(descriptor: ToolDescriptor, policy: ToolPolicy | undefined): boolean {
  if (descriptor.kind === 'builtin') return false;
  return policy?.write ?? descriptor.readOnlyHint !== true;
}

/**
 * How far a tool's results are trusted (docs/flows.md, "Untrusted text"): the policy's `trust` when
 * it says (`trusted`, `untrusted`, `{ untrusted: [...] }`), else `untrusted` for a tool annotated
 * `openWorldHint: true`, else `trusted`. Builtins are trusted. `confidential` parts are not trust.
 */
export function toolTrust(descriptor: ToolDescriptor | undefined, policy: ToolPolicy | undefined): ToolTrust {
  const trust = policy?.trust;
  if (typeof trust === 'string') return trust;
  if (trust?.untrusted !== undefined) return { untrusted: trust.untrusted };
  return descriptor?.kind !== 'builtin' && descriptor?.openWorldHint === true ? 'untrusted' : 'trusted';
}

/** The JSONata paths of a tool's confidential parts (`trust: { confidential: [...] }`); none when absent. */
export function confidentialPaths(policy: ToolPolicy | undefined): readonly string[] {
  const trust = policy?.trust;
  return typeof trust === 'object' ? (trust.confidential ?? []) : [];
}
