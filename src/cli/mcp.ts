import { resolve } from 'node:path';
import { isStdioServer } from '../domain/flow.js';
import { loadFlow } from '../flow/load.js';
import { McpError } from '../mcp/errors.js';
import { loginMcpServer } from '../mcp/login.js';
import { FileCredentialStore } from '../mcp/token-store.js';
import { parse, UsageError } from './args.js';
import type { Command } from './commands.js';

/** Usage of `agent-runtime mcp`. */
export const MCP_USAGE = `Usage: agent-runtime mcp login FLOW.yaml SERVER [--tenant T]
       agent-runtime mcp serve --flows DIR [--console-url URL] [--db URL]
       agent-runtime mcp complete FLOW.yaml SERVER ARG [VALUE] (--prompt NAME | --template URI) [--context NAME=VALUE]...

  login   authorizes the runtime at the flow's HTTP MCP server SERVER (its entry has \`auth\`):
          prints the URL to open, waits on a loopback redirect (127.0.0.1), stores the tokens
          encrypted (AGENT_RUNTIME_SECRET_KEY; folder AGENT_RUNTIME_MCP_AUTH_DIR, default
          .agent-runtime/mcp-auth) for the tenant (default: none, as CLI runs).
  serve   offers each flow under DIR as an MCP tool over stdio (docs/mcp.md, "Serving flows as MCP tools").
  complete  prints the server's suggested values for an argument of a prompt or resource template.`;

/**
 * `mcp login FLOW SERVER`: exit 0 once authorized, 2 for bad input, 1 when authorization failed.
 * `mcp serve --flows DIR`: src/cli/mcp-serve.ts; `mcp complete`: src/cli/mcp-complete.ts.
 */
export const mcp: Command = async (argv) => {
  if (argv[0] === 'serve') return (await import('./mcp-serve.js')).mcpServe(argv.slice(1));
  if (argv[0] === 'complete') return (await import('./mcp-complete.js')).mcpComplete(argv.slice(1));
  const parsed = parse(
    'mcp',
    argv,
    { help: { type: 'boolean', short: 'h' }, tenant: { type: 'string' } },
    { min: 3, max: 3, names: 'login FLOW.yaml SERVER' },
  );
  const [action, file, serverId] = parsed.positionals as [string, string, string];
  if (action !== 'login') throw new UsageError(`mcp: unknown action ${JSON.stringify(action)}\n${MCP_USAGE}`);
  const { flow } = await loadFlow(resolve(file));
  const config = flow.mcpServers[serverId];
  if (!config)
    throw new UsageError(`mcp: flow ${flow.id} declares no MCP server ${JSON.stringify(serverId)}`);
  if (isStdioServer(config)) throw new UsageError(`mcp: MCP server ${serverId} is a stdio server: no login`);
  const tenant = typeof parsed.values.tenant === 'string' ? parsed.values.tenant : null;
  let result;
  try {
    result = await loginMcpServer({
      serverId,
      config,
      tenant,
      store: FileCredentialStore.fromEnv(),
      showUrl: (url) =>
        process.stderr.write(`Open this URL to authorize MCP server ${serverId}:\n  ${url.href}\n`),
    });
  } catch (error) {
    // Refused, timed out, a server still refusing the token, no key to store it: said as it is.
    if (!(error instanceof McpError)) throw error;
    process.stderr.write(`agent-runtime: mcp login: ${error.message}\n`);
    return 1;
  }
  process.stderr.write(
    `MCP server ${serverId}: ${result.authorized ? 'authorized' : 'already authorized'} (${result.tools} tools)\n`,
  );
  return 0;
};
