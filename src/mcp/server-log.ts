import { LOG_LEVEL_META_KEY, type Client, type LoggingLevel } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../domain/flow.js';
import type { Logger } from '../log/logger.js';
import { describeError } from './errors.js';

/**
 * Server log messages (docs/mcp.md, "Server log messages"): a server's `notifications/message` goes to
 * this process's log at `debug` and, when exactly one tool call of the connection is in flight, to
 * that call (the runtime traces it as `mcp.log`). With none or several in flight the message says
 * nothing about which run it belongs to, so no run's trace gets it.
 */

/** One `notifications/message` as a call is told of it. */
export interface McpLogMessage {
  readonly level: LoggingLevel;
  readonly logger?: string;
  /** The message's `data`, any JSON value. */
  readonly data: unknown;
}

/** Told about the server log messages of one call. */
export type LogSink = (message: McpLogMessage) => void;

/** Listens to the server's log messages and passes each on as the module comment says. */
export function serveLogging(
  client: Client,
  serverId: string,
  calls: () => readonly LogSink[],
  logger: Logger,
): void {
  client.setNotificationHandler('notifications/message', (notification) => {
    const { level, logger: name, data } = notification.params;
    logger.debug('MCP server log', { server: serverId, level, logger: name });
    const sinks = calls();
    if (sinks.length !== 1) return;
    sinks[0]?.({ level, ...(typeof name === 'string' ? { logger: name } : {}), data });
  });
}

/**
 * The per-request `_meta` that asks a 2026-07-28 server for log messages of the entry's `logLevel` and
 * above (that revision has no `logging/setLevel`: a request without the key gets no log messages); empty
 * for a 2025 session or an entry without `logLevel`.
 */
export function logLevelMeta(client: Client, config: McpServerConfig): Record<string, LoggingLevel> {
  const level = config.logLevel;
  return level !== undefined && client.getProtocolEra() === 'modern' ? { [LOG_LEVEL_META_KEY]: level } : {};
}

/**
 * Sends `logging/setLevel` with the entry's `logLevel` once connected (2025 revisions), when the server declares the
 * logging capability; a refusal is logged at `warn` and the connection goes on.
 */
export async function setLogLevel(
  client: Client,
  serverId: string,
  config: McpServerConfig,
  logger: Logger,
  timeoutMs: number,
): Promise<void> {
  const level = config.logLevel;
  if (level === undefined || client.getProtocolEra() === 'modern') return;
  if (client.getServerCapabilities()?.logging === undefined) return;
  try {
    await client.setLoggingLevel(level, { timeout: timeoutMs });
  } catch (error) {
    logger.warn('MCP logging/setLevel refused', { server: serverId, level, error: describeError(error) });
  }
}
