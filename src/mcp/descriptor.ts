import type { Tool } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../domain/flow.js';
import type { ToolDescriptor } from '../domain/tool.js';
import { pickIcon } from '../domain/tool-icon.js';

export { withIcon } from '../domain/tool-icon.js';

/**
 * An MCP tool as a runtime descriptor (name = remote name; aliasing happens in the catalog). Its
 * `readOnlyHint` is dropped when the server entry says `trustReadOnlyHint: false`.
 */
export function toDescriptor(serverId: string, tool: Tool, config?: McpServerConfig): ToolDescriptor {
  const trusted = config?.trustReadOnlyHint !== false;
  const icon = pickIcon(tool.icons);
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: tool.inputSchema,
    kind: 'mcp',
    server: serverId,
    remoteName: tool.name,
    readOnlyHint: trusted ? tool.annotations?.readOnlyHint : undefined,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.execution?.taskSupport === undefined ? {} : { taskSupport: tool.execution.taskSupport }),
    ...(tool.annotations?.openWorldHint === undefined
      ? {}
      : { openWorldHint: tool.annotations.openWorldHint }),
    ...(tool.annotations?.destructiveHint === undefined
      ? {}
      : { destructiveHint: tool.annotations.destructiveHint }),
    ...(icon === undefined ? {} : { icon }),
  };
}
