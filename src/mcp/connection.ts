import type { Tool } from '@modelcontextprotocol/client';
import { isStdioServer, type McpServerConfig } from '../domain/flow.js';
import { silentLogger, type Logger } from '../log/logger.js';
import type { ToolDescriptor } from '../domain/tool.js';
import { toDescriptor, withIcon } from './descriptor.js';
import { connectFailure, unauthorizedError, type FailureContext } from './connect-failure.js';
import {
  connectError,
  describeError,
  isConnectionLoss,
  isStreamableRefusal,
  isSessionForgotten,
  isUnauthorized,
  McpError,
} from './errors.js';
import { newClient, readStderr, serveRoots, trackSends } from './session-setup.js';
import { adoptLegacyAuthorizationServer } from './legacy-discovery.js';
import { askable, serveElicitation, type ElicitingCall } from './elicitation.js';
import { callWithInput, randomRequestIds, type InputCallResult } from './input-required.js';
import { callAsTask, offersToolTasks } from './task-call.js';
import { serveSampling, whileInFlight, type SampleHandler } from './sampling.js';
import { createTransport, type TransportHandle } from './transport.js';
import { ToolListWatch } from './tool-list-watch.js';
import { listServerTools } from './tool-listing.js';
import { disposeSession, type Session } from './session.js';
import { FileCredentialStore, type McpCredentialStore } from './token-store.js';
import type {
  McpTaskState,
  McpCallOptions,
  McpCallResult,
  McpClientUse,
  McpConnection,
  McpListOptions,
  McpProtocol,
} from './types.js';
import { logLevelMeta, serveLogging, setLogLevel, type LogSink } from './server-log.js';

export { CLIENT_INFO } from './client-info.js';
export { toDescriptor } from './descriptor.js';

