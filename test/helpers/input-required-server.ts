import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Streamable HTTP MCP server of the 2026-07-28 revision with one tool, `confirm_order`, that needs the
 * person: its first call answers `input_required` (two rounds: a form asking for the quantity, then a
 * confirmation), each with a request state naming the round; the retry of the last round carrying both
 * answers completes. Every `tools/call` it got is recorded with its JSON-RPC id.
 */
export interface InputRequiredServer {
  readonly url: string;
  readonly calls: { id: unknown; params: Record<string, unknown> }[];
  close(): Promise<void>;
}

const QUANTITY = {
  method: 'elicitation/create',
  params: {
    message: 'How many units?',
    requestedSchema: {
      type: 'object',
      properties: { quantity: { type: 'integer', minimum: 1 } },
      required: ['quantity'],
    },
  },
};
const CONFIRM = {
  method: 'elicitation/create',
  params: {
    message: 'Place the order?',
    requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean', default: true } } },
  },
};

function toolsCall(params: Record<string, unknown>): Record<string, unknown> {
  const responses = (params.inputResponses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  if (params.requestState === undefined)
    return { resultType: 'input_required', inputRequests: { quantity: QUANTITY }, requestState: 'round-1' };
  if (params.requestState === 'round-1') {
    const quantity = responses.quantity?.content?.quantity;
    return {
      resultType: 'input_required',
      inputRequests: { confirm: CONFIRM },
      requestState: `round-2:${String(quantity)}`,
    };
  }
  const state = typeof params.requestState === 'string' ? params.requestState : '';
  const confirmed = responses.confirm?.content?.confirmed === true;
  return {
    resultType: 'complete',
    content: [{ type: 'text', text: `order ${confirmed ? 'placed' : 'dropped'}: ${state.slice(8)} units` }],
  };
}

function answer(method: string, params: Record<string, unknown>): Record<string, unknown> | null {
  switch (method) {
    case 'server/discover':
      return {
        ttlMs: 0,
        cacheScope: 'private',
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        serverInfo: { name: 'input-required-test', version: '1.0.0' },
      };
    case 'tools/list':
      return {
        ttlMs: 0,
        cacheScope: 'private',
        tools: [
          {
            name: 'confirm_order',
            description: 'Places an order once the person said how many and confirmed.',
            inputSchema: { type: 'object', properties: {} },
          },
        ],
      };
    case 'tools/call':
      return toolsCall(params);
    default:
      return null;
  }
}

export async function startInputRequiredServer(): Promise<InputRequiredServer> {
  const calls: InputRequiredServer['calls'] = [];
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
      const params = message.params ?? {};
      if (message.method === 'tools/call') calls.push({ id: message.id, params });
      const result = answer(message.method, params);
      const reply =
        result === null
          ? {
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32601, message: `no method ${message.method}` },
            }
          : { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', ...result } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
