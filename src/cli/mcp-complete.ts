import { dirname, resolve } from 'node:path';
import { loadFlow } from '../flow/load.js';
import { openMcpConnection } from '../mcp/connection.js';
import { describeError } from '../mcp/errors.js';
import { completeArgument, type CompletionRef } from '../mcp/server-content.js';
import { parse, str, strings, UsageError } from './args.js';

/** Usage of `agent-runtime mcp complete`. */
export const MCP_COMPLETE_USAGE = `Usage: agent-runtime mcp complete FLOW.yaml SERVER ARG [VALUE] (--prompt NAME | --template URI)
                                   [--context NAME=VALUE]... [--tenant T]

  complete  asks the flow's MCP server SERVER for values of argument ARG of prompt NAME (or variable
            ARG of resource template URI) that start from VALUE (default: empty), the other
            arguments given with --context; prints one value a line (docs/mcp.md, "Completions").`;

/**
 * `mcp complete` (docs/mcp.md, "Completions"): prints the server's suggestions one a line; exit 0 (none
 * is no error), 2 for bad input, 1 when the server cannot be reached or refuses.
 */
export async function mcpComplete(argv: string[]): Promise<number> {
  const parsed = parse(
    'mcp complete',
    argv,
    {
      help: { type: 'boolean', short: 'h' },
      prompt: { type: 'string' },
      template: { type: 'string' },
      context: { type: 'string', multiple: true },
      tenant: { type: 'string' },
    },
    { min: 3, max: 4, names: 'FLOW.yaml SERVER ARG' },
  );
  if (parsed.values.help) {
    process.stdout.write(`${MCP_COMPLETE_USAGE}\n`);
    return 0;
  }
  const [file, serverId, name, value = ''] = parsed.positionals as [string, string, string, string?];
  const ref = completionRef(str(parsed, 'prompt'), str(parsed, 'template'));
  const context = contextOf(strings(parsed, 'context'));
  const path = resolve(file);
  const { flow } = await loadFlow(path);
  const config = flow.mcpServers[serverId];
  if (!config)
    throw new UsageError(`mcp complete: flow ${flow.id} declares no MCP server ${JSON.stringify(serverId)}`);
  const tenant = str(parsed, 'tenant') ?? null;
  const connection = openMcpConnection({ serverId, config, baseDir: dirname(path), tenant });
  try {
    const completion = await completeArgument(connection, ref, { name, value }, context);
    for (const item of completion.values) process.stdout.write(`${item}\n`);
    if (completion.hasMore === true)
      process.stderr.write(
        `(more values${completion.total === undefined ? '' : `: ${completion.total} in all`}; type more of the value)\n`,
      );
    return 0;
  } catch (error) {
    process.stderr.write(`agent-runtime: mcp complete: MCP server ${serverId}: ${describeError(error)}\n`);
    return 1;
  } finally {
    await connection.close();
  }
}

function completionRef(prompt: string | undefined, template: string | undefined): CompletionRef {
  if ((prompt === undefined) === (template === undefined))
    throw new UsageError(`mcp complete: give either --prompt NAME or --template URI\n${MCP_COMPLETE_USAGE}`);
  return prompt !== undefined
    ? { type: 'prompt', name: prompt }
    : { type: 'template', uri: template as string };
}

function contextOf(pairs: string[]): Record<string, string> {
  const context: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`mcp complete: --context ${JSON.stringify(pair)}: expected NAME=VALUE`);
    context[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return context;
}
