import type { Flow } from '../domain/flow.js';
import { nodeKindOf, type NodeKindSpec } from '../domain/node-kinds.js';
import { listOf, suggest, type RawProblem } from './problems.js';

/**
 * Static checks of what a node takes from MCP servers besides tools (docs/flows.md): each of its
 * `resources` names a server the flow declares under `mcpServers`, once; its `prompt` names such a
 * server, in a node the model runs (not a code or map node). The flow's `starters` name such a server
 * too, each prompt once.
 */
export function serverContentProblems(flow: Flow): RawProblem[] {
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
    const prompt = node.prompt;
    if (!prompt) return;
    const kind: NodeKindSpec = nodeKindOf(node);
    if (kind.refuses.includes('prompt') || node.map)
      problems.push({
        path: ['nodes', i, 'prompt'],
        message: 'a code or map node has no model to read a prompt; expected prompt only in a model node',
      });
    else if (!Object.hasOwn(flow.mcpServers, prompt.server))
      problems.push({
        path: ['nodes', i, 'prompt', 'server'],
        message: `"${prompt.server}" is not an MCP server of this flow${suggest(prompt.server, servers)}; expected a key of mcpServers (${listOf(servers)})`,
      });
  });
  problems.push(...starterProblems(flow, servers));
  return problems;
}

function starterProblems(flow: Flow, servers: string[]): RawProblem[] {
  const starters = flow.starters;
  if (!starters) return [];
  const problems: RawProblem[] = [];
  if (!Object.hasOwn(flow.mcpServers, starters.server))
    problems.push({
      path: ['starters', 'server'],
      message: `"${starters.server}" is not an MCP server of this flow${suggest(starters.server, servers)}; expected a key of mcpServers (${listOf(servers)})`,
    });
  const seen = new Set<string>();
  (starters.prompts ?? []).forEach((name, j) => {
    if (seen.has(name))
      problems.push({
        path: ['starters', 'prompts', j],
        message: `prompt "${name}" is listed twice; expected each prompt once`,
      });
    seen.add(name);
  });
  return problems;
}
