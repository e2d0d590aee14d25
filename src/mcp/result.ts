import { contentBlocks, structuredWithoutBinary } from './content.js';
import type { McpCallResult } from './types.js';

/**
 * A tool's *result* as the rest of the runtime sees it (docs/flows.md): the MCP result's `structuredContent`
 * (binary data replaced by its size and digest, src/mcp/content.ts);
 * else, when the content is exactly one text block, that text parsed as JSON, or the text itself when it
 * is not JSON; else (no content) null; else (several or non-text blocks) the content blocks, binary data
 * replaced by its size (src/mcp/content.ts).
 */
export function mcpResultData(result: McpCallResult): unknown {
  if (result.structuredContent !== undefined) return structuredWithoutBinary(result.structuredContent);
  const blocks = result.content;
  if (blocks.length === 0) return null;
  const [only] = blocks;
  if (blocks.length === 1 && only?.type === 'text' && typeof only.text === 'string')
    return parseOrText(only.text);
  return contentBlocks(blocks);
}

function parseOrText(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return text;
  try {
    return JSON.parse(trimmed) as unknown;
  } catch {
    // Not JSON: the text itself is the result (docs/flows.md), so there is nothing to report.
    return text;
  }
}

/** The error text of an `isError` result: its text blocks joined, else the JSON of its content, at most `max` chars. */
export function mcpErrorText(result: McpCallResult, max = 500): string {
  const texts = result.content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string);
  const joined = (
    texts.length > 0
      ? texts.join('\n')
      : JSON.stringify(
          result.structuredContent === undefined
            ? contentBlocks(result.content)
            : structuredWithoutBinary(result.structuredContent),
        )
  ).trim();
  const line = joined.replace(/\s*\n\s*/g, ' ');
  if (line === '') return '(no error text)';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
