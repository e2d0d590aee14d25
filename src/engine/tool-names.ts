import { FlowError } from '../flow/problems.js';
import { McpError } from '../mcp/errors.js';
import type { FlowRef, Toolbox } from './toolbox.js';

/**
 * Refuses, before a run is created, a flow whose MCP tools cannot be named unambiguously (two servers
 * export one name without an alias, or an alias names no tool): throws a FlowError at `aliases`, as
 * `validate` reports it. Lists the servers' tools through the toolbox, whose cached catalog the run
 * then reuses. A server that cannot be reached is not this check's business: the run reports it as a
 * failure exactly as before, so that error is left to the run.
 */
export async function refuseToolNameConflicts(toolbox: Toolbox, ref: FlowRef): Promise<void> {
  // Only two servers can clash, and only aliases can name a missing tool; a lone server connects in the run.
  const servers = Object.keys(ref.flow.mcpServers).length;
  if (servers < 2 && Object.keys(ref.flow.aliases ?? {}).length === 0) return;
  try {
    await toolbox.catalog(ref);
  } catch (error) {
    if (!(error instanceof McpError && error.code === 'CATALOG')) return;
    const file = 'path' in ref && typeof ref.path === 'string' ? ref.path : '<inline>';
    throw new FlowError([{ file, path: 'aliases', message: error.message }]);
  }
}
