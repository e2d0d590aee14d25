import { openMcpConnection } from '../mcp/connection.js';
import { describeError } from '../mcp/errors.js';
import type { McpConnection } from '../mcp/types.js';
import type { LoadedFlow } from '../flow/load.js';
import type { ServerDeps } from './context.js';
import type { Principal } from './tokens.js';
import { ApiError } from './errors.js';

/** The caller's tenant's flow `flowId`, else the shared one; 404 FLOW_NOT_FOUND when neither exists. */
export function flowOf(deps: ServerDeps, flowId: string, principal: Principal): LoadedFlow {
  const entry = deps.flows.entry(flowId, principal.tenant);
  if (!entry)
    throw new ApiError(404, 'FLOW_NOT_FOUND', `unknown flow id ${flowId} (GET /v1/flows lists them)`);
  return entry.loaded;
}

/**
 * Connects to MCP server `server` of the caller's flow `flowId` for one request, like a run would (the
 * same entry, environment and the tenant's OAuth tokens), runs `use` and closes the connection. 404 when
 * the flow or the server is unknown; 502 MCP_UNAVAILABLE when the server cannot be reached or refuses.
 * An ApiError thrown by `use` passes unchanged.
 */
export async function withFlowServer<T>(
  deps: ServerDeps,
  principal: Principal,
  flowId: string,
  server: string,
  use: (connection: McpConnection) => Promise<T>,
): Promise<T> {
  const loaded = flowOf(deps, flowId, principal);
  const flow = loaded.flow;
  const config = Object.hasOwn(flow.mcpServers, server) ? flow.mcpServers[server] : undefined;
  if (!config)
    throw new ApiError(404, 'NOT_FOUND', `flow ${flowId} declares no MCP server ${JSON.stringify(server)}`);
  const connection = openMcpConnection({
    serverId: server,
    config,
    baseDir: loaded.dir ?? deps.flows.baseDir,
    tenant: principal.tenant,
    logger: deps.logger,
  });
  try {
    return await use(connection);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(502, 'MCP_UNAVAILABLE', `MCP server ${server}: ${describeError(error)}`);
  } finally {
    await connection.close();
  }
}
