import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpServerConfig } from '../../src/domain/flow.js';
import type { ToolDescriptor } from '../../src/domain/tool.js';
import type { Logger } from '../../src/log/logger.js';
import type { McpConnectionOptions } from '../../src/mcp/connection.js';
import { McpError } from '../../src/mcp/errors.js';
import {
  DEFAULT_MAX_MCP_CONNECTIONS,
  DEFAULT_MCP_IDLE_MS,
  McpPool,
  connectionKey,
  type FlowServersSpec,
} from '../../src/mcp/pool.js';
import type { McpConnection, McpProtocol } from '../../src/mcp/types.js';

/**
 * The parts of the MCP pool (src/mcp/pool.ts, src/mcp/pooled.ts) that need no server: its options,
 * its keys, what it hands the connection factory, the lookups of a flow's servers, and how failures
 * to close are reported. Connections are stand-ins; no process is started.
 */

const CONFIG: McpServerConfig = { command: 'srv', args: ['a.js'] };

function spec(fields: Partial<FlowServersSpec> = {}): FlowServersSpec {
  return { id: 'f', version: 1, mcpServers: { s: CONFIG }, ...fields };
}

function tool(name: string): ToolDescriptor {
  return { name, description: '', inputSchema: {}, kind: 'mcp', remoteName: name };
}

/** A stand-in connection: tools, protocol and close behaviour as given. */
function standIn(
  serverId: string,
  extra: { tools?: string[]; protocol?: McpProtocol | null; close?: () => Promise<void> } = {},
): McpConnection & { closes: number } {
  const connection = {
    serverId,
    pid: null,
    closes: 0,
    listTools: () =>
      Promise.resolve((extra.tools ?? []).map((name) => ({ ...tool(name), server: serverId }))),
    callTool: () => Promise.reject(new Error('not used')),
    close: () => {
      connection.closes += 1;
      return extra.close ? extra.close() : Promise.resolve();
    },
    ...(extra.protocol !== undefined ? { protocol: () => extra.protocol ?? null } : {}),
  };
  return connection;
}

