import type { Flow } from '../domain/flow.js';
import { listOf, suggest, type RawProblem } from './problems.js';

/**
 * Static checks of a node's `resources` (docs/flows.md): each names a server the flow declares under
 * `mcpServers`, once.
 */
export function resourceProblems(flow: Flow): RawProblem[] {
  const problems: RawProblem[] = [];
  const servers = Object.keys(flow.mcpServers);
  flow.nodes.forEach((node, i) => {
    const seen = new Set<string>();
    (node.resources ?? []).forEach((server, j) => {
      const path = ['nodes', i, 'resources', j];
      if (seen.has(server))
        problems.push({ path, message: `server "${server}" is listed twice; expected each server once` });
      else if (!Object.hasOwn(flow.mcpServers, server))
        problems.push({
          path,
          message: `"${server}" is not an MCP server of this flow${suggest(server, servers)}; expected a key of mcpServers (${listOf(servers)})`,
        });
      seen.add(server);
    });
  });
  return problems;
}
