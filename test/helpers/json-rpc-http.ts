import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One JSON-RPC request as a plain MCP test server gets it (notifications are answered 202 before). */
export interface JsonRpcRequest {
  readonly id: unknown;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** What a plain MCP test server answers one request with: its result, or its JSON-RPC error. */
export type JsonRpcAnswer = { result: unknown } | { error: { code: number; message: string } };

/** A bare HTTP JSON-RPC server listening on 127.0.0.1: its MCP URL and how to close it. */
export interface JsonRpcHttpServer {
  readonly url: string;
  close: () => Promise<void>;
}

/**
 * Serves JSON-RPC over plain HTTP POSTs (no session, no SSE) at `http://127.0.0.1:<port>/mcp`: a
 * notification gets 202, any other method than POST 405, a request the JSON reply `answer` gives.
 */
export async function startJsonRpcHttpServer(
  answer: (request: JsonRpcRequest) => JsonRpcAnswer,
): Promise<JsonRpcHttpServer> {
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') {
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as { id?: unknown; method: string; params?: Record<string, unknown> };
      if (message.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const reply = answer({ id: message.id, method: message.method, params: message.params ?? {} });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, ...reply }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
