import { InMemoryTransport, type McpServer } from '@modelcontextprotocol/server';
import type { TransportHandle } from '../../src/mcp/transport.js';

/**
 * A transport factory for `openMcpConnection` that talks to an MCP server in this process over the
 * SDK's linked in-memory pair: no child process, no port, so a tool test runs in milliseconds. Each
 * (re)connection gets a fresh server from `makeServer` (an McpServer serves one transport).
 */
export function inMemoryTransport(makeServer: () => McpServer): () => TransportHandle {
  return () => {
    const [client, server] = InMemoryTransport.createLinkedPair();
    const mcp = makeServer();
    const serving = mcp.connect(server);
    const start = client.start.bind(client);
    client.start = async () => {
      await serving;
      await start();
    };
    return {
      transport: client,
      endpoint: 'in-memory',
      stderr: null,
      pid: () => null,
      exit: () => null,
      sessionId: () => undefined,
      terminate: async () => {
        await mcp.close();
      },
    };
  };
}
