import type { Flow, McpServerConfig } from '../domain/flow.js';
import { listOf, suggest, type RawProblem } from './problems.js';
import { toolRefs } from './semantic-tools.js';

/**
 * The server part of `validate` (docs/flows.md): with the tool lists of the flow's MCP servers, every tool the
 * flow names exists, no two servers export one model-facing name unless one is aliased, every alias
 * names a tool of its server, and param contracts name parameters the tool has.
 */

/** A tool as one server lists it (its own name, before aliasing). */
export interface RemoteTool {
  readonly name: string;
  readonly inputSchema?: Readonly<Record<string, unknown>>;
  readonly readOnlyHint?: boolean;
  /** MCP annotation `openWorldHint`: the tool's results are untrusted text by default. */
  readonly openWorldHint?: boolean;
}

/**
 * Lists the tools of one server of the flow. `baseDir` is the flow's folder (a stdio server's default
 * working directory). Rejects when the server cannot be reached.
 */
export type ListServerTools = (
  serverId: string,
  server: McpServerConfig,
  baseDir: string,
) => Promise<readonly RemoteTool[]>;

/** A tool the model would see: its model-facing name, where it comes from. */
interface Visible {
  readonly server: string;
  readonly remote: RemoteTool;
}

/**
 * Lists (through `list`) the tools of every server of the flow and returns the problems found. A server
 * that cannot be listed is one problem at `mcpServers.<id>`; tool names are then not checked (any might
 * be that server's). Shared names are reported once per pair of servers.
 */
export async function serverProblems(
  flow: Flow,
  baseDir: string,
  list: ListServerTools,
  knownTools: ReadonlySet<string> = new Set(),
  builtins: ReadonlySet<string> = new Set(),
): Promise<RawProblem[]> {
  const problems: RawProblem[] = [];
  const entries = Object.entries(flow.mcpServers);
  const listed = await Promise.allSettled(entries.map(([id, server]) => list(id, server, baseDir)));
  const byServer = new Map<string, readonly RemoteTool[]>();
  listed.forEach((result, i) => {
    const id = entries[i]?.[0] ?? '';
    if (result.status === 'fulfilled') byServer.set(id, result.value);
    else
      problems.push({
        path: ['mcpServers', id],
        message: `cannot list the server's tools: ${reasonOf(result.reason)}; expected a reachable MCP server`,
      });
  });
  const visible = visibleTools(flow, byServer, problems);
  // With a server unreachable, a name missing from the others may well be one of its tools.
  const complete = byServer.size === entries.length;
  const names = [...visible.keys(), ...knownTools];
  const hidden = capabilityNote(flow);
  // A name no server has may be a local tool whose module was not given (run, chat, validate, eval: --tools).
  const local =
    knownTools.size === 0
      ? '; a local tool (defineTool) or a builtin (defineBuiltin) is given with --tools MODULE'
      : '';
  for (const ref of toolRefs(flow)) {
    if (!complete || visible.has(ref.name) || knownTools.has(ref.name)) continue;
    problems.push({
      path: ref.path,
      ...(ref.atKey ? { atKey: true } : {}),
      message: `no server exports a tool "${ref.name}"${suggest(ref.name, names)}; expected one of: ${listOf(names.slice(0, 30))}${hidden}${local}`,
    });
  }
  // The runtime refuses a run whose server has a tool of a builtin's name (src/engine/default-toolbox.ts).
  for (const name of builtins) {
    const clash = visible.get(name);
    if (clash)
      problems.push({
        path: ['mcpServers', clash.server],
        message: `builtin ${name} (--tools) has the name of a tool of server ${clash.server}; expected another name for the builtin, or an alias for the tool (aliases: { ${clash.server}.${clash.remote.name}: ${name}_${clash.server} })`,
      });
  }
  problems.push(...paramNameProblems(flow, visible));
  return problems;
}

/**
 * Servers offer some tools only to clients that declare a capability (server-everything hides its
 * sampling tool from a client without `sampling`, its roots tool from one without roots). The runtime
 * declares elicitation always, sampling and roots only when a server entry grants them: a missing tool
 * names what the flow does not grant, since that may be why.
 */
