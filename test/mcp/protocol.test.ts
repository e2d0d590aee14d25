import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/domain/flow.js';
import { openMcpConnection } from '../../src/mcp/connection.js';
import { catalogFailureReason, McpError } from '../../src/mcp/errors.js';
import { followTools } from '../../src/mcp/live-tools.js';
import { McpPool } from '../../src/mcp/pool.js';
import type { McpConnection, McpProgress } from '../../src/mcp/types.js';
import { silentLogger } from '../../src/log/logger.js';
import { REPO_ROOT } from '../helpers/demo-server.js';

/** MCP as real servers speak it: progress, list_changed, roots, annotations, sessions, 401, versions. */

const LIVE = join(REPO_ROOT, 'test/mcp/fixtures/live-server.mjs');
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const live: McpServerConfig = { command: 'node', args: [LIVE] };

const cleanups: (() => Promise<void> | void)[] = [];
function open(config: McpServerConfig, serverId = 'live'): McpConnection {
  const connection = openMcpConnection({ serverId, config, baseDir: REPO_ROOT });
  cleanups.push(() => connection.close());
  return connection;
}

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Resolves once `predicate` holds, polling; fails after `ms`. */
async function until(predicate: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('progress', () => {
  it('every call carries a progress token and each report starts the timeout afresh', async () => {
    const connection = open(live);
    const reports: McpProgress[] = [];
    const result = await connection.callTool(
      'slow',
      { steps: 6, every: 150 },
      { timeoutMs: 450, maxTotalMs: 20_000, onProgress: (p) => reports.push(p) },
    );
    expect(result.content[0]?.text).toBe('done after 6 steps');
    // The last report may cross the result; the ones before it each started the 450 ms afresh.
    expect(reports.map((r) => r.progress).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(reports[0]?.total).toBe(6);
  });

  it('without progress the same call times out, and progress extends it only up to maxTotalMs', async () => {
    const connection = open(live);
    const timedOut = (error: unknown) =>
      error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
    const silent = connection.callTool('slow', { steps: 6, every: 150, silent: true }, { timeoutMs: 450 });
    await expect(silent.catch((e: unknown) => timedOut(e))).resolves.toBe(true);
    const capped = connection.callTool(
      'slow',
      { steps: 20, every: 150 },
      { timeoutMs: 450, maxTotalMs: 900 },
    );
    await expect(capped.catch((e: unknown) => timedOut(e))).resolves.toBe(true);
  });
});

describe('tools/list_changed', () => {
  it('tells listeners the new list, and a followed catalog gains the added tool in place', async () => {
    const pool = new McpPool({ idleMs: 0 });
    cleanups.push(() => pool.close());
    const servers = pool.forFlow({ id: 'f', version: 1, mcpServers: { live } }, REPO_ROOT);
    const tools = await followTools(servers, [], silentLogger);
    cleanups.push(tools.stop);
    expect(tools.all.has('added')).toBe(false);
    const before = tools.version();
    await servers.connection('live').callTool('grow', {}, { timeoutMs: 5_000 });
    await until(() => tools.all.has('added'));
    expect(tools.version()).toBeGreaterThan(before);
    const ran = await servers.connection('live').callTool('added', {}, { timeoutMs: 5_000 });
    expect(ran.content[0]?.text).toBe('the added tool ran');
  });
});

describe('annotations and roots', () => {
  it('keeps destructiveHint, and drops readOnlyHint when the flow does not trust it', async () => {
    const trusted = await open(live).listTools();
    expect(trusted.find((t) => t.name === 'reader')).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(trusted.find((t) => t.name === 'wiper')).toMatchObject({ destructiveHint: true });
    const distrusted = await open({ ...live, trustReadOnlyHint: false }).listTools();
    expect(distrusted.find((t) => t.name === 'reader')?.readOnlyHint).toBeUndefined();
  });

  it("offers the flow's roots to the server (roots/list)", async () => {
    const roots = [{ uri: 'file:///srv/data', name: 'data' }];
    const result = await open({ ...live, roots }).callTool('roots', {}, { timeoutMs: 5_000 });
    expect(JSON.parse(result.content[0]?.text ?? '')).toEqual({ roots });
  });
});

/** An HTTP endpoint answering every request with `respond`. */
async function httpServer(respond: Parameters<typeof createServer>[1]): Promise<string> {
  const server: Server = createServer(respond);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

describe('permanent failures are named', () => {
  it('a 401 says the server needs authorization (TOOLS_UNAUTHORIZED, not an outage)', async () => {
    const url = await httpServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_token', error_description: 'Missing Authorization header' }));
    });
    const error = await open({ url }, 'crm')
      .listTools()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe('UNAUTHORIZED');
    expect((error as McpError).message).toMatch(/MCP server crm needs authorization/);
    expect((error as McpError).message).toMatch(/agent-runtime mcp login FLOW crm/);
    expect(catalogFailureReason(error)).toBe('TOOLS_UNAUTHORIZED');
  });

  it('an unknown protocol version is TOOLS_INCOMPATIBLE, not the retryable TOOLS_UNAVAILABLE', async () => {
    const url = await httpServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const message = JSON.parse(body || '{}') as { id?: number; method?: string };
        // A 2025 server: a request it does not know (the 2026 `server/discover` probe) is an error,
        // a notification is accepted.
        if (message.method !== 'initialize' && message.id === undefined) return void res.writeHead(202).end();
        res.writeHead(200, { 'content-type': 'application/json' });
        if (message.method !== 'initialize')
          return void res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              error: { code: -32601, message: 'Method not found' },
            }),
          );
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: message.id,
            result: {
              protocolVersion: '1999-01-01',
              capabilities: {},
              serverInfo: { name: 'old', version: '0' },
            },
          }),
        );
      });
    });
    const error = await open({ url }, 'old')
      .listTools()
      .catch((e: unknown) => e);
    expect((error as McpError).code).toBe('INCOMPATIBLE');
    expect(catalogFailureReason(error)).toBe('TOOLS_INCOMPATIBLE');
  });
});

