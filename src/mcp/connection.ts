import { createInterface } from 'node:readline';
import { Client, type Tool } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../domain/flow.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ToolDescriptor } from '../domain/tool.js';
import { connectError, describeError, isConnectionLoss, McpError } from './errors.js';
import { createTransport, type TransportHandle } from './transport.js';
import type { McpCallOptions, McpCallResult, McpConnection, McpListOptions } from './types.js';

/** How the runtime introduces itself to MCP servers. */
export const CLIENT_INFO = { name: 'g2rain-agent-runtime', version: '0.1.0' } as const;

/** Default time allowed to start a server and finish the MCP handshake. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

const STDERR_TAIL_LINES = 20;

/** Options of `openMcpConnection`. */
export interface McpConnectionOptions {
  serverId: string;
  config: McpServerConfig;
  /** The flow's folder: the default working directory of a stdio server and the base of a relative `cwd`. */
  baseDir: string;
  /** Overrides the config's `connectTimeoutMs` default. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

/** One connected client; replaced by a fresh one after the server went away. */
interface Session {
  readonly client: Client;
  readonly handle: TransportHandle;
  pid: number | null;
  /** Connected and not known to be gone. */
  alive: boolean;
  /** The transport closed (set even before the handshake finished). */
  ended: boolean;
}

/**
 * Creates a lazy connection to one MCP server (stdio or Streamable HTTP) with the official SDK. Nothing is
 * started until the first `listTools`/`callTool`.
 */
export function openMcpConnection(options: McpConnectionOptions): McpConnection {
  return new SdkMcpConnection(options);
}

class SdkMcpConnection implements McpConnection {
  readonly serverId: string;
  private readonly logger: Logger;
  private readonly connectTimeoutMs: number;
  private session: Session | null = null;
  private connecting: Promise<Session> | null = null;
  private closed = false;
  private readonly stderrTail: string[] = [];

  constructor(private readonly options: McpConnectionOptions) {
    this.serverId = options.serverId;
    this.logger = options.logger ?? silentLogger;
    this.connectTimeoutMs =
      options.connectTimeoutMs ?? options.config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  }

  get pid(): number | null {
    return this.session?.alive ? this.session.pid : null;
  }

  async listTools(options: McpListOptions = {}): Promise<ToolDescriptor[]> {
    const session = await this.ready(options.signal);
    try {
      const { tools } = await session.client.listTools(undefined, {
        timeout: options.timeoutMs ?? this.connectTimeoutMs,
        signal: options.signal,
        cacheMode: 'bypass',
      });
      return tools.map((tool) => toDescriptor(this.serverId, tool));
    } catch (error) {
      this.noteFailure(session, error);
      throw error;
    }
  }

