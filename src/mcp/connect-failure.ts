import type { McpServerConfig } from '../domain/flow.js';
import type { Logger } from '../log/logger.js';
import { connectError, describeError, isIncompatible, isUnauthorized, McpError } from './errors.js';
import type { TransportHandle } from './transport.js';

/** What a connection knows when it turns a failure into an McpError. */
export interface FailureContext {
  readonly serverId: string;
  readonly config: McpServerConfig;
  readonly logger: Logger;
  /** The last lines the server wrote on stderr (stdio servers). */
  readonly stderrTail: readonly string[];
}

/**
 * Why a connection could not be made, as the McpError the pool and the invoker classify: UNAUTHORIZED
 * (a person must authorize), INCOMPATIBLE (permanent) or a connect error naming how the server's
 * process ended. Logged at `warn` with the server's last stderr lines.
 */
export function connectFailure(ctx: FailureContext, handle: TransportHandle, error: unknown): McpError {
  const exit = handle.exit();
  const ended =
    exit === null
      ? ''
      : exit.signal !== null
        ? `; the server process was killed by ${exit.signal}`
        : `; the server process exited with code ${String(exit.code)}`;
  ctx.logger.warn('MCP server failed to connect', {
    server: ctx.serverId,
    endpoint: handle.endpoint,
    error: describeError(error),
    ...(exit !== null ? { exitCode: exit.code ?? undefined, signal: exit.signal ?? undefined } : {}),
    stderr: ctx.stderrTail.length > 0 ? ctx.stderrTail.slice(-5).join(' | ') : undefined,
  });
  const logged = ctx.stderrTail.length > 0 ? ' (its stderr is in the log)' : '';
  if (isUnauthorized(error)) return unauthorizedError(ctx, handle, error);
  if (isIncompatible(error))
    return new McpError(
      'INCOMPATIBLE',
      `MCP server ${ctx.serverId} cannot be used: ${describeError(error)} (a permanent failure; retrying does not help)`,
      { serverId: ctx.serverId, cause: error },
    );
  return connectError(
    ctx.serverId,
    `cannot connect to MCP server ${ctx.serverId}: ${describeError(error)}${ended}${logged}`,
    error,
  );
}

/**
 * The server refused for want of authorization (a 401, or a 403 step-up no person could answer),
 * at the handshake or at any request after it: McpError UNAUTHORIZED naming the server and the login.
 */
export function unauthorizedError(ctx: FailureContext, handle: TransportHandle, error: unknown): McpError {
  const login = `run \`agent-runtime mcp login FLOW ${ctx.serverId}\` (docs/mcp.md)`;
  const hasAuth = 'auth' in ctx.config && ctx.config.auth !== undefined;
  return new McpError(
    'UNAUTHORIZED',
    `MCP server ${ctx.serverId} needs authorization (HTTP 401 from ${handle.endpoint}): ` +
      (hasAuth ? login : `give its entry \`auth\` and ${login}`),
    { serverId: ctx.serverId, cause: error },
  );
}
