import { hint } from '../domain/hints.js';
import type { Locale } from '../domain/locale.js';
import type { ToolDescriptor } from '../domain/tool.js';
import type { McpCallResult } from '../mcp/types.js';
import type { PipelineLogger } from './call.js';
import { joinRules, schemaRules } from './schema-rules.js';

/**
 * Checks an MCP tool's successful result against the `outputSchema` the tool declares, as MCP clients
 * must (docs/observations.md, MCP_OUTPUT_SCHEMA_MISMATCH): such a tool has to answer with
 * `structuredContent` that satisfies the schema. Null when the tool declares no schema, the result
 * is an `isError` one, or the structured content satisfies it; else what is wrong, in the locale
 * (at most three rules, with their paths).
 */
export function structuredResultProblem(
  tool: ToolDescriptor,
  result: McpCallResult,
  locale: Locale,
  logger: PipelineLogger,
): string | null {
  if (!tool.outputSchema || result.isError) return null;
  if (result.structuredContent === undefined) return hint(locale, 'STRUCTURED_CONTENT_MISSING');
  const rules = schemaRules(tool.outputSchema, result.structuredContent, locale, logger);
  return rules.length === 0 ? null : joinRules(locale, rules);
}
