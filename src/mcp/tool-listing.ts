import type { Client, Tool } from '@modelcontextprotocol/client';
import { invalidHeaderAnnotation } from './param-headers.js';

/** At most this many pages of `tools/list` are read (a server whose cursor never ends is refused). */
export const MAX_TOOL_PAGES = 64;

/** Options of `listServerTools`. */
export interface ToolListing {
  readonly timeout: number;
  readonly signal?: AbortSignal;
  /**
   * True on an HTTP connection: tools whose `x-mcp-header` annotations break the 2026-07-28 revision's
   * rules are left out, each told to `excluded` (whatever revision was negotiated: on a 2025 server such
   * a tool is as broken, and on a 2026 one the SDK would leave it out silently).
   */
  readonly headersApply: boolean;
  readonly excluded: (tool: string, reason: string) => void;
}

/**
 * Every page of the server's `tools/list`, as the server sent it: the input schemas untouched (`$ref`,
 * `$defs`, 2020-12 keywords), never dereferenced. Requests go through the SDK (its envelope and
 * headers), not its list cache, whose filling would also turn on its output-schema validation: the
 * runtime checks structured content against the output schema itself.
 */
export async function listServerTools(client: Client, options: ToolListing): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const request = { timeout: options.timeout, ...(options.signal ? { signal: options.signal } : {}) };
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page += 1) {
    if (page === MAX_TOOL_PAGES)
      throw new Error(`tools/list did not end after ${MAX_TOOL_PAGES} pages (the server's cursor repeats)`);
    const params = cursor === undefined ? {} : { cursor };
    const result = await client.request({ method: 'tools/list', params }, request);
    tools.push(...result.tools);
    if (result.nextCursor === undefined || result.nextCursor === cursor) break;
    cursor = result.nextCursor;
  }
  if (!options.headersApply) return tools;
  return tools.filter((tool) => {
    const reason = invalidHeaderAnnotation(tool.inputSchema);
    if (reason !== null) options.excluded(tool.name, reason);
    return reason === null;
  });
}
