import type { McpServerConfig } from '../domain/flow.js';
import { canonicalJson } from '../domain/fingerprint.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ToolDescriptor } from '../domain/tool.js';
import { resolveToolNames } from './catalog.js';
import { openMcpConnection, type McpConnectionOptions } from './connection.js';
import type { McpConnection, McpListOptions, McpServerLookup } from './types.js';

/** The part of a flow the pool needs: its identity, its servers and its aliases. */
export interface FlowServersSpec {
  readonly id: string;
  readonly version: string | number;
  readonly mcpServers: Readonly<Record<string, McpServerConfig>>;
  readonly aliases?: Readonly<Record<string, string>>;
}

/** Options of `McpPool`. */
export interface McpPoolOptions {
  logger?: Logger;
  /** Default handshake timeout for servers whose config has none. */
  connectTimeoutMs?: number;
  /** Makes a connection; defaults to the SDK-backed one (tests and embedders may inject another). */
  connect?: (options: McpConnectionOptions) => McpConnection;
}

/**
 * Keeps one connection per (tenant, flow id + version, server id, folder, server config), shared by every
 * run of that tenant and flow version in this process (docs/flows.md). The whole resolved config is in
 * the key, so two flows that share an id and version (flows sent over HTTP may) never share a
 * connection unless they declare the very same server, and tenants never share one. Connections start
 * lazily; `close()` closes them all (ending stdio servers).
 */
export class McpPool {
  private readonly connections = new Map<string, McpConnection>();
  private readonly logger: Logger;
  private closed = false;

  constructor(private readonly options: McpPoolOptions = {}) {
    this.logger = options.logger ?? silentLogger;
  }

  /** The servers of one flow version, for the invoker and the catalog. Connects nothing by itself. */
  forFlow(flow: FlowServersSpec, baseDir: string, tenant: string | null = null): FlowServers {
    this.assertOpen();
    return new FlowServers(this, flow, baseDir, tenant);
  }

  /** The shared connection of a flow version's server, created on first request. */
  connection(
    flow: FlowServersSpec,
    baseDir: string,
    serverId: string,
    tenant: string | null = null,
  ): McpConnection {
    this.assertOpen();
    const config = flow.mcpServers[serverId];
    if (!config) throw new Error(`flow ${flow.id} declares no MCP server ${JSON.stringify(serverId)}`);
    const key = canonicalJson([tenant, flow.id, String(flow.version), serverId, baseDir, config]);
    let connection = this.connections.get(key);
    if (!connection) {
      const make = this.options.connect ?? openMcpConnection;
      connection = make({
        serverId,
        config,
        baseDir,
        connectTimeoutMs: this.options.connectTimeoutMs,
        logger: this.logger,
      });
      this.connections.set(key, connection);
    }
    return connection;
  }

  /** How many connections the pool holds. */
  get size(): number {
    return this.connections.size;
  }

  /** Closes every connection (all at once); later use of the pool throws. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    const results = await Promise.allSettled(all.map((c) => c.close()));
    for (const [i, result] of results.entries()) {
      if (result.status === 'rejected') {
        this.logger.error('MCP close failed', { server: all[i]?.serverId, error: String(result.reason) });
      }
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the MCP pool is closed');
  }
}

/** The MCP servers of one flow version: their shared connections and their tool catalog. */
export class FlowServers implements McpServerLookup {
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
    return this.pool.connection(this.flow, this.baseDir, serverId, this.tenant);
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
