import { startJsonRpcHttpServer } from './json-rpc-http.js';

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
  const http = await startJsonRpcHttpServer(({ id, method, params }) => {
    if (method === 'tools/call') calls.push({ id, params });
    const result = answer(method, params);
    return result === null
      ? { error: { code: -32601, message: `no method ${method}` } }
      : { result: { resultType: 'complete', ...result } };
  });
  return {
    url: http.url,
    calls,
    close: http.close,
  };
}
