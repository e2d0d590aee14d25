import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { openMcpConnection } from '../../src/mcp/connection.js';
import type { McpConnection } from '../../src/mcp/types.js';
import { inMemoryTransport } from '../helpers/in-memory-mcp.js';

/** An in-process MCP server with one tool that counts how often it ran. */
function counterServer(calls: { n: number }): () => McpServer {
  return () => {
    const server = new McpServer({ name: 'counter', version: '1.0.0' });
    server.registerTool(
      'add',
      { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
      ({ a, b }) => {
        calls.n += 1;
        return Promise.resolve({ content: [{ type: 'text' as const, text: String(a + b) }] });
      },
    );
    return server;
  };
}

let connection: McpConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

describe('an MCP connection over the in-memory pair', () => {
  it('lists the server tools and calls one through the real client and server', async () => {
    const calls = { n: 0 };
    connection = openMcpConnection({
      serverId: 'calc',
      config: { command: 'unused', args: [] },
      baseDir: process.cwd(),
      transport: inMemoryTransport(counterServer(calls)),
    });
    const tools = await connection.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add']);
    expect(tools[0]?.inputSchema).toMatchObject({ required: ['a', 'b'] });
    const result = await connection.callTool('add', { a: 2, b: 3 }, { timeoutMs: 5_000 });
    expect(JSON.stringify(result)).toContain('"5"');
    expect(calls.n).toBe(1);
  });

  it('reports the server refusing arguments that break its schema, without running the tool', async () => {
    const calls = { n: 0 };
    connection = openMcpConnection({
      serverId: 'calc',
      config: { command: 'unused', args: [] },
      baseDir: process.cwd(),
      transport: inMemoryTransport(counterServer(calls)),
    });
    const result = await connection.callTool('add', { a: 'two' }, { timeoutMs: 5_000 }).then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    expect(JSON.stringify(result)).toMatch(/invalid|error/i);
    expect(calls.n).toBe(0);
  });
});