/** Default time allowed to start a server and finish the MCP handshake. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

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
  /** Where OAuth credentials are kept (default: `FileCredentialStore.fromEnv(env)`). */
  credentials?: McpCredentialStore;
  /**
   * Makes the transport of each session instead of the config's stdio or HTTP one: an in-process
   * server in tests (test/helpers/in-memory-mcp.ts). Called once per (re)connection.
   */
  transport?: () => TransportHandle;
  /** The environment stdio servers inherit and `${NAME}` references read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
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
  /** The server answered Streamable HTTP's first POST 4xx and speaks HTTP+SSE (2024-11-05): used from then on. */
  private legacySse = false;
  private readonly stderrTail: string[] = [];
  private readonly toolListeners = new Set<(tools: ToolDescriptor[]) => void>();
  /** Calls in flight that the server may ask the person about (elicitation). */
  private readonly eliciting = new Set<ElicitingCall>();
  /** Calls in flight whose node's model may answer the server's sampling requests. */
  private readonly sampling = new Set<SampleHandler>();
  /** Calls in flight that the server's log messages are told to (docs/mcp.md, "Server log messages"). */
  private readonly logging = new Set<LogSink>();
  /** Each tool's input schema as last listed: the SDK mirrors its `x-mcp-header` arguments into headers. */
  private inputSchemas = new Map<string, Tool['inputSchema']>();

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
      const tools = await listServerTools(session.client, {
        timeout: options.timeoutMs ?? this.connectTimeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        headersApply: !isStdioServer(this.options.config),
        excluded: (tool, reason) =>
          this.logger.warn('MCP tool left out: invalid x-mcp-header', {
            server: this.serverId,
            tool,
            reason,
          }),
      });
      this.inputSchemas = new Map(tools.map((tool) => [tool.name, tool.inputSchema]));
      return tools.map((tool) => toDescriptor(this.serverId, tool, this.options.config));
    } catch (error) {
      this.noteFailure(session, error);
      throw isUnauthorized(error) ? this.unauthorized(session.handle, error) : error;
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
      if (isUnauthorized(error)) throw this.unauthorized(session.handle, error);
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

  async readResource(uri: string, options: McpListOptions = {}): Promise<McpCallResult['content']> {
    const read = await this.request((client, opts) => client.readResource({ uri }, opts), options);
    return read.contents.map((resource) => ({ type: 'resource', resource }));
  }

  async request<T>(use: McpClientUse<T>, options: McpListOptions = {}): Promise<T> {
    const session = await this.ready(options.signal);
    try {
      return await use(session.client, {
        timeout: options.timeoutMs ?? this.connectTimeoutMs,
        signal: options.signal,
      });
    } catch (error) {
      this.noteFailure(session, error);
      throw error;
    }
  }

  protocol(): McpProtocol | null {
    const client = this.session?.alive ? this.session.client : null;
    const version = client?.getNegotiatedProtocolVersion();
    const era = client?.getProtocolEra();
    return version && era ? withIcon({ version, era }, client?.getServerVersion()?.icons) : null;
  }

  onToolsChanged(listener: (tools: ToolDescriptor[]) => void): () => void {
    this.toolListeners.add(listener);
    return () => this.toolListeners.delete(listener);
  }

  toolsSettled(): Promise<void> {
    return this.session?.tools.settled() ?? Promise.resolve();
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
    const meta = { ...logLevelMeta(session.client, this.options.config), ...options.meta };
    const params = {
      name: remoteName,
      arguments: { ...args },
      ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
    };
    if (options.asTask && !offersToolTasks(session.client))
      return { content: [], isError: false, noTasks: true };
    // Only the input schema: given an output schema too, the SDK would validate the result itself.
    const inputSchema = this.inputSchemas.get(remoteName);
    const toolDefinition = inputSchema ? { toolDefinition: { name: remoteName, inputSchema } } : {};
    let working: McpTaskState | undefined;
    const config = this.options.config;
    const call = async (signal: AbortSignal | undefined): Promise<InputCallResult> => {
      const opts = { ...options, signal };
      if (!options.asTask) return callWithInput(session.client, params, opts, config, toolDefinition);
      const tasked = await callAsTask(session.client, params, opts);
      if (tasked.working) working = tasked.working;
      return { result: tasked.result ?? { content: [] } };
    };
    const answered = await whileInFlight(this.logging, options.onLog, () =>
      whileInFlight(this.sampling, options.onSample, () =>
        askable(this.eliciting, options.onElicit, options.signal, call, options.onHold),
      ),
    );
    const outcome = answered.asked ? answered : answered.result;
    if (working) return { content: [], isError: false, working };
    if (outcome.asked) return { content: [], isError: false, elicitation: outcome.asked };
    const result = outcome.result;
    return {
      content: Array.isArray(result.content) ? result.content : [],
      structuredContent: result.structuredContent,
      isError: result.isError === true,
    };
  }

  /** True when an HTTP server refused a request of this session because it forgot the session. */
  private sessionExpired(session: Session, error: unknown): boolean {
    return !this.closed && session.handle.sessionId() !== undefined && isSessionForgotten(error);
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

  private async connect(signal?: AbortSignal, legacyTried = false): Promise<Session> {
    let handle: TransportHandle;
    const env = this.options.env ?? process.env;
    const auth = {
      tenant: this.options.tenant ?? null,
      store: this.options.credentials ?? FileCredentialStore.fromEnv(env),
    };
    try {
      handle =
        this.options.transport?.() ??
        createTransport(this.options.config, this.options.baseDir, auth, env, this.legacySse);
    } catch (error) {
      if (!(error instanceof McpError && error.code === 'MISSING_ENV')) throw error;
      throw connectError(this.serverId, `cannot start MCP server ${this.serverId}: ${error.message}`, error);
    }
    readStderr(handle, this.stderrTail, (line) =>
      this.logger.debug('MCP stderr', { server: this.serverId, line }),
    );
    const config = this.options.config;
    const client = newClient(config);
    randomRequestIds(client);
    const tools = new ToolListWatch(() => this.relistTools());
    client.setNotificationHandler('notifications/tools/list_changed', () => tools.notified());
    serveRoots(client, config);
    serveElicitation(client, this.serverId, () => [...this.eliciting], this.logger, config);
    serveSampling(client, this.serverId, config, () => [...this.sampling], this.logger);
    serveLogging(client, this.serverId, () => [...this.logging], this.logger);
    const sends = trackSends(handle.transport);
    const session: Session = { client, handle, sends, tools, pid: null, alive: false, ended: false };
    client.onerror = (error) =>
      this.logger.debug('MCP transport error', { server: this.serverId, error: describeError(error) });
    client.onclose = () => this.onClosed(session);
    try {
      await client.connect(handle.transport, { timeout: this.connectTimeoutMs, signal });
    } catch (error) {
      await this.dispose(session, 'connect failed');
      // An older (2025-03-26) server's authorization server: once adopted, connected to again.
      if (!legacyTried && (await adoptLegacyAuthorizationServer(config, error, auth).catch(() => false)))
        return this.connect(signal, true);
      // The backwards-compatibility rule of MCP: a 400, 404 or 405 to the first POST means an older
      // server; the HTTP+SSE transport is tried once on the same URL.
      if (!this.legacySse && !isStdioServer(config) && isStreamableRefusal(error)) {
        this.legacySse = true;
        this.logger.info('MCP server refused Streamable HTTP, trying HTTP+SSE', { server: this.serverId });
        // Not an older server either: the Streamable HTTP refusal is what is reported, and kept trying.
        return this.connect(signal, legacyTried).catch((again: unknown) => {
          if (!(again instanceof McpError && again.code === 'CONNECT')) throw again;
          this.legacySse = false;
          throw this.connectFailure(handle, error);
        });
      }
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
    await setLogLevel(client, this.serverId, config, this.logger, this.connectTimeoutMs);
    this.logger.debug('MCP connected', {
      server: this.serverId,
      endpoint: handle.endpoint,
      pid: session.pid ?? undefined,
      protocolVersion: client.getNegotiatedProtocolVersion(),
      era: client.getProtocolEra(),
    });
    return session;
  }

  /**
   * Why a connect failed, for the run's failure message, which every viewer of the run reads: the
   * server's name, the error and how its process ended — never its stderr (stack traces, paths,
   * whatever the server prints), which goes to this process's log only.
   */
  private connectFailure(handle: TransportHandle, error: unknown): McpError {
    return connectFailure(this.failureContext(), handle, error);
  }

  private unauthorized(handle: TransportHandle, error: unknown): McpError {
    return unauthorizedError(this.failureContext(), handle, error);
  }

  private failureContext(): FailureContext {
    const { serverId, logger, stderrTail } = this;
    return { serverId, config: this.options.config, logger, stderrTail };
  }

  /** The transport closed by itself (server exited, stream ended): the next call reconnects. */
  private onClosed(session: Session): void {
    session.ended = true;
    session.tools.stop();
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

  private dispose(session: Session, why: string): Promise<void> {
    return disposeSession(session, why, this.serverId, this.logger);
  }

  /** The server said its tools changed: lists them again and tells the listeners (a failure is logged). */
  private async relistTools(): Promise<void> {
    try {
      const descriptors = await this.listTools();
      this.logger.info('MCP tool list changed', { server: this.serverId, tools: descriptors.length });
      for (const listener of this.toolListeners) listener(descriptors);
    } catch (error) {
      this.logger.warn('MCP tool list refresh failed', {
        server: this.serverId,
        error: describeError(error),
      });
    }
  }
}
