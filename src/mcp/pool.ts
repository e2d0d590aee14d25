import type { McpServerConfig } from '../domain/flow.js';
import { canonicalJson } from '../domain/fingerprint.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ToolDescriptor } from '../domain/tool.js';
import { resolveToolNames } from './catalog.js';
import { openMcpConnection, type McpConnectionOptions } from './connection.js';
import { connectError } from './errors.js';
import { PooledConnection, type PooledHooks } from './pooled.js';
import type { McpConnection, McpListOptions, McpProtocol, McpServerLookup } from './types.js';

/** The part of a flow the pool needs: its identity, its servers and its aliases. */
export interface FlowServersSpec {
  readonly id: string;
  readonly version: string | number;
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  readonly aliases?: Readonly<Record<string, string>>;
}

/** Default time a connection may stay unused before it is closed (`McpPoolOptions.idleMs`). */
export const DEFAULT_MCP_IDLE_MS = 300_000;

/** Default number of connections one tenant may hold open (`McpPoolOptions.maxConnectionsPerTenant`). */
export const DEFAULT_MAX_MCP_CONNECTIONS = 32;

/** Options of `McpPool`. */
export interface McpPoolOptions {
  logger?: Logger;
  /** Default handshake timeout for servers whose config has none. */
  connectTimeoutMs?: number;
  /** Makes a connection; defaults to the SDK-backed one (tests and embedders may inject another). */
  connect?: (options: McpConnectionOptions) => McpConnection;
  /**
   * A connection with no request in flight for this long is closed (a stdio server ends) and dropped;
   * the next use connects again (default DEFAULT_MCP_IDLE_MS; 0: never).
   */
  idleMs?: number;
  /**
   * Connections one tenant (tenant null counting as one) may hold at once (default
   * DEFAULT_MAX_MCP_CONNECTIONS). One more closes the tenant's least recently used idle connection
   * first; with every one busy it is refused (McpError CONNECT).
   */
  maxConnectionsPerTenant?: number;
  /** The clock of idle times (default `Date.now`). */
  now?: () => number;
  /** The environment stdio servers inherit and `${NAME}` references read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Keeps one connection per (tenant, flow id + version, server id, folder, server config), shared by every
 * run of that tenant and flow version in this process (docs/flows.md). The whole resolved config is in
 * the key, so two flows that share an id and version (flows sent over HTTP may) never share a
 * connection unless they declare the very same server, and tenants never share one. Connections start
 * lazily and are bounded (docs/mcp.md): one unused for `idleMs` is closed, and a tenant holds at most
 * `maxConnectionsPerTenant`. Callers look a connection up for each request (`connection()`), never keep
 * it, so a closed one is simply opened again. `close()` closes them all (ending stdio servers).
 */
export class McpPool {
  private readonly connections = new Map<string, PooledConnection>();
  /** Closes in progress (idle or making room), awaited by `close()`. */
  private readonly closing = new Set<Promise<void>>();
  private readonly logger: Logger;
  private readonly idleMs: number;
  private readonly maxPerTenant: number;
  private readonly hooks: PooledHooks;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: McpPoolOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.idleMs = options.idleMs ?? DEFAULT_MCP_IDLE_MS;
    this.maxPerTenant = options.maxConnectionsPerTenant ?? DEFAULT_MAX_MCP_CONNECTIONS;
    if (!(this.idleMs >= 0)) throw new RangeError(`McpPool idleMs must be ≥ 0, not ${this.idleMs}`);
    if (!(this.maxPerTenant >= 1))
      throw new RangeError(`McpPool maxConnectionsPerTenant must be ≥ 1, not ${this.maxPerTenant}`);
    const now = options.now ?? (() => Date.now());
    this.hooks = { now, idle: () => this.schedule() };
  }

  /** The servers of one flow version, for the invoker and the catalog. Connects nothing by itself. */
  forFlow(flow: FlowServersSpec, baseDir: string, tenant: string | null = null): FlowServers {
    this.assertOpen();
    return new FlowServers(this, flow, baseDir, tenant);
  }

  /**
   * The shared connection of a flow version's server, created on first request (or again after it was
   * closed). Throws McpError CONNECT when the tenant already holds its limit of connections and every
   * one has a request in flight.
   */
  connection(
    flow: FlowServersSpec,
    baseDir: string,
    serverId: string,
    tenant: string | null = null,
    key = connectionKey(flow, baseDir, serverId, tenant),
  ): McpConnection {
    this.assertOpen();
    const config = flow.mcpServers[serverId];
    if (!config) throw new Error(`flow ${flow.id} declares no MCP server ${JSON.stringify(serverId)}`);
    const found = this.connections.get(key);
    if (found) {
      found.touch();
      return found;
    }
    const before = this.makeRoom(tenant, serverId);
    const make = this.options.connect ?? openMcpConnection;
    const inner = make({
      serverId,
      config,
      baseDir,
      connectTimeoutMs: this.options.connectTimeoutMs,
      logger: this.logger,
      tenant,
      ...(this.options.env ? { env: this.options.env } : {}),
    });
    const connection = new PooledConnection(inner, tenant, this.hooks, before);
    this.connections.set(key, connection);
    this.schedule();
    return connection;
  }

  /** How many connections the pool holds. */
  get size(): number {
    return this.connections.size;
  }

