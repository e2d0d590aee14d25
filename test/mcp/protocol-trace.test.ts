import { createServer, type Server as HttpServer } from 'node:http';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import {
  createMcpHandler,
  fromJsonSchema,
  McpServer,
  type McpHttpHandler,
} from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadFlow, scriptedModel, type Runtime } from '../../src/index.js';
import type { StoredEvent } from '../../src/store/store.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { sqliteUrl } from '../runtime/helpers.js';

/** The official reference server (stdio, the 2025 revisions). */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const finish = call('builtin_node_finish', { summary: 'done' });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * A server of the 2026-07-28 revision over Streamable HTTP (the SDK's per-request handler), with a
 * tool whose `region` argument is to be mirrored into an `Mcp-Param-Region` header (each call's value
 * of that header kept in `headers`).
 */
async function modernServer(regions: string[], headers: string[]): Promise<string> {
  const handler: McpHttpHandler = createMcpHandler(() => {
    const server = new McpServer({ name: 'modern', version: '1.0.0' });
    const region = { type: 'string', 'x-mcp-header': 'Region' } as { type: 'string' };
    const inputSchema = fromJsonSchema<{ region: string }>({
      type: 'object',
      properties: { region },
      required: ['region'],
    });
    server.registerTool('lookup', { description: 'Looks a region up', inputSchema }, ({ region }) => {
      regions.push(region);
      return { content: [{ type: 'text', text: `found ${region}` }] };
    });
    return server;
  });
  const listener = getRequestListener((request) => handler.fetch(request));
  const http: HttpServer = createServer((req, res) => {
    if (req.headers['mcp-method'] === 'tools/call') headers.push(String(req.headers['mcp-param-region']));
    void listener(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    await handler.close();
    await new Promise((resolve) => http.close(resolve));
  });
  const address = http.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}/mcp`;
}

function runtime(): Runtime {
  const made = createRuntime({ store: sqliteUrl(), logger: false });
  cleanups.push(() => made.close());
  return made;
}

async function eventsOf(rt: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of rt.events(runId, { follow: false })) events.push(event);
  return events;
}

describe('mcp.connected (the protocol revision each MCP server negotiated, in the trace)', () => {
  it('traces 2026-07-28 for a modern HTTP server (arguments mirrored into headers) and a 2025 revision for a stdio one, once per run', async () => {
    const regions: string[] = [];
    const headers: string[] = [];
    const url = await modernServer(regions, headers);
    const flow = await loadFlow({
      id: 'revisions',
      locale: 'en',
      mcpServers: {
        modern: { url },
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
      },
      nodes: [
        { id: 'first', tools: ['lookup'] },
        { id: 'second', tools: ['echo'] },
      ],
      edges: [{ from: 'first', to: 'second' }],
      tools: { lookup: { write: false } },
    });
    const model = scriptedModel({
      turns: [
        { node: 'first', calls: [call('lookup', { region: 'eu-west1' })] },
        { node: 'first', calls: [finish] },
        { node: 'second', calls: [call('echo', { message: 'hi' })] },
        { node: 'second', calls: [finish] },
      ],
    });
    const rt = runtime();
    const summary = await rt.start(flow, { input: { text: 'go' }, model });
    expect(summary.status).toBe('completed');
    expect(regions).toEqual(['eu-west1']);
    // The x-mcp-header argument went along as a header too (2026-07-28).
    expect(headers).toEqual(['eu-west1']);
    const events = await eventsOf(rt, summary.runId);
    const connected = events.filter((e) => e.type === 'mcp.connected');
    expect(connected).toHaveLength(2);
    expect(connected).toContainEqual(
      expect.objectContaining({
        nodeId: 'first',
        server: 'modern',
        protocolVersion: '2026-07-28',
        era: 'modern',
      }),
    );
    const everything = connected.find((e) => e.server === 'everything');
    expect(everything).toMatchObject({ nodeId: 'first', era: 'legacy' });
    expect(String(everything?.protocolVersion)).toMatch(/^2025-\d\d-\d\d$/);
    // Right after the node's first round starts, before its model call.
    const firstRound = events.findIndex((e) => e.type === 'react.round');
    expect(events.slice(firstRound + 1, firstRound + 3).map((e) => e.type)).toEqual([
      'mcp.connected',
      'mcp.connected',
    ]);
  }, 60_000);
});
