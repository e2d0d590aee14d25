import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/** A loopback Streamable HTTP endpoint in front of a stdio MCP server, and how to stop it. */
export interface StdioBridge {
  readonly url: string;
  close(): Promise<void>;
}

interface Leg {
  readonly http: WebStandardStreamableHTTPServerTransport;
  readonly stdio: StdioClientTransport;
}

/**
 * Serves a stdio MCP server over Streamable HTTP for a tool that only speaks HTTP (the conformance
 * suite's server scenarios): each MCP session starts its own server process (`command args`) and
 * relays JSON-RPC messages both ways unchanged; the HTTP side (sessions, streams) is the SDK's.
 */
export async function bridgeStdio(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
): Promise<StdioBridge> {
  const legs = new Map<string, Leg>();
  const started = new Set<StdioClientTransport>();
  const handle = async (request: Request): Promise<Response> => {
    const sessionId = request.headers.get('mcp-session-id');
    const known = sessionId === null ? undefined : legs.get(sessionId);
    if (known) return known.http.handleRequest(request);
    if (sessionId !== null) return new Response('Session not found', { status: 404 });
    const stdio = new StdioClientTransport({ command, args: [...args], env, stderr: 'ignore' });
    started.add(stdio);
    const http: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void legs.set(id, { http, stdio }),
      onsessionclosed: (id) => {
        legs.delete(id);
        void stdio.close();
      },
    });
    http.onmessage = (message) => void stdio.send(message);
    stdio.onmessage = (message) => void http.send(message);
    await stdio.start();
    await http.start();
    return http.handleRequest(request);
  };
  const listener = getRequestListener(handle);
  const server: Server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the bridge has no port');
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    async close() {
      await Promise.all([...started].map((stdio) => stdio.close()));
      started.clear();
      legs.clear();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
