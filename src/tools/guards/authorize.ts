import { isStdioServer, type Flow } from '../../domain/flow.js';
import { hint } from '../../domain/hints.js';
import type { ControlEffect } from '../call.js';

/**
 * True when a person can authorize the runtime at the flow's MCP server `server`: an HTTP server whose
 * entry has `auth` with grant authorization_code (docs/mcp.md, "Connect"). Servers with client
 * credentials (or cross-app access) authorize themselves; a server without `auth` cannot be authorized.
 */
export function personAuthorizes(flow: Flow, server: string): boolean {
  const config = flow.mcpServers[server];
  if (config === undefined || isStdioServer(config)) return false;
  return config.auth?.grant === 'authorization_code';
}

/**
 * The suspension of a run whose MCP server `server` needs a person to authorize it: a question of the
 * runtime with `authorization` (the server, and the tool whose call was refused, if any). It is
 * answered by the OAuth callback of `serve` (the console's Connect) or by `answer` after
 * `agent-runtime mcp login`.
 */
export function authorizationSuspension(
  flow: Flow,
  server: string,
  tool?: string,
): Extract<ControlEffect, { kind: 'suspend' }> {
  return {
    kind: 'suspend',
    suspension: {
      kind: 'FOLLOW_UP',
      pending: {
        question: hint(flow.locale, 'AUTHORIZATION_NEEDED', { server }),
        options: null,
        authorization: { server, ...(tool === undefined ? {} : { tool }) },
      },
    },
  };
}
