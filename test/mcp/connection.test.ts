import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openMcpConnection } from '../../src/mcp/connection.js';
import { McpError } from '../../src/mcp/errors.js';
import { stdioLaunch } from '../../src/mcp/transport.js';
import type { McpConnection } from '../../src/mcp/types.js';
import { MemoryLogger } from '../../src/log/logger.js';
import {
  closedPort,
  DEMO_SERVER,
  demoStdioConfig,
  isAlive,
  readCancellations,
  readWriteLog,
  REPO_ROOT,
  startDemoHttp,
  waitForExit,
  type DemoHttpServer,
} from '../helpers/demo-server.js';

const opened: McpConnection[] = [];
function open(...args: Parameters<typeof openMcpConnection>): McpConnection {
  const connection = openMcpConnection(...args);
  opened.push(connection);
  return connection;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

describe('stdioLaunch', () => {
  it('adds env to the inherited environment, runs `node` with the runtime’s Node, and defaults cwd to the flow folder', () => {
    process.env.AGENT_RUNTIME_TEST_INHERITED = 'yes';
    const launch = stdioLaunch(
      { command: 'node', args: ['server.js'], env: { EXTRA: '1', PATH: '/custom' } },
      '/flows/a',
    );
    delete process.env.AGENT_RUNTIME_TEST_INHERITED;
    expect(launch.command).toBe(process.execPath);
    expect(launch.args).toEqual(['server.js']);
    expect(launch.cwd).toBe('/flows/a');
    expect(launch.env).toMatchObject({ AGENT_RUNTIME_TEST_INHERITED: 'yes', EXTRA: '1', PATH: '/custom' });
  });

  it('resolves a relative cwd against the flow folder and keeps an absolute one; other commands run as given', () => {
    expect(stdioLaunch({ command: 'python3', args: [], cwd: 'servers' }, '/flows/a')).toMatchObject({
      command: 'python3',
      cwd: '/flows/a/servers',
    });
    expect(stdioLaunch({ command: 'x', args: [], cwd: '/srv' }, '/flows/a').cwd).toBe('/srv');
  });
});

describe('stdio connection to the demo server', () => {
  it('lists tools as descriptors with server id, remote name, schema and readOnlyHint', async () => {
    const { config } = demoStdioConfig();
    const connection = open({ serverId: 'cloud', config, baseDir: REPO_ROOT });
    expect(connection.pid).toBeNull();
    const tools = await connection.listTools();
    expect(connection.pid).toEqual(expect.any(Number));
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining([
        'space_list',
        'web_site_list',
        'web_site_get',
        'web_site_create',
        'web_site_delete',
      ]),
    );
    expect(byName.get('web_site_list')).toMatchObject({
      kind: 'mcp',
      server: 'cloud',
      remoteName: 'web_site_list',
      readOnlyHint: true,
      inputSchema: { type: 'object', required: ['spaceId'] },
    });
    expect(byName.get('web_site_create')?.readOnlyHint).toBe(false);
  });

  it('starts the server in the flow folder: relative args and a relative cwd resolve there', async () => {
    const { config } = demoStdioConfig();
    const direct = open({
      serverId: 'a',
      config: { ...config, args: ['server.js'] },
      baseDir: join(REPO_ROOT, 'examples/demo-cloud'),
    });
    const viaCwd = open({
      serverId: 'b',
      config: { ...config, args: ['server.js'], cwd: 'demo-cloud' },
      baseDir: join(REPO_ROOT, 'examples'),
    });
    expect((await direct.listTools()).length).toBeGreaterThan(0);
    expect((await viaCwd.listTools()).length).toBeGreaterThan(0);
  });

  it('sends meta in the request’s _meta and runs calls concurrently', async () => {
    const { config, dataDir } = demoStdioConfig();
    const connection = open({ serverId: 'cloud', config, baseDir: REPO_ROOT });
    const result = await connection.callTool(
      'web_site_create',
      { spaceId: 's1', name: 'alpha' },
      { timeoutMs: 5_000, meta: { idempotencyKey: 'run1:fp1' } },
    );
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({ code: 0, data: { name: 'alpha', status: 'CREATING' } });
    expect(readWriteLog(dataDir)).toEqual([
      expect.objectContaining({ tool: 'web_site_create', idempotencyKey: 'run1:fp1' }),
    ]);

    const started = Date.now();
    await Promise.all(
      [1, 2, 3].map(() => connection.callTool('slow_query', { ms: 400 }, { timeoutMs: 5_000 })),
    );
    expect(Date.now() - started).toBeLessThan(1_100);
  });

  it('cancels a call on timeout: the server sees the cancellation', async () => {
    const { config, dataDir } = demoStdioConfig();
    const connection = open({ serverId: 'cloud', config, baseDir: REPO_ROOT });
    await connection.listTools();
    const started = Date.now();
    const error = await connection
      .callTool('slow_query', { ms: 10_000 }, { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
    expect(Date.now() - started).toBeLessThan(3_000);
    await expect
      .poll(() => readCancellations(dataDir), { timeout: 3_000 })
      .toEqual([expect.objectContaining({ tool: 'slow_query' })]);
  });

  it('restarts a dead server on the next call, after the call that found it dead failed', async () => {
    const logger = new MemoryLogger();
    const { config } = demoStdioConfig();
    const connection = open({ serverId: 'cloud', config, baseDir: REPO_ROOT, logger });
    await connection.listTools();
    const firstPid = connection.pid!;
    await expect(connection.callTool('crash_server', {}, { timeoutMs: 5_000 })).rejects.toThrow(/closed/i);
    expect(await waitForExit(firstPid)).toBe(true);
    const result = await connection.callTool('space_list', {}, { timeoutMs: 5_000 });
    expect(result.structuredContent).toMatchObject({ code: 0 });
    expect(connection.pid).not.toBe(firstPid);
    expect(logger.find('MCP server disconnected')).toHaveLength(1);
  });

  it('close ends the server process (no orphan) and later calls fail as unreachable', async () => {
    const { config } = demoStdioConfig();
    const connection = open({ serverId: 'cloud', config, baseDir: REPO_ROOT });
    await connection.callTool('space_list', {}, { timeoutMs: 5_000 });
    const pid = connection.pid!;
    expect(isAlive(pid)).toBe(true);
    await connection.close();
    expect(await waitForExit(pid, 3_000)).toBe(true);
    expect(connection.pid).toBeNull();
    await expect(connection.callTool('space_list', {}, { timeoutMs: 1_000 })).rejects.toMatchObject({
      code: 'CONNECT',
      serverId: 'cloud',
    });
    await connection.close();
  });

  it('a command that cannot start is an McpError CONNECT', async () => {
    const connection = open({
      serverId: 'ghost',
      config: { command: 'no-such-command-xyz', args: [] },
      baseDir: REPO_ROOT,
    });
    const error = await connection.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe('CONNECT');
    expect((error as McpError).message).toMatch(/cannot connect to MCP server ghost/);
  });

  it('a server that exits at once is an McpError CONNECT naming its exit code; its stderr goes to the log only', async () => {
    const script =
      "process.stderr.write('boom: missing config at /srv/secret/app.js:12\\n'); setTimeout(() => process.exit(2), 50)";
    const logger = new MemoryLogger();
    const connection = open({
      serverId: 'dies',
      config: { command: 'node', args: ['-e', script] },
      baseDir: REPO_ROOT,
      logger,
    });
    const error = await connection.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe('CONNECT');
    // The message reaches the run's failure, which viewers read: no stderr (paths, stack traces).
    expect((error as Error).message).toMatch(/^cannot connect to MCP server dies: .*exited with code 2/);
    expect((error as Error).message).not.toMatch(/boom|\/srv\/secret/);
    expect(logger.lines().join('\n')).toMatch(/MCP server failed to connect.*boom: missing config/);
  });

  it('a server that never answers the handshake times out and is killed', async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), 'mute-')), 'pid');
    const script =
      'require("fs").writeFileSync(process.argv[1], String(process.pid)); setInterval(() => {}, 1000)';
    const connection = open({
      serverId: 'mute',
      config: { command: 'node', args: ['-e', script, pidFile], connectTimeoutMs: 400 },
      baseDir: REPO_ROOT,
    });
    await expect(connection.listTools()).rejects.toMatchObject({ code: 'CONNECT', serverId: 'mute' });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(await waitForExit(pid, 6_000)).toBe(true);
  });
});

