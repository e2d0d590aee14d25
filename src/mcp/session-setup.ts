import {
  Client,
  type ClientCapabilities,
  type Transport,
  type VersionNegotiationOptions,
} from '@modelcontextprotocol/client';
import { CLIENT_INFO } from './client-info.js';
import { createInterface } from 'node:readline';
import { isStdioServer, type McpServerConfig } from '../domain/flow.js';
import type { TransportHandle } from './transport.js';

/** Lines of a stdio server's stderr kept for the messages of a failed connection. */
const STDERR_TAIL_LINES = 20;

/** Reads a stdio server's stderr line by line: each to `log`, the last STDERR_TAIL_LINES kept in `tail`. */
export function readStderr(handle: TransportHandle, tail: string[], log: (line: string) => void): void {
  if (!handle.stderr) return;
  const lines = createInterface({ input: handle.stderr, crlfDelay: Infinity });
  lines.on('line', (line) => {
    tail.push(line);
    if (tail.length > STDERR_TAIL_LINES) tail.shift();
    log(line);
  });
}

/**
 * What the runtime declares to a server in `initialize` (docs/mcp.md, "Client capabilities"): `roots`
 * only when the flow gives the server roots; `elicitation` (form and URL mode) always, since every run
 * can ask its person; `sampling` only when the server entry says `sampling: true`.
 */
export function clientCapabilities(config: McpServerConfig): ClientCapabilities {
  return {
    ...(config.roots && config.roots.length > 0 ? { roots: { listChanged: false } } : {}),
    elicitation: { form: {}, url: {} },
    ...(config.sampling === true ? { sampling: {} } : {}),
  };
}

/** The SDK client of one session with a server: its capabilities and how it picks the revision. */
export function newClient(config: McpServerConfig): Client {
  return new Client(CLIENT_INFO, {
    capabilities: clientCapabilities(config),
    versionNegotiation: versionNegotiation(config),
  });
}

/**
 * How the client picks the protocol revision (docs/mcp.md, "Protocol revisions"): the entry's
 * `protocol`, else `auto` for HTTP servers (a `server/discover` probe, then the 2025 `initialize`
 * handshake when the server does not answer it as a 2026-07-28 server) and `legacy` for stdio servers —
 * the SDK probes a stdio server in a second, short-lived process started with the same command, which
 * costs a start and repeats whatever the server does when it starts.
 */
export function versionNegotiation(config: McpServerConfig): VersionNegotiationOptions {
  const chosen = config.protocol ?? (isStdioServer(config) ? 'legacy' : 'auto');
  return chosen === 'auto' || chosen === 'legacy' ? { mode: chosen } : { mode: { pin: chosen } };
}

/** Answers the server's `roots/list` with the flow's roots for it (only registered when it has some). */
export function serveRoots(client: Client, config: McpServerConfig): void {
  const roots = config.roots ?? [];
  if (roots.length === 0) return;
  client.setRequestHandler('roots/list', () => ({
    roots: roots.map((r) => ({ uri: r.uri, ...(r.name === undefined ? {} : { name: r.name }) })),
  }));
}

/** The messages a transport is still sending, so that closing waits for them. */
export interface SendTracker {
  /** Resolves once every send started so far has settled, or after `capMs`, whichever is first. */
  settled(capMs: number): Promise<void>;
}

/**
 * Tracks every `send` of `transport`. The SDK sends `notifications/cancelled` for an aborted or timed
 * out request without waiting for it; over Streamable HTTP that is a POST which `close()` would abort,
 * so a run ending right after a cancelled call never told the server. Closing waits for these sends.
 */
export function trackSends(transport: Transport): SendTracker {
  const inFlight = new Set<Promise<void>>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const sending = send(message, options);
    const settled = sending.then(
      () => undefined,
      () => undefined,
    );
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
    return sending;
  };
  return {
    async settled(capMs) {
      if (inFlight.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, capMs);
        timer.unref();
      });
      await Promise.race([Promise.all(inFlight), cap]);
      clearTimeout(timer);
    },
  };
}
