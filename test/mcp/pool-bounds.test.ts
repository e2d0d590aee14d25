import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { McpError } from '../../src/mcp/errors.js';
import { McpPool, type FlowServersSpec } from '../../src/mcp/pool.js';
import type { McpCallResult, McpConnection } from '../../src/mcp/types.js';
import { ToolInvoker } from '../../src/tools/invoker.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { alive, ENV_SERVER, until } from '../helpers/env-probe.js';

/** The bounds of the pool (docs/mcp.md "Connections"): idle connections closed, a limit per tenant. */

const OK: McpCallResult = { content: [{ type: 'text', text: 'ok' }], isError: false };

/** A fake connection whose calls wait until the test settles them, and whose close is recorded. */
class Fake implements McpConnection {
  readonly pid = null;
  closed = false;
  calls = 0;
  private readonly pending: (() => void)[] = [];
  closeGate: Promise<void> = Promise.resolve();

  constructor(
    readonly serverId: string,
    readonly name: string,
  ) {}

  listTools() {
    this.calls += 1;
    return Promise.resolve([]);
  }

  callTool(): Promise<McpCallResult> {
    this.calls += 1;
    return new Promise((resolve) => this.pending.push(() => resolve(OK)));
  }

  /** Settles every call in flight. */
  finish(): void {
    for (const settle of this.pending.splice(0)) settle();
  }

  async close(): Promise<void> {
    await this.closeGate;
    this.closed = true;
  }
}

function flow(id: string): FlowServersSpec {
  return { id, version: 1, mcpServers: { s: { command: 'node', args: [`${id}.js`] } } };
}

const made: Fake[] = [];
const pools: McpPool[] = [];
function pool(options: { idleMs?: number; max?: number } = {}): McpPool {
  const p = new McpPool({
    idleMs: options.idleMs ?? 1_000,
    maxConnectionsPerTenant: options.max ?? 32,
    connect: (o) => {
      const fake = new Fake(o.serverId, 'args' in o.config ? String(o.config.args[0]) : '');
      made.push(fake);
      return fake;
    },
  });
  pools.push(p);
  return p;
}

/** Looks the server of flow `id` up and starts a call that stays in flight until `fake.finish()`. */
function busy(p: McpPool, id: string, tenant: string | null = null): Promise<McpCallResult> {
  return p.connection(flow(id), '/f', 's', tenant).callTool('t', {}, { timeoutMs: 1_000 });
}

function use(p: McpPool, id: string, tenant: string | null = null): Promise<unknown> {
  return p.connection(flow(id), '/f', 's', tenant).listTools();
}

const fakeOf = (name: string): Fake[] => made.filter((f) => f.name === `${name}.js`);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(pools.splice(0).map((p) => p.close()));
  made.length = 0;
});

describe('McpPool: idle connections', () => {
  it('closes a connection unused for idleMs and opens a new one on the next use', async () => {
    const p = pool({ idleMs: 1_000 });
    await use(p, 'a');
    await vi.advanceTimersByTimeAsync(999);
    expect(fakeOf('a')[0]!.closed).toBe(false);
    expect(p.size).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fakeOf('a')[0]!.closed).toBe(true);
    expect(p.size).toBe(0);
    await use(p, 'a');
    expect(fakeOf('a')).toHaveLength(2);
    expect(fakeOf('a')[1]!.closed).toBe(false);
  });

  it('counts idleness from the last use, and never closes a connection with a request in flight', async () => {
    const p = pool({ idleMs: 1_000 });
    const call = busy(p, 'a');
    await vi.advanceTimersByTimeAsync(5_000);
    const [a] = fakeOf('a');
    expect(a!.closed).toBe(false);
    a!.finish();
    await expect(call).resolves.toEqual(OK);
    await vi.advanceTimersByTimeAsync(600);
    await use(p, 'a');
    await vi.advanceTimersByTimeAsync(600);
    expect(a!.closed).toBe(false);
    await vi.advanceTimersByTimeAsync(400);
    expect(a!.closed).toBe(true);
  });

  it('uses one timer for the whole pool, and none when idleMs is 0', async () => {
    const p = pool({ idleMs: 1_000 });
    for (const id of ['a', 'b', 'c']) await use(p, id);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(p.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    const never = pool({ idleMs: 0 });
    await use(never, 'd');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(never.size).toBe(1);
  });
});