function recordingLogger(): Logger & { lines: [string, string, unknown][] } {
  const lines: [string, string, unknown][] = [];
  const at = (level: string) => (message: string, fields?: unknown) =>
    void lines.push([level, message, fields]);
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

const pools: McpPool[] = [];
function pool(options: ConstructorParameters<typeof McpPool>[0]): McpPool {
  const p = new McpPool(options);
  pools.push(p);
  return p;
}
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('McpPool options', () => {
  it('defaults to 300000 ms idle and 32 connections per tenant', () => {
    expect(DEFAULT_MCP_IDLE_MS).toBe(300_000);
    expect(DEFAULT_MAX_MCP_CONNECTIONS).toBe(32);
  });

  it.each([
    [{ idleMs: -1 }, 'McpPool idleMs must be ≥ 0, not -1'],
    [{ idleMs: Number.NaN }, 'McpPool idleMs must be ≥ 0, not NaN'],
    [{ maxConnectionsPerTenant: 0 }, 'McpPool maxConnectionsPerTenant must be ≥ 1, not 0'],
    [{ maxConnectionsPerTenant: 0.5 }, 'McpPool maxConnectionsPerTenant must be ≥ 1, not 0.5'],
    [{ maxConnectionsPerTenant: Number.NaN }, 'McpPool maxConnectionsPerTenant must be ≥ 1, not NaN'],
  ])('refuses %o with a RangeError', (options, message) => {
    expect(() => new McpPool(options)).toThrow(new RangeError(message));
  });

  it('takes idleMs 0 and a limit of 1', () => {
    expect(() => pool({ idleMs: 0, maxConnectionsPerTenant: 1 })).not.toThrow();
  });
});

describe('connectionKey', () => {
  it('is the canonical JSON of tenant, flow id, version as text, server id, folder and the server entry', () => {
    expect(connectionKey(spec(), '/d', 's', null)).toBe(
      '[null,"f","1","s","/d",{"args":["a.js"],"command":"srv"}]',
    );
    expect(connectionKey(spec(), '/d', 's', 'acme')).toBe(
      '["acme","f","1","s","/d",{"args":["a.js"],"command":"srv"}]',
    );
  });

  it('does not depend on key order, other servers or aliases; a number and its text are one version', () => {
    const base = connectionKey(spec(), '/d', 's', null);
    expect(
      connectionKey(spec({ mcpServers: { s: { args: ['a.js'], command: 'srv' } } }), '/d', 's', null),
    ).toBe(base);
    expect(
      connectionKey(spec({ mcpServers: { other: { url: 'http://x/mcp' }, s: CONFIG } }), '/d', 's', null),
    ).toBe(base);
    expect(connectionKey(spec({ aliases: { 's.t': 'u' } }), '/d', 's', null)).toBe(base);
    expect(connectionKey(spec({ version: '1' }), '/d', 's', null)).toBe(base);
  });

  it('differs by tenant (null is not "null"), folder, version and config', () => {
    const base = connectionKey(spec(), '/d', 's', null);
    const others = [
      connectionKey(spec(), '/d', 's', 'null'),
      connectionKey(spec(), '/e', 's', null),
      connectionKey(spec({ version: 2 }), '/d', 's', null),
      connectionKey(spec({ mcpServers: { s: { command: 'srv', args: ['b.js'] } } }), '/d', 's', null),
    ];
    expect(new Set([base, ...others]).size).toBe(5);
  });
});

describe('McpPool.connection', () => {
  it('hands the factory the server, config, folder, tenant, timeout and logger, and env only when given', () => {
    const seen: McpConnectionOptions[] = [];
    const logger = recordingLogger();
    const p = pool({
      connectTimeoutMs: 1234,
      logger,
      connect: (o) => (seen.push(o), standIn(o.serverId)),
    });
    p.connection(spec(), '/d', 's', 'acme');
    expect(seen).toEqual([
      { serverId: 's', config: CONFIG, baseDir: '/d', connectTimeoutMs: 1234, logger, tenant: 'acme' },
    ]);
    expect(Object.hasOwn(seen[0]!, 'env')).toBe(false);

    const env = { TOKEN: 'x' };
    const withEnv = pool({ env, connect: (o) => (seen.push(o), standIn(o.serverId)) });
    withEnv.connection(spec(), '/d', 's');
    expect(seen[1]?.env).toBe(env);
    expect(seen[1]?.tenant).toBeNull();
  });

  it('keeps one connection per tenant and counts them per tenant', () => {
    let made = 0;
    const p = pool({ connect: (o) => (made++, standIn(o.serverId)) });
    const a = p.connection(spec(), '/d', 's', 'a');
    expect(p.connection(spec(), '/d', 's', 'a')).toBe(a);
    expect(p.connection(spec(), '/d', 's', 'b')).not.toBe(a);
    p.connection(spec(), '/d', 's', null);
    expect(made).toBe(3);
    expect([p.size, p.sizeOf('a'), p.sizeOf('b'), p.sizeOf(null), p.sizeOf('c')]).toEqual([3, 1, 1, 1, 0]);
  });

  it('refuses a server the flow does not declare before making anything', () => {
    const connect = vi.fn((o: McpConnectionOptions) => standIn(o.serverId));
    const p = pool({ connect });
    expect(() => p.connection(spec(), '/d', 'nope')).toThrow(
      new Error('flow f declares no MCP server "nope"'),
    );
    expect(connect).not.toHaveBeenCalled();
    expect(p.size).toBe(0);
  });

  it('names the limit in the refusal when every connection of the tenant is busy', async () => {
    const logger = recordingLogger();
    let settle!: () => void;
    const p = pool({
      maxConnectionsPerTenant: 1,
      idleMs: 0,
      logger,
      connect: (o) => ({
        ...standIn(o.serverId),
        listTools: () => new Promise<ToolDescriptor[]>((resolve) => (settle = () => resolve([]))),
      }),
    });
    const listing = p.connection(spec(), '/d', 's', 't').listTools();
    let error: unknown;
    try {
      p.connection(spec({ id: 'g' }), '/d', 's', 't');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).message).toBe(
      'cannot connect to MCP server s: this tenant already holds 1 MCP connections, each with a request ' +
        'in flight (the limit is --max-mcp-connections, option maxMcpConnections); try again when one ends',
    );
    expect(logger.lines).toContainEqual(['warn', 'MCP connection limit reached', { server: 's', limit: 1 }]);
    settle();
    await listing;
  });
});

describe('McpPool close and eviction reports', () => {
  it('logs each close that fails with its server and goes on closing the others; close twice is fine', async () => {
    const logger = recordingLogger();
    const made: ReturnType<typeof standIn>[] = [];
    const p = pool({
      logger,
      connect: (o) => {
        const c = standIn(o.serverId, {
          close: o.serverId === 'bad' ? () => Promise.reject(new Error('stuck')) : undefined,
        });
        made.push(c);
        return c;
      },
    });
    const servers = spec({ mcpServers: { bad: CONFIG, good: { url: 'http://x/mcp' } } });
    p.connection(servers, '/d', 'bad');
    p.connection(servers, '/d', 'good');
    await p.close();
    expect(made.map((c) => c.closes)).toEqual([1, 1]);
    expect(logger.lines).toEqual([['error', 'MCP close failed', { server: 'bad', error: 'Error: stuck' }]]);
    expect(p.size).toBe(0);
    await p.close();
    expect(made.map((c) => c.closes)).toEqual([1, 1]);
    expect(() => p.connection(servers, '/d', 'good')).toThrow(new Error('the MCP pool is closed'));
  });

  it('says why a connection was closed (idle), by the pool’s own clock', async () => {
    vi.useFakeTimers();
    const logger = recordingLogger();
    let now = 1_000;
    const p = pool({ logger, idleMs: 500, now: () => now, connect: (o) => standIn(o.serverId) });
    await p.connection(spec(), '/d', 's').listTools();
    // The timer fires, but the pool's clock has not moved: nothing is idle long enough yet.
    await vi.advanceTimersByTimeAsync(500);
    expect(p.size).toBe(1);
    now += 500;
    await vi.advanceTimersByTimeAsync(500);
    expect(p.size).toBe(0);
    expect(logger.lines).toEqual([
      ['debug', 'MCP connection closed', { server: 's', why: 'idle', pid: undefined }],
    ]);
  });

  it('logs an evicted connection whose close fails, and still makes the new one', async () => {
    const logger = recordingLogger();
    const p = pool({
      logger,
      idleMs: 0,
      maxConnectionsPerTenant: 1,
      connect: (o) => standIn(o.serverId, { close: () => Promise.reject(new Error('gone')) }),
    });
    p.connection(spec(), '/d', 's');
    const next = p.connection(spec({ id: 'g' }), '/d', 's');
    await next.listTools();
    expect(p.size).toBe(1);
    expect(logger.lines).toEqual([
      ['debug', 'MCP connection closed', { server: 's', why: 'limit', pid: undefined }],
      ['error', 'MCP close failed', { server: 's', error: 'Error: gone' }],
    ]);
  });
});

