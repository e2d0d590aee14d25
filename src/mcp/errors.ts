import { AgentRuntimeError } from '../domain/agent-runtime-error.js';
import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client';

/** What went wrong with the flow's MCP servers (each is misconfiguration or a server not there, not a tool result). */
export type McpErrorCode =
  /**
   * A connection cannot be made (process failed to start, nothing listens, handshake timed out or
   * failed) or is already closed (`serverId`). Always means "unreachable": a call it fails is a
   * TOOL_UNREACHABLE observation. The original error is the `cause`.
   */
  | 'CONNECT'
  /**
   * The flow's MCP tools cannot be named unambiguously (`conflicts`, `unknownAliases`): the run does
   * not start (a FlowError by the time it reaches the caller).
   */
  | 'CATALOG'
  /** A `${NAME}` reference to a variable the process environment lacks (`variable`); a CONNECT by the time a call sees it. */
  | 'MISSING_ENV'
  /**
   * The server (`serverId`) answered HTTP 401: it needs authorization the runtime does not have (no
   * token, or one that was refused). Fixed by `agent-runtime mcp login` (docs/mcp.md), not by waiting.
   */
  | 'UNAUTHORIZED'
  /**
   * The server (`serverId`) speaks no protocol revision this client knows, or answered the handshake
   * in a way no retry changes: a permanent failure, never reported as an outage.
   */
  | 'INCOMPATIBLE';

/** One model-facing name claimed by several server tools. */
export interface ToolNameConflict {
  readonly name: string;
  /** The claiming tools as `server.tool`. */
  readonly sources: readonly string[];
}

/** The `name` by code: the class each code had before codes. */
const NAMES: Record<McpErrorCode, string> = {
  CONNECT: 'McpConnectError',
  CATALOG: 'ToolCatalogError',
  MISSING_ENV: 'MissingEnvError',
  UNAUTHORIZED: 'McpUnauthorizedError',
  INCOMPATIBLE: 'McpIncompatibleError',
};

/** What an McpError carries besides its code and message. */
export interface McpErrorOptions extends ErrorOptions {
  /** CONNECT: the server that cannot be reached. */
  readonly serverId?: string;
  /** MISSING_ENV: the variable that is not set (never its value). */
  readonly variable?: string;
  /** CATALOG: the names claimed by several tools. */
  readonly conflicts?: readonly ToolNameConflict[];
  /** CATALOG: aliases naming a `server.tool` that no server exports. */
  readonly unknownAliases?: readonly string[];
}

/** An MCP server that cannot be reached or a tool catalog that cannot be built, with the reason as `code`. */
export class McpError extends AgentRuntimeError {
  declare readonly code: McpErrorCode;
  readonly serverId?: string;
  readonly variable?: string;
  readonly conflicts: readonly ToolNameConflict[];
  readonly unknownAliases: readonly string[];

  constructor(code: McpErrorCode, message: string, options: McpErrorOptions = {}) {
    super(code, message, options);
    this.name = NAMES[code];
    if (options.serverId !== undefined) this.serverId = options.serverId;
    if (options.variable !== undefined) this.variable = options.variable;
    this.conflicts = options.conflicts ?? [];
    this.unknownAliases = options.unknownAliases ?? [];
  }
}

/** CONNECT for `serverId`; the message says why (for stdio, never the server's stderr). */
export function connectError(serverId: string, message: string, cause?: unknown): McpError {
  return new McpError('CONNECT', message, { serverId, ...(cause === undefined ? {} : { cause }) });
}

/** Node / undici error codes that mean the other side cannot be reached or went away. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'ENOENT',
  'EACCES',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** HTTP statuses of an MCP endpoint that mean the server (or its session) is not there. */
const UNREACHABLE_STATUSES = new Set([404, 502, 503, 504]);

/** How one error (not its causes) looks from the transport's point of view. */
export type TransportFailure =
  | { kind: 'timeout' }
  | { kind: 'unreachable' }
  | { kind: 'io' }
  | { kind: 'rpc'; rpcCode: number }
  | { kind: 'unknown' };

/** The system error code (`ECONNREFUSED`, `UND_ERR_SOCKET`, …) of an error, if it has a string one. */
export function errnoCode(error: unknown): string | null {
  if (typeof error !== 'object' || error === null || !('code' in error)) return null;
  return typeof error.code === 'string' ? error.code : null;
}

/**
 * Recognises one error, without looking at its causes: SDK request timeouts, closed connections, JSON-RPC
 * errors from the server, socket-level failures, HTTP failures.
 */
