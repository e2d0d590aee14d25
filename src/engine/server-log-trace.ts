import type { McpLogMessage } from '../mcp/server-log.js';
import type { ProgressCall } from './progress-trace.js';
import type { RunSession } from './session.js';

/** At most this many `mcp.log` events per call; later messages of the call are not traced. */
export const SERVER_LOG_MAX_EVENTS = 50;

/** A message's `data` is traced as text of at most this many characters. */
export const SERVER_LOG_DATA_CHARS = 1_000;

/**
 * What a call does with the log messages its MCP server sent while it ran (docs/trace.md, `mcp.log`):
 * each becomes an `mcp.log` event with the server, the level, the logger name and the data as text
 * (a string as is, anything else as JSON), cut to SERVER_LOG_DATA_CHARS. A chatty server cannot flood
 * the trace: at most SERVER_LOG_MAX_EVENTS per call, the last of which says that later ones were dropped.
 */
export function serverLogTrace(
  session: RunSession,
  call: ProgressCall,
): (message: McpLogMessage, server: string) => void {
  let traced = 0;
  return (message, server) => {
    if (traced >= SERVER_LOG_MAX_EVENTS) return;
    traced += 1;
    session.emit({
      type: 'mcp.log',
      ...call,
      server,
      level: message.level,
      ...(message.logger === undefined ? {} : { logger: cut(message.logger, 100) }),
      data: cut(dataText(message.data), SERVER_LOG_DATA_CHARS),
      ...(traced === SERVER_LOG_MAX_EVENTS ? { capped: true } : {}),
    });
  };
}

function dataText(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    // A value JSON cannot write (a cycle cannot come over the wire; kept as a guard): its string form.
    return String(data);
  }
}

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}