describe('Streamable HTTP connection to the demo server', () => {
  let server: DemoHttpServer;
  beforeAll(async () => {
    server = await startDemoHttp();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('lists and calls tools, with headers and _meta', async () => {
    const connection = open({
      serverId: 'web',
      config: { url: server.url, headers: { 'x-tenant': 't1' } },
      baseDir: REPO_ROOT,
    });
    expect((await connection.listTools()).map((t) => t.name)).toContain('space_list');
    expect(connection.pid).toBeNull();
    const result = await connection.callTool(
      'web_site_create',
      { spaceId: 's2', name: 'beta' },
      { timeoutMs: 5_000, meta: { idempotencyKey: 'k-http' } },
    );
    expect(result.structuredContent).toMatchObject({ code: 0, data: { spaceId: 's2', name: 'beta' } });
    expect(readWriteLog(server.dataDir).map((w) => w.idempotencyKey)).toContain('k-http');
  });

  it('times out a slow call', async () => {
    const connection = open({ serverId: 'web', config: { url: server.url }, baseDir: REPO_ROOT });
    const error = await connection
      .callTool('slow_query', { ms: 5_000 }, { timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect((error as SdkError).code).toBe(SdkErrorCode.RequestTimeout);
  });

  it('nothing listening is an McpError CONNECT caused by ECONNREFUSED', async () => {
    const port = await closedPort();
    const connection = open({
      serverId: 'web',
      config: { url: `http://127.0.0.1:${port}/mcp` },
      baseDir: REPO_ROOT,
    });
    const error = await connection.listTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe('CONNECT');
    expect(JSON.stringify(String((error as Error).message))).toMatch(/ECONNREFUSED|fetch failed/);
  });

  it('reconnects after the server was restarted', async () => {
    const own = await startDemoHttp();
    const connection = open({ serverId: 'web', config: { url: own.url }, baseDir: REPO_ROOT });
    await connection.callTool('space_list', {}, { timeoutMs: 5_000 });
    await own.stop();
    await expect(connection.callTool('space_list', {}, { timeoutMs: 5_000 })).rejects.toThrow();
    const again = await startDemoHttp({ port: own.port, dataDir: own.dataDir });
    try {
      const result = await connection.callTool('space_list', {}, { timeoutMs: 5_000 });
      expect(result.structuredContent).toMatchObject({ code: 0 });
    } finally {
      await again.stop();
    }
  });
});

it('the demo server path exists', () => {
  expect(readFileSync(DEMO_SERVER, 'utf8')).toContain('createDemoServer');
});
