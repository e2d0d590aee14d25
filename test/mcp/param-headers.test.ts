import { McpServer } from '@modelcontextprotocol/server';
import { afterEach, describe, expect, it } from 'vitest';
import { openMcpConnection } from '../../src/mcp/connection.js';
import { invalidHeaderAnnotation } from '../../src/mcp/param-headers.js';
import type { McpConnection } from '../../src/mcp/types.js';
import type { Logger } from '../../src/log/logger.js';
import { inMemoryTransport } from '../helpers/in-memory-mcp.js';

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('x-mcp-header annotations (2026-07-28)', () => {
  it('accepts annotations on string, integer and boolean properties reached through properties', () => {
    const schema = object({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      nested: object({ level: { type: 'integer', 'x-mcp-header': 'Level' } }),
      verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
      query: { type: 'string' },
    });
    expect(invalidHeaderAnnotation(schema)).toBeNull();
    expect(invalidHeaderAnnotation(object({}))).toBeNull();
  });

  it.each([
    ['an empty name', object({ v: { type: 'string', 'x-mcp-header': '' } }), /non-empty string/],
    ['an object property', object({ v: { type: 'object', 'x-mcp-header': 'V' } }), /not object/],
    ['an array property', object({ v: { type: 'array', 'x-mcp-header': 'V' } }), /not array/],
    ['a null property', object({ v: { type: 'null', 'x-mcp-header': 'V' } }), /not null/],
    ['a number property', object({ v: { type: 'number', 'x-mcp-header': 'V' } }), /not number/],
    [
      'a name used twice, ignoring case',
      object({
        a: { type: 'string', 'x-mcp-header': 'MyField' },
        b: { type: 'string', 'x-mcp-header': 'myfield' },
      }),
      /repeats "MyField"/,
    ],
    ['a space', object({ v: { type: 'string', 'x-mcp-header': 'My Region' } }), /not an HTTP header name/],
    [
      'a colon',
      object({ v: { type: 'string', 'x-mcp-header': 'Region:Primary' } }),
      /not an HTTP header name/,
    ],
    [
      'a non-ASCII letter',
      object({ v: { type: 'string', 'x-mcp-header': 'Région' } }),
      /not an HTTP header name/,
    ],
    ['a tab', object({ v: { type: 'string', 'x-mcp-header': 'Region\t1' } }), /not an HTTP header name/],
    [
      'an annotation under items',
      object({ v: { type: 'array', items: { type: 'string', 'x-mcp-header': 'V' } } }),
      /reached through "properties"/,
    ],
    [
      'an annotation in $defs',
      object({}, { $defs: { v: { type: 'string', 'x-mcp-header': 'V' } } }),
      /reached through "properties"/,
    ],
  ])('refuses %s', (_what, schema, reason) => {
    expect(invalidHeaderAnnotation(schema)).toMatch(reason);
  });
});

let connection: McpConnection | undefined;
afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

/** A server of both revisions listing one valid and one invalid annotated tool, schemas as given. */
function annotatedServer(): McpServer {
  const server = new McpServer({ name: 'headers', version: '1.0.0' }, { capabilities: { tools: {} } });
  const tools = [
    {
      name: 'valid_tool',
      inputSchema: object({ region: { type: 'string', 'x-mcp-header': 'Region' } }, { required: ['region'] }),
    },
    {
      name: 'invalid_number_header',
      inputSchema: object({ score: { type: 'number', 'x-mcp-header': 'Score' } }),
    },
  ];
  server.server.setRequestHandler('tools/list', () => ({ tools }) as never);
  return server;
}

function recordingLogger(lines: { msg: string; fields: Record<string, unknown> }[]): Logger {
  const log = (msg: string, fields: Record<string, unknown> = {}) => {
    lines.push({ msg, fields });
  };
  return { debug: () => undefined, info: log, warn: log, error: log };
}

describe('an MCP connection listing tools with x-mcp-header annotations', () => {
  it('leaves out a tool with an invalid annotation on an HTTP connection, saying why', async () => {
    const lines: { msg: string; fields: Record<string, unknown> }[] = [];
    connection = openMcpConnection({
      serverId: 'headers',
      config: { url: 'http://127.0.0.1:9/mcp' },
      baseDir: process.cwd(),
      logger: recordingLogger(lines),
      transport: inMemoryTransport(annotatedServer),
    });
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toEqual(['valid_tool']);
    expect(lines).toContainEqual({
      msg: 'MCP tool left out: invalid x-mcp-header',
      fields: {
        server: 'headers',
        tool: 'invalid_number_header',
        reason: expect.stringMatching(/property score: .*not number/),
      },
    });
  });

  it('keeps every tool on a stdio connection (no headers there)', async () => {
    connection = openMcpConnection({
      serverId: 'headers',
      config: { command: 'unused', args: [] },
      baseDir: process.cwd(),
      transport: inMemoryTransport(annotatedServer),
    });
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toEqual(['valid_tool', 'invalid_number_header']);
    expect(tools[0]?.inputSchema).toEqual(
      object({ region: { type: 'string', 'x-mcp-header': 'Region' } }, { required: ['region'] }),
    );
  });
});
