import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMcpConnection } from '../../src/mcp/connection.js';

/**
 * `--allow-mcp-host` admits a host; a redirect from it must not carry a flow's headers (a secret
 * referenced with `${VAR}`) to a host nobody allowed. The MCP SDK follows redirects only within the
 * origin; this test holds us to it.
 */

let allowed: Server;
let elsewhere: Server;
const reached: IncomingHttpHeaders[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

beforeAll(async () => {
  elsewhere = createServer((request, response) => {
    reached.push(request.headers);
    response.writeHead(500).end();
  });
  const target = (await listen(elsewhere)).replace('127.0.0.1', 'localhost');
  allowed = createServer((_request, response) => {
    response.writeHead(307, { location: `${target}/mcp` }).end();
  });
  await listen(allowed);
});
afterAll(async () => {
  await new Promise((resolve) => allowed.close(resolve));
  await new Promise((resolve) => elsewhere.close(resolve));
});

describe('redirects of HTTP MCP servers', () => {
  it('are not followed to another origin, so the headers stay with the allowed host', async () => {
    const port = (allowed.address() as AddressInfo).port;
    const connection = openMcpConnection({
      serverId: 'remote',
      config: { url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Api-Key': 'secret-value' } },
      baseDir: '/',
      connectTimeoutMs: 5_000,
    });
    await expect(connection.listTools()).rejects.toThrow();
    await connection.close();
    expect(reached).toEqual([]);
  });
});
