import type { ToolDescriptor } from '../domain/tool.js';
import type {
  McpCallOptions,
  McpCallResult,
  McpClientUse,
  McpConnection,
  McpContentBlock,
  McpListOptions,
  McpProtocol,
} from './types.js';

/** What a pooled connection tells its pool. */
export interface PooledHooks {
  /** The current time in ms (the pool's clock). */
  now(): number;
  /** The connection has no request in flight any more (it may be closed once idle long enough). */
  idle(entry: PooledConnection): void;
}

/**
 * A connection as the pool hands it out: the real one, plus what the pool needs to close it safely —
 * how many requests are in flight, when it was last used, and whose it is. A request first waits for
 * `before` (connections closed to make room for this one), so a new stdio server never starts while
 * the one it replaces is still running.
 */
export class PooledConnection implements McpConnection {
  /** Requests (`listTools`, `callTool`) started and not yet settled. */
  inFlight = 0;
  /** When a request last started or ended (or the connection was looked up), by the pool's clock. */
  lastUsed: number;
  private before: Promise<void> | null;

  constructor(
    private readonly inner: McpConnection,
    readonly tenant: string | null,
    private readonly hooks: PooledHooks,
    before: Promise<void> | null = null,
  ) {
    this.lastUsed = hooks.now();
    this.before = before;
  }

  get serverId(): string {
    return this.inner.serverId;
  }

  get pid(): number | null {
    return this.inner.pid;
  }

  /** Marks the connection used now (the pool calls this on every lookup). */
  touch(): void {
    this.lastUsed = this.hooks.now();
  }

  listTools(options?: McpListOptions): Promise<ToolDescriptor[]> {
    return this.track(() => this.inner.listTools(options));
  }

  callTool(
    remoteName: string,
    args: Readonly<Record<string, unknown>>,
    options: McpCallOptions,
  ): Promise<McpCallResult> {
    return this.track(() => this.inner.callTool(remoteName, args, options));
  }

  readResource(uri: string, options?: McpListOptions): Promise<readonly McpContentBlock[]> {
    const read = this.inner.readResource?.bind(this.inner);
    if (!read) return Promise.reject(new Error(`MCP connection ${this.serverId} cannot read resources`));
    return this.track(() => read(uri, options));
  }

  request<T>(use: McpClientUse<T>, options?: McpListOptions): Promise<T> {
    const request = this.inner.request?.bind(this.inner);
    if (!request) return Promise.reject(new Error(`MCP connection ${this.serverId} has no client requests`));
    return this.track(() => request(use, options));
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  protocol(): McpProtocol | null {
    return this.inner.protocol?.() ?? null;
  }

  onToolsChanged(listener: (tools: ToolDescriptor[]) => void): () => void {
    return this.inner.onToolsChanged?.(listener) ?? (() => undefined);
  }

  toolsSettled(): Promise<void> {
    return this.inner.toolsSettled?.() ?? Promise.resolve();
  }

  /** Counts the request as in flight from now (synchronously, before any await) until it settles. */
  private async track<T>(request: () => Promise<T>): Promise<T> {
    this.inFlight += 1;
    this.touch();
    try {
      if (this.before) {
        await this.before;
        this.before = null;
      }
      return await request();
    } finally {
      this.inFlight -= 1;
      this.touch();
      if (this.inFlight === 0) this.hooks.idle(this);
    }
  }
}
