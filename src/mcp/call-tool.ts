import type { ToolImage } from '../domain/tool-image.js';
import { contentImages } from './content.js';
import type { McpElicitation } from './elicitation.js';
import { McpError } from './errors.js';
import { classify, type Classified } from './failure-kind.js';
import { mcpErrorText, mcpResultData } from './result.js';
import type { McpCallOptions, McpCallResult, McpServerLookup } from './types.js';

/** What one MCP tool call came to, decided here: the invoker only words it (src/tools/invoker.ts). */
export type McpToolAnswer =
  /** The connection or the call failed: the kind of failure, classified (src/mcp/failure-kind.ts). */
  | { readonly kind: 'failed'; readonly failure: Classified }
  /** The tool runs as a task that outlasted the call's wait: the run waits for it (docs/mcp.md). */
  | { readonly kind: 'working'; readonly working: NonNullable<McpCallResult['working']> }
  /** The tool must run as a task and the server cannot run tasks: it was not sent. */
  | { readonly kind: 'noTasks' }
  /** The call was cancelled for a question the person has to answer. */
  | { readonly kind: 'elicitation'; readonly elicitation: McpElicitation }
  /** The tool answered `isError`: its text and its result data. */
  | { readonly kind: 'toolError'; readonly detail: string; readonly data: unknown }
  /** The tool's result, its data and its images (size and digest kept). */
  | {
      readonly kind: 'result';
      readonly result: McpCallResult;
      readonly data: unknown;
      readonly images: ToolImage[];
    };

/**
 * Calls tool `remoteName` on MCP server `server` of a flow, looking its connection up for this call
 * (the pool may have closed an idle one since, and refuses with McpError CONNECT when the tenant's
 * connections are all busy), and says what it came to. Never throws for a failure of the server or
 * the connection; throws what is not an McpError when the lookup fails (a wiring bug).
 */
export async function callMcpTool(
  servers: McpServerLookup,
  server: string,
  remoteName: string,
  args: Readonly<Record<string, unknown>>,
  options: McpCallOptions,
): Promise<McpToolAnswer> {
  let connection;
  try {
    connection = servers.connection(server);
  } catch (error) {
    if (!(error instanceof McpError)) throw error;
    return { kind: 'failed', failure: classify(error) };
  }
  let result;
  try {
    result = await connection.callTool(remoteName, args, options);
  } catch (error) {
    return { kind: 'failed', failure: classify(error) };
  }
  if (result.noTasks) return { kind: 'noTasks' };
  if (result.working) return { kind: 'working', working: result.working };
  if (result.elicitation) return { kind: 'elicitation', elicitation: result.elicitation };
  const data = mcpResultData(result);
  if (result.isError) return { kind: 'toolError', detail: mcpErrorText(result), data };
  // Images reach models that read them as images whatever else the result carries (structuredContent
  // included): the result keeps only their size and digest.
  return { kind: 'result', result, data, images: contentImages(result.content) };
}