export function recognise(error: unknown): TransportFailure {
  if (error instanceof McpError && (error.code === 'CONNECT' || error.code === 'UNAUTHORIZED'))
    return { kind: 'unreachable' };
  if (error instanceof McpError && error.code === 'INCOMPATIBLE') return { kind: 'io' };
  if (error instanceof ProtocolError) return { kind: 'rpc', rpcCode: error.code };
  if (error instanceof SdkHttpError)
    return UNREACHABLE_STATUSES.has(error.status) ? { kind: 'unreachable' } : { kind: 'io' };
  if (error instanceof SdkError) return recogniseSdk(error.code);
  if (!(error instanceof Error)) return { kind: 'unknown' };
  if (error.name === 'TimeoutError') return { kind: 'timeout' };
  const code = errnoCode(error);
  if (code !== null && UNREACHABLE_CODES.has(code)) return { kind: 'unreachable' };
  if (code !== null && /^(E[A-Z]+|UND_ERR_[A-Z_]+|ERR_STREAM_[A-Z_]+)$/.test(code)) return { kind: 'io' };
  if (error.message === 'Not connected') return { kind: 'unreachable' };
  if (error.name === 'TypeError' && error.message === 'fetch failed') return { kind: 'io' };
  return { kind: 'unknown' };
}

function recogniseSdk(code: SdkErrorCode): TransportFailure {
  switch (code) {
    case SdkErrorCode.RequestTimeout:
      return { kind: 'timeout' };
    case SdkErrorCode.ConnectionClosed:
    case SdkErrorCode.NotConnected:
      return { kind: 'unreachable' };
    default:
      return { kind: 'io' };
  }
}

/** The error and its causes (and AggregateError members), outermost first, at most `limit` deep. */
export function causeChain(error: unknown, limit = 16): unknown[] {
  const chain: unknown[] = [];
  const visit = (e: unknown, depth: number): void => {
    if (e === null || e === undefined || depth > limit || chain.includes(e)) return;
    chain.push(e);
    if (e instanceof AggregateError) for (const inner of e.errors) visit(inner, depth + 1);
    if (typeof e === 'object' && 'cause' in e) visit(e.cause, depth + 1);
  };
  visit(error, 0);
  return chain;
}

/** True when an error (or one of its causes) means the server went away, so the connection must be renewed. */
export function isConnectionLoss(error: unknown): boolean {
  return causeChain(error).some((e) => recognise(e).kind === 'unreachable');
}

/** A one-line description of an error for reasons and logs (message only, no stack), at most `max` chars. */
export function describeError(error: unknown, max = 300): string {
  const text = error instanceof Error ? error.message || error.name : String(error);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The run failure reason of a flow whose tools cannot be listed (docs/mcp.md, "Failure mapping"). */
export type CatalogFailureReason = 'TOOLS_UNAVAILABLE' | 'TOOLS_UNAUTHORIZED' | 'TOOLS_INCOMPATIBLE';

/**
 * Why a flow's tools could not be listed, as a run failure reason: TOOLS_UNAUTHORIZED when a server
 * needs authorization, TOOLS_INCOMPATIBLE for a permanent protocol failure, else TOOLS_UNAVAILABLE
 * (an outage, worth retrying).
 */
export function catalogFailureReason(error: unknown): CatalogFailureReason {
  if (isUnauthorized(error)) return 'TOOLS_UNAUTHORIZED';
  for (const e of causeChain(error)) {
    if (!(e instanceof McpError)) continue;
    if (e.code === 'UNAUTHORIZED') return 'TOOLS_UNAUTHORIZED';
    if (e.code === 'INCOMPATIBLE') return 'TOOLS_INCOMPATIBLE';
  }
  return 'TOOLS_UNAVAILABLE';
}

/** True for an HTTP 401 from the server (its transport's error or the SDK's UnauthorizedError), causes included. */
export function isUnauthorized(error: unknown): boolean {
  return causeChain(error).some(
    (e) => (e instanceof SdkHttpError && e.status === 401) || UnauthorizedError.isInstance(e),
  );
}

/**
 * True when a Streamable HTTP server refused the first POST with 400, 404 or 405: what an older
 * (2024-11-05, HTTP+SSE) server answers, so the client falls back to that transport.
 */
export function isStreamableRefusal(error: unknown): boolean {
  return causeChain(error).some((e) => e instanceof SdkHttpError && [400, 404, 405].includes(e.status));
}

/**
 * True when an HTTP server refused a request because it no longer knows its session: 404 (the spec),
 * or 400 naming the session (what the SDK's example servers, server-everything among them, answer).
 * Either way the request was not run.
 */
export function isSessionForgotten(error: unknown): boolean {
  return causeChain(error).some(
    (e) =>
      e instanceof SdkHttpError && (e.status === 404 || (e.status === 400 && /session/i.test(e.message))),
  );
}

/** True for a handshake refused for good: the server's protocol revision is one this client does not speak. */
export function isIncompatible(error: unknown): boolean {
  return causeChain(error).some(
    (e) => e instanceof Error && /protocol version is not supported/i.test(e.message),
  );
}

/**
 * The id of the server that refused for want of authorization: the `serverId` of the first McpError
 * UNAUTHORIZED in the chain, or undefined when there is none (or it names no server).
 */
export function unauthorizedServer(error: unknown): string | undefined {
  for (const e of causeChain(error))
    if (e instanceof McpError && e.code === 'UNAUTHORIZED' && e.serverId !== undefined) return e.serverId;
  return undefined;
}