function capabilityNote(flow: Flow): string {
  const withheld = Object.entries(flow.mcpServers).flatMap(([id, server]) => {
    const missing = [
      ...(server.sampling === true ? [] : ['sampling (`sampling: true`)']),
      ...(server.roots && server.roots.length > 0 ? [] : ['roots (`roots`)']),
    ];
    return missing.length > 0 ? [`${id} is not offered ${missing.join(' or ')}`] : [];
  });
  return withheld.length === 0
    ? ''
    : `; a server may hide tools that need a client capability: ${withheld.join('; ')}`;
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Model-facing names → their tool; reports collisions and aliases of unknown tools. */
function visibleTools(
  flow: Flow,
  byServer: ReadonlyMap<string, readonly RemoteTool[]>,
  problems: RawProblem[],
): Map<string, Visible> {
  const visible = new Map<string, Visible>();
  const shared = new Map<string, { first: string; second: string; names: [string, string][] }>();
  for (const [server, tools] of byServer) {
    for (const remote of tools) {
      const name = flow.aliases[`${server}.${remote.name}`] ?? remote.name;
      const other = visible.get(name);
      if (!other) {
        visible.set(name, { server, remote });
        continue;
      }
      const pair = `${other.server}\n${server}`;
      const entry = shared.get(pair) ?? { first: other.server, second: server, names: [] };
      entry.names.push([name, remote.name]);
      shared.set(pair, entry);
    }
  }
  for (const { first, second, names } of shared.values()) {
    const [name, remote] = names[0] ?? ['', ''];
    const all = names.map(([n]) => `"${n}"`).join(', ');
    problems.push({
      path: ['mcpServers', second],
      message: `servers "${first}" and "${second}" both export ${names.length === 1 ? 'a tool named' : 'tools named'} ${all}; expected an alias under aliases for one of each, e.g. { ${second}.${remote}: ${second}_${name} }`,
    });
  }
  for (const key of Object.keys(flow.aliases)) {
    const dot = key.indexOf('.');
    const tools = byServer.get(key.slice(0, dot));
    const remote = key.slice(dot + 1);
    if (tools && !tools.some((t) => t.name === remote)) {
      const names = tools.map((t) => t.name);
      problems.push({
        path: ['aliases', key],
        atKey: true,
        message: `server "${key.slice(0, dot)}" exports no tool "${remote}"${suggest(remote, names)}; expected one of: ${listOf(names)}`,
      });
    }
  }
  return visible;
}

/**
 * `params`, verify/recover `args` and the arguments a `from` entry's `where` tests name parameters of
 * the tool's input schema, when it lists them.
 */
function paramNameProblems(flow: Flow, visible: ReadonlyMap<string, Visible>): RawProblem[] {
  const problems: RawProblem[] = [];
  // `listed`: the names are the items of a list at `base` (`text.params`), not keys under it.
  const check = (tool: string, names: string[], base: (string | number)[], listed = false): void => {
    const properties = visible.get(tool)?.remote.inputSchema?.properties;
    if (typeof properties !== 'object' || properties === null) return;
    const known = Object.keys(properties);
    for (const [i, name] of names.entries()) {
      if (known.includes(name)) continue;
      problems.push({
        path: [...base, listed ? i : name],
        atKey: !listed,
        message: `tool "${tool}" has no parameter "${name}"${suggest(name, known)}; expected one of: ${listOf(known)}`,
      });
    }
  };
  for (const [tool, policy] of Object.entries(flow.tools)) {
    check(tool, Object.keys(policy.params ?? {}), ['tools', tool, 'params']);
    if (policy.text) check(tool, policy.text.params, ['tools', tool, 'text', 'params'], true);
    if (policy.verify)
      check(policy.verify.tool, Object.keys(policy.verify.args), ['tools', tool, 'verify', 'args']);
    if (policy.recover)
      check(policy.recover.tool, Object.keys(policy.recover.args), ['tools', tool, 'recover', 'args']);
  }
  for (const ref of toolRefs(flow))
    if (ref.whereArgs) check(ref.name, [...ref.whereArgs], [...ref.path.slice(0, -1), 'where']);
  return problems;
}