/** server-everything over Streamable HTTP (sessions) on a free port; its stdout is collected. */
async function startEverything(): Promise<{ url: string; child: ChildProcess; out: () => string }> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  cleanups.push(() => {
    child.kill();
  });
  await until(() => err.includes('listening on port'), 20_000);
  return { url: `http://127.0.0.1:${port}/mcp`, child, out: () => out };
}

describe('sessions over Streamable HTTP (server-everything)', () => {
  it('ends its session with DELETE on close', async () => {
    const everything = await startEverything();
    const connection = openMcpConnection({
      serverId: 'ev',
      config: { url: everything.url },
      baseDir: REPO_ROOT,
    });
    const result = await connection.callTool('echo', { message: 'hi' }, { timeoutMs: 10_000 });
    expect(result.content[0]?.text).toMatch(/hi/);
    await connection.close();
    await until(() => everything.out().includes('Received session termination request'));
  });

  it('sends a call again, transparently, on a new session when the server forgot the old one', async () => {
    const first = await startEverything();
    const connection = open({ url: first.url }, 'ev');
    await connection.callTool('echo', { message: 'one' }, { timeoutMs: 10_000 });
    // Same port, new process: the old session id is unknown to it (HTTP 404).
    first.child.kill();
    await new Promise((resolve) => first.child.once('exit', resolve));
    const port = new URL(first.url).port;
    const second = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: port },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanups.push(() => {
      second.kill();
    });
    let err = '';
    second.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    await until(() => err.includes('listening on port'), 20_000);
    const result = await connection.callTool('echo', { message: 'two' }, { timeoutMs: 10_000 });
    expect(result.content[0]?.text).toMatch(/two/);
  });
});
