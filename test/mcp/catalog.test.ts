import { describe, expect, it } from 'vitest';
import { resolveToolNames, type ServerToolListing } from '../../src/mcp/catalog.js';
import { McpError } from '../../src/mcp/errors.js';
import { mcpErrorText, mcpResultData } from '../../src/mcp/result.js';
import type { ToolDescriptor } from '../../src/tools/tool.js';

function tool(server: string, name: string): ToolDescriptor {
  return {
    name,
    description: '',
    inputSchema: { type: 'object' },
    kind: 'mcp',
    server,
    remoteName: name,
    readOnlyHint: true,
  };
}

const cloud: ServerToolListing = {
  serverId: 'cloud',
  tools: [tool('cloud', 'space_list'), tool('cloud', 'web_site_list')],
};
const other: ServerToolListing = {
  serverId: 'other',
  tools: [tool('other', 'web_site_list'), tool('other', 'ping')],
};

describe('resolveToolNames', () => {
  it('uses the remote names when they are unique', () => {
    const tools = resolveToolNames([cloud]);
    expect(tools.map((t) => [t.name, t.server, t.remoteName])).toEqual([
      ['space_list', 'cloud', 'space_list'],
      ['web_site_list', 'cloud', 'web_site_list'],
    ]);
  });

  it('renames `server.tool` to its alias and keeps the remote name for calling', () => {
    const tools = resolveToolNames([cloud, other], { 'other.web_site_list': 'other_sites' });
    expect(tools.map((t) => t.name)).toEqual(['space_list', 'web_site_list', 'other_sites', 'ping']);
    expect(tools.find((t) => t.name === 'other_sites')).toMatchObject({
      server: 'other',
      remoteName: 'web_site_list',
    });
  });

  it('lists every conflict when two servers export one name without an alias', () => {
    const third: ServerToolListing = {
      serverId: 'third',
      tools: [tool('third', 'ping'), tool('third', 'web_site_list')],
    };
    const error = catchError(() => resolveToolNames([cloud, other, third]));
    expect(error).toBeInstanceOf(McpError);
    const catalog = error as McpError;
    expect(catalog.code).toBe('CATALOG');
    expect(catalog.name).toBe('ToolCatalogError');
    expect(catalog.conflicts).toEqual([
      {
        name: 'web_site_list',
        sources: ['cloud.web_site_list', 'other.web_site_list', 'third.web_site_list'],
      },
      { name: 'ping', sources: ['other.ping', 'third.ping'] },
    ]);
    expect(catalog.message).toContain(
      'web_site_list (cloud.web_site_list, other.web_site_list, third.web_site_list)',
    );
    expect(catalog.message).toContain('ping (other.ping, third.ping)');
    expect(catalog.message).toContain('aliases');
  });

  it('an alias that collides with another tool is a conflict too', () => {
    const error = catchError(() =>
      resolveToolNames([cloud, other], { 'other.web_site_list': 'space_list' }),
    ) as McpError;
    expect(error.conflicts).toEqual([
      { name: 'space_list', sources: ['cloud.space_list', 'other.web_site_list'] },
    ]);
  });

  it('an alias naming a tool no server exports is an error', () => {
    const error = catchError(() =>
      resolveToolNames([cloud], { 'cloud.nope': 'x', 'ghost.space_list': 'y' }),
    ) as McpError;
    expect(error.unknownAliases).toEqual(['cloud.nope', 'ghost.space_list']);
    expect(error.message).toMatch(/aliases name tools that no server exports: cloud.nope, ghost.space_list/);
  });
});

describe('mcpResultData', () => {
  it('prefers structuredContent', () => {
    expect(
      mcpResultData({
        content: [{ type: 'text', text: '{"a":2}' }],
        structuredContent: { a: 1 },
        isError: false,
      }),
    ).toEqual({ a: 1 });
  });

  it('else parses a single text block as JSON, else returns the text', () => {
    expect(
      mcpResultData({ content: [{ type: 'text', text: ' {"code":0,"data":[1]} ' }], isError: false }),
    ).toEqual({ code: 0, data: [1] });
    expect(mcpResultData({ content: [{ type: 'text', text: '42' }], isError: false })).toBe(42);
    expect(mcpResultData({ content: [{ type: 'text', text: 'hello' }], isError: false })).toBe('hello');
    expect(mcpResultData({ content: [{ type: 'text', text: '' }], isError: false })).toBe('');
  });

  it('no content is null; several or non-text blocks are kept as blocks, binary data as its size and digest', () => {
    expect(mcpResultData({ content: [], isError: false })).toBeNull();
    const blocks = [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ];
    expect(mcpResultData({ content: blocks, isError: false })).toEqual(blocks);
    const image = [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }];
    expect(mcpResultData({ content: image, isError: false })).toEqual([
      {
        type: 'image',
        mimeType: 'image/png',
        bytes: 3,
        // SHA-256 of the three zero bytes 'AAAA' decodes to.
        sha256: '709e80c88487a2411e1ee4dfb9f22a861492d20c4765150c0c794abd70f8147c',
      },
    ]);
  });

  it('mcpErrorText joins text blocks on one line and bounds the length', () => {
    expect(
      mcpErrorText({
        content: [
          { type: 'text', text: 'disk\nfull' },
          { type: 'text', text: 'retry later' },
        ],
        isError: true,
      }),
    ).toBe('disk full retry later');
    expect(mcpErrorText({ content: [], isError: true })).toBe('[]');
    expect(mcpErrorText({ content: [{ type: 'text', text: 'x'.repeat(900) }], isError: true })).toHaveLength(
      500,
    );
  });
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
