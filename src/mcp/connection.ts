import { createInterface } from 'node:readline';
import { Client, type Tool } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../domain/flow.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ToolDescriptor } from '../domain/tool.js';
import { SdkHttpError } from '@modelcontextprotocol/client';
import {
  causeChain,
  connectError,
  describeError,
  isConnectionLoss,
  isIncompatible,
  isUnauthorized,
  McpError,
} from './errors.js';
import { clientCapabilities, serveRoots, trackSends, type SendTracker } from './session-setup.js';
import { createTransport, type TransportHandle } from './transport.js';
import { CLIENT_INFO } from './client-info.js';
import { FileCredentialStore, type McpCredentialStore } from './token-store.js';
import type { McpCallOptions, McpCallResult, McpConnection, McpListOptions } from './types.js';

export { CLIENT_INFO } from './client-info.js';

/** Default time allowed to start a server and finish the MCP handshake. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

const STDERR_TAIL_LINES = 20;

/** How long closing waits for messages still being sent (a cancellation's POST) before it closes anyway. */
const CLOSE_SEND_GRACE_MS = 2_000;

/** Options of `openMcpConnection`. */
export interface McpConnectionOptions {
  serverId: string;
  config: McpServerConfig;
  /** The flow's folder: the default working directory of a stdio server and the base of a relative `cwd`. */
  baseDir: string;
  /** Overrides the config's `connectTimeoutMs` default. */
  connectTimeoutMs?: number;
  logger?: Logger;
  /** Whose OAuth credentials an HTTP server with `auth` uses (null: no tenant). */
  tenant?: string | null;
  /** Where OAuth credentials are kept (default: `FileCredentialStore.fromEnv()`). */
  credentials?: McpCredentialStore;
}

