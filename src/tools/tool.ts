import { z } from 'zod';
import type { JsonSchema, ToolDescriptor } from '../domain/tool.js';
import { compileSchema } from '../domain/schema-engine.js';

export type { JsonSchema, ToolDescriptor, ToolKind } from '../domain/tool.js';

/** What a local tool's `execute` receives besides its arguments. */
export interface LocalToolContext {
  /** Aborted when the call times out or the run is cancelled. */
  readonly signal: AbortSignal;
  /** The idempotency key of a write (docs/durability.md), when the call is a write. */
  readonly idempotencyKey?: string;
  /**
   * Reports how far the call got (traced as `tool.progress`, rate-limited, docs/trace.md); unlike an MCP
   * server's progress it does not extend the call's timeout.
   */
  readonly progress?: (report: { progress: number; total?: number; message?: string }) => void;
}

/**
 * A tool implemented in the host program (README.md). It goes through the same pipeline as MCP tools.
 * `execute` returns its result, or a promise of it; it may throw or reject for a failure. A promise is
 * timed out and cancelled through `context.signal`; a value returned at once has nothing to wait for.
 */
export interface LocalTool<Args = Record<string, unknown>> {
  readonly descriptor: ToolDescriptor;
  execute(args: Args, context: LocalToolContext): unknown;
}

/** Options of `defineTool` with a JSON Schema: the arguments are typed by `Args` (not checked against it). */
export interface DefineToolOptions<Args> {
  name: string;
  description: string;
  /** True for a tool with side effects; it is then gated by approval. Default false. */
  write?: boolean;
  /** True when its results are untrusted text (documents, mail, web pages), like MCP's `openWorldHint`. */
  openWorld?: boolean;
  inputSchema: JsonSchema;
  execute: (args: Args, context: LocalToolContext) => unknown;
}

/**
 * Options of `defineTool` with a zod (v4) schema: the model sees its JSON Schema, and `execute` gets the
 * arguments as the schema parses them (typed `z.output<Schema>`, defaults and transforms applied).
 */
export interface DefineZodToolOptions<Schema extends z.ZodType> {
  name: string;
  description: string;
  /** True for a tool with side effects; it is then gated by approval. Default false. */
  write?: boolean;
  /** True when its results are untrusted text (documents, mail, web pages), like MCP's `openWorldHint`. */
  openWorld?: boolean;
  inputSchema: Schema;
  execute: (args: z.output<Schema>, context: LocalToolContext) => unknown;
}

/**
 * Defines a local tool (README.md) from a zod schema, whose type `execute`'s arguments get, or from a JSON
 * Schema. Throws for an invalid tool name or a schema that is neither (e.g. a zod 3 schema).
 */
export function defineTool<Schema extends z.ZodType>(
  options: DefineZodToolOptions<Schema>,
): LocalTool<z.output<Schema>>;
export function defineTool<Args = Record<string, unknown>>(options: DefineToolOptions<Args>): LocalTool<Args>;
export function defineTool(
  options: DefineToolOptions<unknown> | DefineZodToolOptions<z.ZodType>,
): LocalTool<unknown> {
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(options.name)) {
    throw new Error(
      `defineTool: invalid tool name ${JSON.stringify(options.name)} (letters, digits, _ . - only)`,
    );
  }
  const zod = isZodSchema(options.inputSchema) ? options.inputSchema : null;
  if (zod === null && !isJsonSchemaObject(options.inputSchema)) {
    throw new Error(
      `defineTool: ${options.name}: inputSchema must be a zod 4 schema or a JSON Schema object`,
    );
  }
  if (typeof options.execute !== 'function')
    throw new Error(`defineTool: ${options.name}: execute must be a function`);
  const execute: (args: unknown, context: LocalToolContext) => unknown = options.execute;
  const inputSchema = zod ? jsonSchemaOf(options.name, zod) : (options.inputSchema as JsonSchema);
  checkArgumentSchema(options.name, inputSchema);
  return {
    descriptor: {
      name: options.name,
      description: options.description,
      inputSchema,
      kind: 'local',
      readOnlyHint: options.write !== true,
      ...(options.openWorld === true ? { openWorldHint: true } : {}),
    },
    execute: zod ? (args, context) => execute(zod.parse(args), context) : execute,
  };
}

/**
 * A tool's arguments are one JSON object, checked against its schema on every call: a schema that
 * describes something else, or that cannot be compiled, is refused here (a setup error) rather than
 * on every call, where the model would be told to fix arguments it cannot fix.
 */
function checkArgumentSchema(name: string, schema: JsonSchema): void {
  const type = (schema as { type?: unknown }).type;
  if (type !== undefined && type !== 'object')
    throw new Error(
      `defineTool: ${name}: inputSchema must describe an object (type: object), not ${JSON.stringify(type)}: a tool's arguments are one JSON object`,
    );
  try {
    compileSchema(schema, { profile: 'tool' });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(
      `defineTool: ${name}: inputSchema is not a usable JSON Schema: ${message.split('\n')[0]}`,
      { cause: error },
    );
  }
}

/** A zod 4 schema (also from another copy of zod): it carries `_zod`. */
function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as z.ZodType).parse === 'function'
  );
}

function isJsonSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !('_def' in value);
}

/** The JSON Schema the model and the argument check see: the schema's input side, draft-07, no `$schema`. */
function jsonSchemaOf(name: string, schema: z.ZodType): JsonSchema {
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
  } catch (error) {
    throw new Error(
      `defineTool: ${name}: the zod schema has no JSON Schema form: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const { $schema: _dialect, ...rest } = json;
  return rest;
}