describe('FlowServers', () => {
  it('lists the declared server ids and looks each up through the pool, again after an eviction', async () => {
    vi.useFakeTimers();
    let made = 0;
    const p = pool({ idleMs: 100, connect: (o) => (made++, standIn(o.serverId)) });
    const servers = p.forFlow(spec({ mcpServers: { s: CONFIG, t: { url: 'http://x/mcp' } } }), '/d', 'acme');
    expect(servers.serverIds).toEqual(['s', 't']);
    expect(servers.tenant).toBe('acme');
    expect(servers.baseDir).toBe('/d');
    const first = servers.connection('s');
    expect(servers.connection('s')).toBe(first);
    expect(p.sizeOf('acme')).toBe(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(p.size).toBe(0);
    expect(servers.connection('s')).not.toBe(first);
    expect(made).toBe(2);
  });

  it('reports the protocol of each server that has one, connecting lazily to ask', () => {
    const modern: McpProtocol = { version: '2026-07-28', era: 'modern' };
    const p = pool({
      connect: (o) =>
        standIn(o.serverId, {
          protocol: o.serverId === 'a' ? modern : o.serverId === 'b' ? null : undefined,
        }),
    });
    const servers = p.forFlow(spec({ mcpServers: { a: CONFIG, b: CONFIG, c: CONFIG } }), '/d');
    expect(servers.protocols()).toEqual([{ server: 'a', protocol: modern }]);
    expect(p.size).toBe(3);
  });

  it('names the catalog’s tools with the aliases, and refuses an alias of a tool no server exports', async () => {
    const p = pool({
      connect: (o) => standIn(o.serverId, { tools: o.serverId === 'a' ? ['list', 'get'] : ['list'] }),
    });
    const twoServers = { mcpServers: { a: CONFIG, b: { url: 'http://x/mcp' } } };
    const servers = p.forFlow(spec({ ...twoServers, aliases: { 'b.list': 'b_list' } }), '/d');
    expect((await servers.catalog()).map((t) => [t.server, t.name, t.remoteName])).toEqual([
      ['a', 'list', 'list'],
      ['a', 'get', 'get'],
      ['b', 'b_list', 'list'],
    ]);
    const unknown = p.forFlow(
      spec({ ...twoServers, version: 2, aliases: { 'b.list': 'b_list', 'a.nope': 'x' } }),
      '/d',
    );
    const error = await unknown.catalog().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: 'CATALOG', unknownAliases: ['a.nope'], conflicts: [] });
  });
});

describe('a pooled connection', () => {
  it('refuses resources and client requests its connection cannot make, naming the server', async () => {
    const p = pool({ connect: (o) => standIn(o.serverId) });
    const connection = p.connection(spec(), '/d', 's') as McpConnection & {
      readResource(uri: string): Promise<unknown>;
      request(use: unknown): Promise<unknown>;
      onToolsChanged(listener: () => void): () => void;
      toolsSettled(): Promise<void>;
      protocol(): McpProtocol | null;
    };
    await expect(connection.readResource('x://y')).rejects.toThrow('MCP connection s cannot read resources');
    await expect(connection.request(() => Promise.resolve(1))).rejects.toThrow(
      'MCP connection s has no client requests',
    );
    expect(connection.protocol()).toBeNull();
    expect(connection.onToolsChanged(() => undefined)()).toBeUndefined();
    await expect(connection.toolsSettled()).resolves.toBeUndefined();
  });

  it('counts a failed request as ended, so its connection can be closed as idle', async () => {
    vi.useFakeTimers();
    const p = pool({
      idleMs: 50,
      connect: (o) => ({ ...standIn(o.serverId), listTools: () => Promise.reject(new Error('down')) }),
    });
    await expect(p.connection(spec(), '/d', 's').listTools()).rejects.toThrow('down');
    await vi.advanceTimersByTimeAsync(50);
    expect(p.size).toBe(0);
  });
});
