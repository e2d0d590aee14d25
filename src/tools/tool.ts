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
}

/** What a local tool's `execute` receives besides its arguments. */
export interface LocalToolContext {
  /** Aborted when the call times out or the run is cancelled. */
  readonly signal: AbortSignal;
  /** The idempotency key of a write (SPEC §9), when the call is a write. */
  readonly idempotencyKey?: string;
}

/**
 * A tool implemented in the host program (SPEC §14). It goes through the same pipeline as MCP tools.
 * `execute` returns its result, or a promise of it; it may throw or reject for a failure. A promise is
 * timed out and cancelled through `context.signal`; a value returned at once has nothing to wait for.
 */
export interface LocalTool<Args = Record<string, unknown>> {
  readonly descriptor: ToolDescriptor;
  execute(args: Args, context: LocalToolContext): unknown;
}

/** Options of `defineTool`. */
export interface DefineToolOptions<Args> {
  name: string;
  description: string;
  /** True for a tool with side effects; it is then gated by approval. Default false. */
  write?: boolean;
  inputSchema: JsonSchema;
  execute: (args: Args, context: LocalToolContext) => unknown;
}

/** Defines a local tool. */
export function defineTool<Args = Record<string, unknown>>(options: DefineToolOptions<Args>): LocalTool<Args> {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(options.name)) {
    throw new Error(`defineTool: invalid tool name ${JSON.stringify(options.name)} (letters, digits, _ . - only)`);
  }
  return {
    descriptor: {
      name: options.name,
      description: options.description,
      inputSchema: options.inputSchema,
      kind: 'local',
      readOnlyHint: options.write !== true,
    },
    execute: options.execute,
  };
}
