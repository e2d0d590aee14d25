import { afterEach, describe, expect, it } from 'vitest';
import { McpError } from '../../src/mcp/errors.js';
import { McpPool, type FlowServersSpec } from '../../src/mcp/pool.js';
import type { McpConnection } from '../../src/mcp/types.js';
import { demoStdioConfig, REPO_ROOT, waitForExit } from '../helpers/demo-server.js';

const pools: McpPool[] = [];
function pool(): McpPool {
  const p = new McpPool();
  pools.push(p);
  return p;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function flow(
  id: string,
  version: number,
  servers: FlowServersSpec['mcpServers'],
  aliases?: Record<string, string>,
): FlowServersSpec {
  return { id, version, mcpServers: servers, aliases };
}

describe('McpPool without connecting', () => {
  const fake = (serverId: string): McpConnection => ({
    serverId,
    pid: null,
    listTools: () => Promise.resolve([]),
    callTool: () => Promise.reject(new Error('not used')),
    close: () => Promise.resolve(),
  });

  it('keeps one connection per (flow id + version, server id), shared between runs', () => {
    const made: string[] = [];
    const p = new McpPool({ connect: (o) => (made.push(o.serverId), fake(o.serverId)) });
    pools.push(p);
    const servers = { cloud: { command: 'node', args: ['x.js'] }, other: { url: 'http://127.0.0.1:1/mcp' } };
    const runA = p.forFlow(flow('site-builder', 1, servers), '/flows');
    const runB = p.forFlow(flow('site-builder', 1, servers), '/flows');
    expect(runA.connection('cloud')).toBe(runB.connection('cloud'));
    expect(runA.connection('other')).not.toBe(runA.connection('cloud'));
    expect(p.forFlow(flow('site-builder', 2, servers), '/flows').connection('cloud')).not.toBe(
      runA.connection('cloud'),
    );
    expect(p.forFlow(flow('other-flow', 1, servers), '/flows').connection('cloud')).not.toBe(
      runA.connection('cloud'),
    );
    expect(made).toEqual(['cloud', 'other', 'cloud', 'cloud']);
    expect(p.size).toBe(4);
  });

  it('passes the flow folder and config to the connection, and refuses undeclared servers', () => {
    const seen: unknown[] = [];
    const p = new McpPool({
      connect: (o) => (seen.push([o.serverId, o.baseDir, o.config]), fake(o.serverId)),
      connectTimeoutMs: 1234,
    });
    pools.push(p);
    const servers = p.forFlow(flow('f', 1, { cloud: { command: 'node', args: ['a.js'] } }), '/flows/f');
    servers.connection('cloud');
    expect(seen).toEqual([['cloud', '/flows/f', { command: 'node', args: ['a.js'] }]]);
    expect(servers.serverIds).toEqual(['cloud']);
    expect(() => servers.connection('nope')).toThrow(/declares no MCP server "nope"/);
  });

  it('after close it refuses new use', async () => {
    const p = new McpPool({ connect: (o) => fake(o.serverId) });
    await p.close();
    expect(() => p.forFlow(flow('f', 1, {}), '/')).toThrow(/closed/);
  });
});

describe('McpPool with real demo servers', () => {
  it('catalog lists every server’s tools and applies aliases; close ends every server process', async () => {
    const p = pool();
    const cloud = demoStdioConfig().config;
    const other = demoStdioConfig().config;
    const names = [
      'space_list',
      'web_site_list',
      'web_site_get',
      'web_site_create',
      'web_site_delete',
      'slow_query',
      'crash_server',
      'strict_echo',
      'rpc_error',
      'faulty_tool',
    ];
    const aliases = Object.fromEntries(names.map((n) => [`other.${n}`, `other_${n}`]));
    const servers = p.forFlow(flow('two', 1, { cloud, other }, aliases), REPO_ROOT);
    const tools = await servers.catalog();
    expect(tools.filter((t) => t.server === 'cloud').map((t) => t.name)).toEqual(names);
    expect(tools.filter((t) => t.server === 'other').map((t) => t.name)).toEqual(
      names.map((n) => `other_${n}`),
    );
    expect(tools.find((t) => t.name === 'other_web_site_list')?.remoteName).toBe('web_site_list');

    const pids = ['cloud', 'other'].map((id) => servers.connection(id).pid!);
    expect(pids.every((pid) => typeof pid === 'number')).toBe(true);
    await p.close();
    for (const pid of pids) expect(await waitForExit(pid, 3_000)).toBe(true);
  });

  it('catalog reports the conflicts of two servers exporting the same names', async () => {
    const p = pool();
    const servers = p.forFlow(
      flow(
        'dup',
        1,
        { a: demoStdioConfig().config, b: demoStdioConfig().config },
        { 'b.space_list': 'b_spaces' },
      ),
      REPO_ROOT,
    );
    const error = await servers.catalog().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe('CATALOG');
    const conflicts = (error as McpError).conflicts;
    expect(conflicts.map((c) => c.name)).toContain('web_site_list');
    expect(conflicts.map((c) => c.name)).not.toContain('space_list');
    expect(conflicts.find((c) => c.name === 'web_site_create')?.sources).toEqual([
      'a.web_site_create',
      'b.web_site_create',
    ]);
  });
});
