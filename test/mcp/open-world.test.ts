import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { toolTrust } from '../../src/domain/tool.js';
import { openMcpConnection } from '../../src/mcp/connection.js';
import type { McpConnection } from '../../src/mcp/types.js';
import { inMemoryTransport } from '../helpers/in-memory-mcp.js';

/** A server with a web fetch annotated `openWorldHint: true` and a ledger read without it. */
function server(): McpServer {
  const mcp = new McpServer({ name: 'web', version: '1.0.0' });
  const ok = () => Promise.resolve({ content: [{ type: 'text' as const, text: 'ok' }] });
  mcp.registerTool(
    'fetch_page',
    {
      description: 'Fetches a page',
      inputSchema: z.object({ url: z.string() }),
      annotations: { openWorldHint: true, readOnlyHint: true },
    },
    ok,
  );
  mcp.registerTool(
    'ledger',
    { description: 'Reads the ledger', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    ok,
  );
  return mcp;
}

let connection: McpConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

describe('openWorldHint', () => {
  it('makes a tool untrusted by default; a policy trust overrides it', async () => {
    connection = openMcpConnection({
      serverId: 'web',
      config: { command: 'unused', args: [] },
      baseDir: process.cwd(),
      transport: inMemoryTransport(server),
    });
    const tools = new Map((await connection.listTools()).map((t) => [t.name, t]));
    expect(tools.get('fetch_page')?.openWorldHint).toBe(true);
    expect(toolTrust(tools.get('fetch_page'), undefined)).toBe('untrusted');
    expect(toolTrust(tools.get('ledger'), undefined)).toBe('trusted');
    expect(toolTrust(tools.get('fetch_page'), { trust: 'trusted' })).toBe('trusted');
    expect(toolTrust(tools.get('ledger'), { trust: { untrusted: ['notes'] } })).toEqual({
      untrusted: ['notes'],
    });
  });
});
