import { writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { FlowSchema } from '../domain/flow.js';

/** Where the published JSON Schema of the flow format lives, relative to the package root. */
export const FLOW_SCHEMA_FILE = 'schema/flow.schema.json';

/** The `$id` of the published schema. */
export const FLOW_SCHEMA_ID = 'https://unpkg.com/g2rain-agent-runtime/schema/flow.schema.json';

/**
 * The JSON Schema (draft 2020-12) of flow files as a person writes them (defaults optional), generated
 * from the zod schema. Cross-field rules (ids exist, expressions parse) are not expressible in it;
 * `agent-runtime validate` checks those.
 */
export function flowJsonSchema(): Record<string, unknown> {
  const generated = z.toJSONSchema(FlowSchema, { io: 'input', target: 'draft-2020-12' });
  const { $schema, ...rest } = generated;
  return { $schema, $id: FLOW_SCHEMA_ID, title: 'g2rain-agent-runtime flow', ...rest };
}

/** The schema file's exact text (2-space JSON and a final newline), what the freshness test compares. */
export function flowJsonSchemaText(): string {
  return `${JSON.stringify(flowJsonSchema(), null, 2)}\n`;
}

/** Writes the schema file (used by `npm run schema`). */
export async function writeFlowJsonSchema(file: string): Promise<void> {
  await writeFile(file, flowJsonSchemaText(), 'utf8');
}
