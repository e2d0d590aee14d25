#!/usr/bin/env node
// @ts-check
/**
 * demo-cloud: a small MCP server over spaces and web sites, used by the examples and the tests.
 *
 *   node examples/demo-cloud/server.js                      # stdio (default)
 *   node examples/demo-cloud/server.js --http --port 8931   # Streamable HTTP at http://127.0.0.1:8931/mcp
 *
 * Options: --dedupe (or env DEMO_CLOUD_DEDUPE=1) deduplicates writes by the request's
 * `_meta.idempotencyKey`; env DEMO_CLOUD_DATA sets the data folder (default: a folder in the temp dir).
 * In HTTP mode the URL is printed on stdout (one line) once the server listens; `--port 0` picks a free port.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { dataDir } from './store.js';
import { callTool, TOOLS } from './tools.js';

/** @typedef {import('./tools.js').Options} Options */

/**
 * A fresh low-level MCP server instance (one per stdio connection, one per HTTP request). The low-level
 * `Server` is used instead of `McpServer` so that `strict_echo` can answer a real JSON-RPC -32602.
 * @param {Options} options
 */
export function createDemoServer(options) {
  const server = new Server({ name: 'demo-cloud', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', () => ({
    tools: TOOLS.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: t.annotations,
    })),
  }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const meta = /** @type {Record<string, unknown>} */ ({ ...request.params._meta, ...ctx.mcpReq._meta });
    const key = typeof meta.idempotencyKey === 'string' ? meta.idempotencyKey : null;
    const args = /** @type {Record<string, unknown>} */ (request.params.arguments ?? {});
    return callTool(request.params.name, args, { signal: ctx.mcpReq.signal, idempotencyKey: key, options });
  });
  return server;
}

function main() {
  const { values } = parseArgs({
    options: {
      http: { type: 'boolean', default: false },
      port: { type: 'string', default: '0' },
      dedupe: { type: 'boolean', default: false },
    },
  });
  /** @type {Options} */
  const options = {
    dataDir: dataDir(),
    dedupe: values.dedupe === true || process.env.DEMO_CLOUD_DEDUPE === '1',
  };
  if (values.http) serveHttp(options, Number(values.port));
  else serveStdioMode(options);
}

/** @param {Options} options */
function serveStdioMode(options) {
  serveStdio(() => createDemoServer(options), {
    onerror: (error) => process.stderr.write(`demo-cloud: ${error.message}\n`),
  });
  // The client closing our stdin means the connection is over: leave, so no process is orphaned.
  process.stdin.on('end', () => setImmediate(() => process.exit(0)));
}

/** @param {Options} options @param {number} port */
function serveHttp(options, port) {
  const handler = createMcpHandler(() => createDemoServer(options), {
    onerror: (error) => process.stderr.write(`demo-cloud: ${error.message}\n`),
  });
  const nodeHandler = toNodeHandler(handler);
  const validateHost = localhostHostValidation();
  const validateOrigin = localhostOriginValidation();
  const http = createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return;
    if (!req.url?.startsWith('/mcp')) {
      res.writeHead(404).end();
      return;
    }
    nodeHandler(req, res).catch((/** @type {unknown} */ error) => {
      process.stderr.write(`demo-cloud: ${error instanceof Error ? error.message : String(error)}\n`);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  http.listen(port, '127.0.0.1', () => {
    const address = http.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    const url = `http://127.0.0.1:${actual}/mcp`;
    process.stderr.write(`demo-cloud: listening on ${url} (data ${options.dataDir})\n`);
    process.stdout.write(`${url}\n`);
  });
  const stop = () => http.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main();
