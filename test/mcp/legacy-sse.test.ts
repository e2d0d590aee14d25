import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMcpConnection } from '../../src/mcp/connection.js';
import type { McpConnection } from '../../src/mcp/types.js';
import { REPO_ROOT } from '../helpers/demo-server.js';

/**
 * The backwards-compatibility rule of MCP: a server answering Streamable HTTP's first POST 4xx is an
 * older one, reached over HTTP+SSE (2024-11-05). Tested with server-everything's own SSE mode.
 */

const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(predicate: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** server-everything in its HTTP+SSE mode (GET /sse, POST /message) on a free port. */
async function startSseEverything(): Promise<{ url: string; err: () => string }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const child = spawn(process.execPath, [EVERYTHING, 'sse'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  cleanups.push(() => void child.kill());
  await until(() => err.includes('running on port'));
  return { url: `http://127.0.0.1:${port}/sse`, err: () => err };
}

function open(url: string): McpConnection {
  const connection = openMcpConnection({ serverId: 'old', config: { url }, baseDir: REPO_ROOT });
  cleanups.push(() => connection.close());
  return connection;
}

describe('HTTP+SSE fallback (2024-11-05 servers)', () => {
  it('lists and calls tools of a server that refuses the Streamable HTTP POST', async () => {
    const server = await startSseEverything();
    const connection = open(server.url);
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toContain('echo');
    const result = await connection.callTool('echo', { message: 'over sse' }, { timeoutMs: 10_000 });
    expect(result.content[0]?.text).toMatch(/over sse/);
    expect(server.err()).toContain('Client Connected');
  });

  it('still says an unreachable server is unreachable (no fallback without a 4xx)', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const error = await open(`http://127.0.0.1:${port}/mcp`)
      .listTools()
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/cannot connect to MCP server old/);
    expect((error as Error).message).not.toMatch(/SSE/);
  });
});

describe('HTTP+SSE fallback that finds no older server', () => {
  it("reports the Streamable HTTP refusal, not the fallback's", async () => {
    const server = createServer((req, res) => {
      if (req.method === 'POST') return void res.writeHead(400).end('bad request: missing X-Tenant');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const port = (server.address() as AddressInfo).port;
    const error = await open(`http://127.0.0.1:${port}/mcp`)
      .listTools()
      .catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/cannot connect to MCP server old/);
    expect((error as Error).message).toMatch(/Error POSTing to endpoint: bad request: missing X-Tenant/);
    expect((error as Error).message).not.toMatch(/SSE/);
  });
});