/** One connected client; replaced by a fresh one after the server went away. */
interface Session {
  readonly client: Client;
  readonly handle: TransportHandle;
  readonly sends: SendTracker;
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
  private readonly toolListeners = new Set<(tools: ToolDescriptor[]) => void>();

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
      return tools.map((tool) => toDescriptor(this.serverId, tool, this.options.config));
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
      return await this.send(session, remoteName, args, options);
    } catch (error) {
      this.noteFailure(session, error);
      if (!this.sessionExpired(session, error) || options.signal?.aborted) throw error;
      // The server forgot the session (HTTP 404 to a request carrying its id): it did not run the
      // call, so it is sent once more on a new session, transparently.
      this.logger.info('MCP session expired, reconnecting', { server: this.serverId });
      session.alive = false;
      const fresh = await this.ready(options.signal);
      try {
        return await this.send(fresh, remoteName, args, options);
      } catch (again) {
        this.noteFailure(fresh, again);
        throw again;
      }
    }
  }

  onToolsChanged(listener: (tools: ToolDescriptor[]) => void): () => void {
    this.toolListeners.add(listener);
    return () => this.toolListeners.delete(listener);
  }

  /**
   * One `tools/call`, always with a progress token: each progress notification starts the timeout
   * afresh, up to `maxTotalMs` in all.
   */
  private async send(
    session: Session,
    remoteName: string,
    args: Readonly<Record<string, unknown>>,
    options: McpCallOptions,
  ): Promise<McpCallResult> {
    const params = {
      name: remoteName,
      arguments: { ...args },
      ...(options.meta ? { _meta: { ...options.meta } } : {}),
    };
    const onProgress = options.onProgress;
    const result = await session.client.callTool(params, {
      timeout: options.timeoutMs,
      resetTimeoutOnProgress: true,
      maxTotalTimeout: Math.max(options.maxTotalMs ?? options.timeoutMs, options.timeoutMs),
      signal: options.signal,
      onprogress: (p) =>
        onProgress?.({
          progress: p.progress,
          ...(p.total === undefined ? {} : { total: p.total }),
          ...(p.message === undefined ? {} : { message: p.message }),
        }),
    });
    return {
      content: Array.isArray(result.content) ? result.content : [],
      structuredContent: result.structuredContent,
      isError: result.isError === true,
    };
  }

  /**
   * True when an HTTP server refused a request of a session it had assigned because it no longer
   * knows the session: 404 (the spec), or 400 naming the session (what the SDK's example servers,
   * server-everything among them, answer). Either way the request was not run.
   */
  private sessionExpired(session: Session, error: unknown): boolean {
    if (this.closed || session.handle.sessionId() === undefined) return false;
    return causeChain(error).some(
      (e) =>
        e instanceof SdkHttpError && (e.status === 404 || (e.status === 400 && /session/i.test(e.message))),
    );
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
      handle = createTransport(this.options.config, this.options.baseDir, {
        tenant: this.options.tenant ?? null,
        store: this.options.credentials ?? FileCredentialStore.fromEnv(),
      });
    } catch (error) {
      if (!(error instanceof McpError && error.code === 'MISSING_ENV')) throw error;
      throw connectError(this.serverId, `cannot start MCP server ${this.serverId}: ${error.message}`, error);
    }
    this.readStderr(handle);
    const config = this.options.config;
    const client = new Client(CLIENT_INFO, {
      capabilities: clientCapabilities(config, false),
      listChanged: {
        tools: { debounceMs: 50, onChanged: (error, tools) => this.toolsChanged(error, tools) },
      },
    });
    serveRoots(client, config);
    const sends = trackSends(handle.transport);
    const session: Session = { client, handle, sends, pid: null, alive: false, ended: false };
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
    if (isUnauthorized(error))
      return new McpError(
        'UNAUTHORIZED',
        `MCP server ${this.serverId} needs authorization (HTTP 401 from ${handle.endpoint}): ` +
          ('auth' in this.options.config && this.options.config.auth
            ? `run \`agent-runtime mcp login FLOW ${this.serverId}\` (docs/mcp.md)`
            : `give its entry \`auth\` and run \`agent-runtime mcp login FLOW ${this.serverId}\` (docs/mcp.md)`),
        { serverId: this.serverId, cause: error },
      );
    if (isIncompatible(error))
      return new McpError(
        'INCOMPATIBLE',
        `MCP server ${this.serverId} cannot be used: ${describeError(error)} (a permanent failure; retrying does not help)`,
        { serverId: this.serverId, cause: error },
      );
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
    // Cancellations still being sent go out first; then the server's session ends (HTTP DELETE).
    await session.sends.settled(CLOSE_SEND_GRACE_MS);
    if (!session.ended)
      await session.handle.terminate().catch((error: unknown) => {
        this.logger.debug('MCP session DELETE failed', {
          server: this.serverId,
          error: describeError(error),
        });
      });
    try {
      await session.client.close();
    } catch (error) {
      this.logger.debug('MCP close failed', { server: this.serverId, why, error: describeError(error) });
    }
  }

  /** The server's tool list changed (the SDK listed it again): tells the listeners. */
  private toolsChanged(error: Error | null, tools: Tool[] | null): void {
    if (error || !tools) {
      if (error)
        this.logger.warn('MCP tool list refresh failed', {
          server: this.serverId,
          error: describeError(error),
        });
      return;
    }
    const descriptors = tools.map((tool) => toDescriptor(this.serverId, tool, this.options.config));
    this.logger.info('MCP tool list changed', { server: this.serverId, tools: descriptors.length });
    for (const listener of this.toolListeners) listener(descriptors);
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

/**
 * An MCP tool as a runtime descriptor (name = remote name; aliasing happens in the catalog). Its
 * `readOnlyHint` is dropped when the server entry says `trustReadOnlyHint: false`.
 */
export function toDescriptor(serverId: string, tool: Tool, config?: McpServerConfig): ToolDescriptor {
  const trusted = config?.trustReadOnlyHint !== false;
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    inputSchema: tool.inputSchema,
    kind: 'mcp',
    server: serverId,
    remoteName: tool.name,
    readOnlyHint: trusted ? tool.annotations?.readOnlyHint : undefined,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    ...(tool.annotations?.destructiveHint === undefined
      ? {}
      : { destructiveHint: tool.annotations.destructiveHint }),
  };
}