describe('McpPool: connections per tenant', () => {
  it('at the limit, closes the least recently used idle connection of that tenant only', async () => {
    const p = pool({ max: 2, idleMs: 0 });
    await use(p, 'a', 'acme');
    await vi.advanceTimersByTimeAsync(10);
    await use(p, 'b', 'acme');
    await vi.advanceTimersByTimeAsync(10);
    await use(p, 'a', 'acme'); // a is now the more recently used
    await use(p, 'x', 'beta');
    await use(p, 'y', null);
    await vi.advanceTimersByTimeAsync(10);
    await use(p, 'c', 'acme');
    expect(fakeOf('b')[0]!.closed).toBe(true);
    expect(fakeOf('a')[0]!.closed).toBe(false);
    expect(p.sizeOf('acme')).toBe(2);
    expect(p.sizeOf('beta')).toBe(1);
    expect(p.sizeOf(null)).toBe(1);
    // No tenant counts as its own tenant: its limit is its own.
    await use(p, 'z', null);
    await use(p, 'w', null);
    expect(fakeOf('y')[0]!.closed).toBe(true);
    expect(p.sizeOf('acme')).toBe(2);
  });

  it('skips busy connections, and a new connection starts only once the one it replaces is closed', async () => {
    const p = pool({ max: 2, idleMs: 0 });
    const call = busy(p, 'a', 't');
    await use(p, 'b', 't');
    let release!: () => void;
    fakeOf('b')[0]!.closeGate = new Promise((resolve) => (release = resolve));
    const listing = use(p, 'c', 't');
    await vi.advanceTimersByTimeAsync(0);
    expect(fakeOf('a')[0]!.closed).toBe(false);
    expect(fakeOf('c')[0]!.calls).toBe(0);
    release();
    await listing;
    expect(fakeOf('b')[0]!.closed).toBe(true);
    expect(fakeOf('c')[0]!.calls).toBe(1);
    fakeOf('a')[0]!.finish();
    await call;
  });

  it('refuses a new connection when every one of the tenant is busy (McpError CONNECT naming the flag)', async () => {
    const p = pool({ max: 1, idleMs: 0 });
    const call = busy(p, 'a', 't');
    let error: unknown;
    try {
      p.connection(flow('b'), '/f', 's', 't');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe('CONNECT');
    expect((error as McpError).serverId).toBe('s');
    expect((error as Error).message).toMatch(/already holds 1 MCP connections.*--max-mcp-connections/);
    // The catalog rejects with it (TOOLS_UNAVAILABLE for the run); the invoker observes TOOL_UNREACHABLE.
    await expect(p.forFlow(flow('b'), '/f', 't').catalog()).rejects.toBeInstanceOf(McpError);
    const invoker = new ToolInvoker({ servers: p.forFlow(flow('b'), '/f', 't') });
    const observation = await invoker.invoke(
      { name: 'tool', description: '', inputSchema: {}, kind: 'mcp', server: 's', remoteName: 'tool' },
      {},
      { timeoutMs: 1_000, locale: 'en' },
    );
    expect(observation.outcome.name).toBe('FAILED');
    expect(observation.code?.name).toBe('TOOL_UNREACHABLE');
    expect(observation.reason).toMatch(/--max-mcp-connections/);
    // Other tenants are not affected; once the call ends, the connection can be replaced.
    await use(p, 'b', 'other');
    fakeOf('a')[0]!.finish();
    await call;
    await use(p, 'b', 't');
    expect(fakeOf('a')[0]!.closed).toBe(true);
  });

  it('close() waits for closes in progress', async () => {
    const p = pool({ max: 1, idleMs: 0 });
    await use(p, 'a');
    let release!: () => void;
    fakeOf('a')[0]!.closeGate = new Promise((resolve) => (release = resolve));
    void use(p, 'b');
    let done = false;
    const closing = p.close().then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    release();
    await closing;
    expect(made.every((f) => f.closed)).toBe(true);
  });
});

describe('McpPool: idle stdio servers (real processes)', () => {
  it('ends the server process of an idle connection; a later call starts a new one', async () => {
    vi.useRealTimers();
    const p = new McpPool({ idleMs: 150 });
    pools.push(p);
    const spec: FlowServersSpec = {
      id: 'probe',
      version: 1,
      mcpServers: { p: { command: 'node', args: [ENV_SERVER] } },
    };
    const servers = p.forFlow(spec, REPO_ROOT);
    const call = async (): Promise<number> => {
      const result = await servers.connection('p').callTool('env_probe', {}, { timeoutMs: 10_000 });
      return (JSON.parse(result.content[0]!.text!) as { pid: number }).pid;
    };
    const first = await call();
    expect(alive(first)).toBe(true);
    expect(await until(() => !alive(first), 10_000)).toBe(true);
    expect(p.size).toBe(0);
    const second = await call();
    expect(second).not.toBe(first);
    expect(alive(second)).toBe(true);
  }, 30_000);
});