  async callTool(
    remoteName: string,
    args: Readonly<Record<string, unknown>>,
    options: McpCallOptions,
  ): Promise<McpCallResult> {
    const session = await this.ready(options.signal);
    try {
      const params = {
        name: remoteName,
        arguments: { ...args },
        ...(options.meta ? { _meta: { ...options.meta } } : {}),
      };
      const result = await session.client.callTool(params, {
        timeout: options.timeoutMs,
        maxTotalTimeout: options.timeoutMs,
        signal: options.signal,
      });
      return {
        content: Array.isArray(result.content) ? result.content : [],
        structuredContent: result.structuredContent,
        isError: result.isError === true,
      };
    } catch (error) {
      this.noteFailure(session, error);
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A connect in progress sees `closed` and disposes its own session; its error already went to its callers.
    const pending = this.connecting;
    if (pending)
      await pending.then(
        () => undefined,
        () => undefined,
      );
    const session = this.session;
    this.session = null;
    if (session) await this.dispose(session, 'close');
  }

  /** The live session, connecting (or reconnecting after the server died) when there is none. */
  private ready(signal?: AbortSignal): Promise<Session> {
    if (this.closed)
      return Promise.reject(
        connectError(this.serverId, `connection to MCP server ${this.serverId} is closed`),
      );
    if (this.session?.alive) return Promise.resolve(this.session);
    if (!this.connecting) {
      const previous = this.session;
      this.session = null;
      if (previous) void this.dispose(previous, 'replaced');
      this.connecting = this.connect(signal).finally(() => {
        this.connecting = null;
      });
    }
    return this.connecting;
  }

  private async connect(signal?: AbortSignal): Promise<Session> {
    let handle: TransportHandle;
    try {
      handle = createTransport(this.options.config, this.options.baseDir);
    } catch (error) {
      if (!(error instanceof McpError && error.code === 'MISSING_ENV')) throw error;
      throw connectError(this.serverId, `cannot start MCP server ${this.serverId}: ${error.message}`, error);
    }
    this.readStderr(handle);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const session: Session = { client, handle, pid: null, alive: false, ended: false };
    client.onerror = (error) =>
      this.logger.debug('MCP transport error', { server: this.serverId, error: describeError(error) });
    client.onclose = () => this.onClosed(session);
    try {
      await client.connect(handle.transport, { timeout: this.connectTimeoutMs, signal });
    } catch (error) {
      await this.dispose(session, 'connect failed');
      throw this.connectFailure(handle, error);
    }
    session.pid = handle.pid();
    session.alive = !session.ended;
    if (this.closed || session.ended) {
      await this.dispose(session, 'close');
      const why = this.closed ? 'is closed' : 'ended right after the handshake';
      throw connectError(this.serverId, `connection to MCP server ${this.serverId} ${why}`);
    }
    this.session = session;
    this.logger.debug('MCP connected', {
      server: this.serverId,
      endpoint: handle.endpoint,
      pid: session.pid ?? undefined,
    });
    return session;
  }

  /**
   * Why a connect failed, for the run's failure message, which every viewer of the run reads: the
   * server's name, the error and how its process ended — never its stderr (stack traces, paths,
   * whatever the server prints), which goes to this process's log only.
   */
  private connectFailure(handle: TransportHandle, error: unknown): McpError {
    const exit = handle.exit();
    const ended =
      exit === null
        ? ''
        : exit.signal !== null
          ? `; the server process was killed by ${exit.signal}`
          : `; the server process exited with code ${String(exit.code)}`;
    this.logger.warn('MCP server failed to connect', {
      server: this.serverId,
      endpoint: handle.endpoint,
      error: describeError(error),
      ...(exit !== null ? { exitCode: exit.code ?? undefined, signal: exit.signal ?? undefined } : {}),
      stderr: this.stderrTail.length > 0 ? this.stderrTail.slice(-5).join(' | ') : undefined,
    });
    const logged = this.stderrTail.length > 0 ? ' (its stderr is in the log)' : '';
    return connectError(
      this.serverId,
      `cannot connect to MCP server ${this.serverId}: ${describeError(error)}${ended}${logged}`,
      error,
    );
  }

  /** The transport closed by itself (server exited, stream ended): the next call reconnects. */
  private onClosed(session: Session): void {
    session.ended = true;
    if (!session.alive) return;
    session.alive = false;
    if (this.closed) return;
    this.logger.warn('MCP server disconnected', {
      server: this.serverId,
      pid: session.pid ?? undefined,
      stderr: this.stderrTail.length > 0 ? this.stderrTail.slice(-3).join(' | ') : undefined,
    });
  }

  /** A call failed: if the server went away, drop the session so that the next call reconnects. */
  private noteFailure(session: Session, error: unknown): void {
    if (!session.alive || !isConnectionLoss(error)) return;
    session.alive = false;
    this.logger.warn('MCP server unreachable', { server: this.serverId, error: describeError(error) });
  }

  private async dispose(session: Session, why: string): Promise<void> {
    session.alive = false;
    try {
      await session.client.close();
    } catch (error) {
      this.logger.debug('MCP close failed', { server: this.serverId, why, error: describeError(error) });
    }
  }

  private readStderr(handle: TransportHandle): void {
    if (!handle.stderr) return;
    const lines = createInterface({ input: handle.stderr, crlfDelay: Infinity });
    lines.on('line', (line) => {
      this.stderrTail.push(line);
      if (this.stderrTail.length > STDERR_TAIL_LINES) this.stderrTail.shift();
      this.logger.debug('MCP stderr', { server: this.serverId, line });
    });
  }
}

/** An MCP tool as a runtime descriptor (name = remote name; aliasing happens in the catalog). */
export function toDescriptor(serverId: string, tool: Tool): ToolDescriptor {
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: tool.inputSchema,
    kind: 'mcp',
    server: serverId,
    remoteName: tool.name,
    readOnlyHint: tool.annotations?.readOnlyHint,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
  };
}