  /** How many connections the pool holds for one tenant. */
  sizeOf(tenant: string | null): number {
    let count = 0;
    for (const connection of this.connections.values()) if (connection.tenant === tenant) count += 1;
    return count;
  }

  /** Closes every connection (all at once); later use of the pool throws. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const all = [...this.connections.values()];
    this.connections.clear();
    const results = await Promise.allSettled([...all.map((c) => c.close()), ...this.closing]);
    for (const [i, result] of results.entries()) {
      if (result.status === 'rejected') {
        this.logger.error('MCP close failed', { server: all[i]?.serverId, error: String(result.reason) });
      }
    }
  }

  /**
   * Before a tenant's new connection: when the tenant is at its limit, closes its least recently used
   * idle connection (returning that close, which the new connection waits for), or refuses.
   */
  private makeRoom(tenant: string | null, serverId: string): Promise<void> | null {
    let held = 0;
    let oldest: [string, PooledConnection] | null = null;
    for (const entry of this.connections) {
      const connection = entry[1];
      if (connection.tenant !== tenant) continue;
      held += 1;
      if (connection.inFlight === 0 && (!oldest || connection.lastUsed < oldest[1].lastUsed)) oldest = entry;
    }
    if (held < this.maxPerTenant) return null;
    if (!oldest) {
      this.logger.warn('MCP connection limit reached', { server: serverId, limit: this.maxPerTenant });
      throw connectError(
        serverId,
        `cannot connect to MCP server ${serverId}: this tenant already holds ${this.maxPerTenant} MCP ` +
          'connections, each with a request in flight (the limit is --max-mcp-connections, ' +
          'option maxMcpConnections); try again when one ends',
      );
    }
    return this.evict(oldest[0], oldest[1], 'limit');
  }

  /** Arms the pool's one idle timer for the earliest moment a connection may have been idle long enough. */
  private schedule(): void {
    if (this.closed || this.idleMs === 0 || this.timer) return;
    let due = Infinity;
    for (const connection of this.connections.values())
      if (connection.inFlight === 0) due = Math.min(due, connection.lastUsed + this.idleMs);
    if (due === Infinity) return;
    const delay = Math.max(1, Math.min(due - this.hooks.now(), 2 ** 31 - 1));
    this.timer = setTimeout(() => this.sweep(), delay);
    this.timer.unref();
  }

  /** Closes every connection idle for `idleMs`, then arms the timer for the next one. */
  private sweep(): void {
    this.timer = null;
    const now = this.hooks.now();
    for (const [key, connection] of this.connections)
      if (connection.inFlight === 0 && now - connection.lastUsed >= this.idleMs)
        void this.evict(key, connection, 'idle');
    this.schedule();
  }

  /** Drops a connection (the next lookup makes a new one) and closes it; the close never rejects. */
  private evict(key: string, connection: PooledConnection, why: 'idle' | 'limit'): Promise<void> {
    this.connections.delete(key);
    this.logger.debug('MCP connection closed', {
      server: connection.serverId,
      why,
      pid: connection.pid ?? undefined,
    });
    const done: Promise<void> = connection
      .close()
      .catch((error: unknown) =>
        this.logger.error('MCP close failed', { server: connection.serverId, error: String(error) }),
      )
      .finally(() => this.closing.delete(done));
    this.closing.add(done);
    return done;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the MCP pool is closed');
  }
}

/** The pool's key of a server's connection: tenant, flow id and version, server id, folder and the whole entry. */
export function connectionKey(
  flow: FlowServersSpec,
  baseDir: string,
  serverId: string,
  tenant: string | null,
): string {
  return canonicalJson([tenant, flow.id, String(flow.version), serverId, baseDir, flow.mcpServers[serverId]]);
}

/** The MCP servers of one flow version: their shared connections and their tool catalog. */
export class FlowServers implements McpServerLookup {
  /** The pool key per server id, computed once (a call looks its connection up by it). */
  private readonly keys = new Map<string, string>();

  constructor(
    private readonly pool: McpPool,
    readonly flow: FlowServersSpec,
    readonly baseDir: string,
    readonly tenant: string | null = null,
  ) {}

  /** The server ids the flow declares. */
  get serverIds(): string[] {
    return Object.keys(this.flow.mcpServers);
  }

  connection(serverId: string): McpConnection {
    let key = this.keys.get(serverId);
    if (key === undefined) {
      key = connectionKey(this.flow, this.baseDir, serverId, this.tenant);
      this.keys.set(serverId, key);
    }
    return this.pool.connection(this.flow, this.baseDir, serverId, this.tenant, key);
  }

  /** The protocol revision each connected server of the flow negotiated (servers not connected left out). */
  protocols(): { server: string; protocol: McpProtocol }[] {
    return this.serverIds.flatMap((server) => {
      const protocol = this.connection(server).protocol?.() ?? null;
      return protocol === null ? [] : [{ server, protocol }];
    });
  }

  /**
   * Lists every server's tools (in parallel) and names them with the flow's aliases. Throws the first
   * connection error (McpError CONNECT) or an McpError CATALOG listing every name conflict.
   */
  async catalog(options: McpListOptions = {}): Promise<ToolDescriptor[]> {
    const listings = await Promise.all(
      this.serverIds.map(async (serverId) => ({
        serverId,
        tools: await this.connection(serverId).listTools(options),
      })),
    );
    return resolveToolNames(listings, this.flow.aliases ?? {});
  }
}
