import { z } from 'zod';
import type { RawProblem } from './problems.js';

/**
 * Code flows (docs/flows.md, "Typed outputs") may give an output's `schema` as a zod 4 schema. The flow is
 * persisted with its runs as JSON, so the runtime keeps the schema's JSON Schema form (draft-07, no
 * `$schema`), computed here before the flow is validated; values are checked against that form.
 */

/** A zod 4 schema (also from another copy of zod): it carries `_zod` and `parse`. */
export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === 'object' &&
    value !== null &&
    '_zod' in value &&
    typeof (value as { parse?: unknown }).parse === 'function'
  );
}

/**
 * The flow object with every zod `outputs.<key>.schema` replaced by its JSON Schema (the objects on
 * the way copied, the caller's object untouched), and a problem for each zod schema that has no JSON
 * Schema form (a transform, a function…). Returns `source` itself when it holds no zod schema.
 */
export function withJsonSchemas(source: object): { data: object; problems: RawProblem[] } {
  const problems: RawProblem[] = [];
  const nodes = (source as { nodes?: unknown }).nodes;
  if (!Array.isArray(nodes) || !nodes.some(hasZodOutput)) return { data: source, problems };
  const converted = nodes.map((node: unknown, i) =>
    hasZodOutput(node) ? convertNode(node as Record<string, unknown>, i, problems) : node,
  );
  return { data: { ...source, nodes: converted }, problems };
}

function hasZodOutput(node: unknown): boolean {
  const outputs = outputsOf(node);
  return outputs !== null && Object.values(outputs).some((c) => isZodSchema(schemaOf(c)));
}

function outputsOf(node: unknown): Record<string, unknown> | null {
  if (typeof node !== 'object' || node === null) return null;
  const outputs = (node as { outputs?: unknown }).outputs;
  return typeof outputs === 'object' && outputs !== null && !Array.isArray(outputs)
    ? (outputs as Record<string, unknown>)
    : null;
}

function schemaOf(contract: unknown): unknown {
  return typeof contract === 'object' && contract !== null
    ? (contract as { schema?: unknown }).schema
    : undefined;
}

function convertNode(
  node: Record<string, unknown>,
  i: number,
  problems: RawProblem[],
): Record<string, unknown> {
  const outputs = outputsOf(node) ?? {};
  const copy: Record<string, unknown> = {};
  for (const [key, contract] of Object.entries(outputs)) {
    const schema = schemaOf(contract);
    if (!isZodSchema(schema)) {
      copy[key] = contract;
      continue;
    }
    const json = jsonSchemaOf(schema);
    if (typeof json === 'string') {
      problems.push({ path: ['nodes', i, 'outputs', key, 'schema'], message: json });
      copy[key] = { ...(contract as object), schema: {} };
    } else copy[key] = { ...(contract as object), schema: json };
  }
  return { ...node, outputs: copy };
}

/** The schema's JSON Schema form (what a value must satisfy: its output side), or why it has none. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> | string {
  try {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io: 'output' });
    return rest;
  } catch (error) {
    return `the zod schema has no JSON Schema form (${error instanceof Error ? error.message : String(error)}); expected a schema of plain JSON values`;
  }
}
