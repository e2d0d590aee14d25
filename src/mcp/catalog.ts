import type { ToolDescriptor } from '../domain/tool.js';
import { McpError, type ToolNameConflict } from './errors.js';

/** The tools one server exports, as listed (names are remote names). */
export interface ServerToolListing {
  readonly serverId: string;
  readonly tools: readonly ToolDescriptor[];
}

export type { ToolNameConflict } from './errors.js';

/**
 * CATALOG: the flow's MCP tools cannot be named unambiguously: two servers export one name without an
 * alias, or an alias names a `server.tool` that does not exist. The message lists every problem and the fix.
 */
function catalogError(conflicts: readonly ToolNameConflict[], unknownAliases: readonly string[]): McpError {
  return new McpError('CATALOG', catalogMessage(conflicts, unknownAliases), { conflicts, unknownAliases });
}

function catalogMessage(conflicts: readonly ToolNameConflict[], unknownAliases: readonly string[]): string {
  const parts: string[] = [];
  if (conflicts.length > 0) {
    const list = conflicts.map((c) => `${c.name} (${c.sources.join(', ')})`).join('; ');
    const example = conflicts[0]?.sources[1];
    const hint = example
      ? `; give all but one an alias under "aliases", e.g. "${example}: ${example.replace('.', '_')}"`
      : '';
    parts.push(`tool name conflicts: ${list}${hint}`);
  }
  if (unknownAliases.length > 0)
    parts.push(`aliases name tools that no server exports: ${unknownAliases.join(', ')}`);
  return parts.join('. ');
}

/**
 * Names the flow's MCP tools as the model sees them: the remote name, or the alias the flow gives
 * `server.tool` under `aliases`. Throws McpError CATALOG listing every conflict and every alias whose
 * `server.tool` does not exist. Result order: servers as listed, tools as each server listed them.
 */
export function resolveToolNames(
  listings: readonly ServerToolListing[],
  aliases: Readonly<Record<string, string>> = {},
): ToolDescriptor[] {
  const used = new Set<string>();
  const resolved: { source: string; tool: ToolDescriptor }[] = [];
  for (const listing of listings) {
    for (const tool of listing.tools) {
      const source = `${listing.serverId}.${tool.remoteName ?? tool.name}`;
      const alias = aliases[source];
      if (alias !== undefined) used.add(source);
      resolved.push({ source, tool: { ...tool, name: alias ?? tool.remoteName ?? tool.name } });
    }
  }
  const byName = new Map<string, string[]>();
  for (const { source, tool } of resolved) byName.set(tool.name, [...(byName.get(tool.name) ?? []), source]);
  const conflicts = [...byName]
    .filter(([, sources]) => sources.length > 1)
    .map(([name, sources]) => ({ name, sources }));
  const unknownAliases = Object.keys(aliases).filter((key) => !used.has(key));
  if (conflicts.length > 0 || unknownAliases.length > 0) throw catalogError(conflicts, unknownAliases);
  return resolved.map((r) => r.tool);
}
