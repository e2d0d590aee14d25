import { openMcpConnection } from '../mcp/connection.js';
import type { ListServerTools } from './mcp-check.js';

/**
 * Lists a server's tools over a fresh MCP connection (stdio or Streamable HTTP), closed afterwards so
 * that `validate` leaves no server process behind.
 */
export const listToolsOverMcp: ListServerTools = async (serverId, config, baseDir) => {
  const connection = openMcpConnection({ serverId, config, baseDir });
  try {
    const tools = await connection.listTools();
    return tools.map((tool) => ({
      name: tool.remoteName ?? tool.name,
      inputSchema: tool.inputSchema,
      ...(tool.readOnlyHint === undefined ? {} : { readOnlyHint: tool.readOnlyHint }),
      ...(tool.openWorldHint === undefined ? {} : { openWorldHint: tool.openWorldHint }),
    }));
  } finally {
    await connection.close();
  }
};
