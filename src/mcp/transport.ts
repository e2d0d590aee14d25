import type { ChildProcess } from 'node:child_process';
import { isAbsolute, resolve } from 'node:path';
import {
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Transport,
} from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  isStdioServer,
  type HttpServerConfig,
  type McpServerConfig,
  type StdioServerConfig,
} from '../domain/flow.js';
import { expandEnvRefs } from './env-refs.js';
import { fetchForServer } from './guarded-fetch.js';
import { authProviderFor, type McpAuthContext } from './oauth.js';

/** The spawn parameters of a stdio server, after the flow's defaults are applied. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * How a stdio server is started (docs/flows.md): `env` is added to the inherited environment — the
 * runtime's whole environment, or with `inheritEnv: false` only the MCP SDK's minimal one (HOME,
 * LOGNAME, PATH, SHELL, TERM, USER; flows sent over HTTP always run so); the working directory is
 * `cwd` resolved against the flow's folder, or the flow's folder itself; `node` means the Node binary
 * running the runtime (`process.execPath`), so the pinned Node runs the server too. `${NAME}` in an
 * `env` value is replaced by the process's variable here, at start, and nowhere else.
 */
export function stdioLaunch(
  config: StdioServerConfig,
  baseDir: string,
  vars: NodeJS.ProcessEnv = process.env,
): StdioLaunch {
  const env: Record<string, string> = {};
  const inherited = config.inheritEnv === false ? getDefaultEnvironment() : vars;
  for (const [key, value] of Object.entries(inherited)) if (value !== undefined) env[key] = value;
  Object.assign(env, expandEnvRefs(config.env, 'env', vars));
  const cwd =
    config.cwd === undefined ? baseDir : isAbsolute(config.cwd) ? config.cwd : resolve(baseDir, config.cwd);
  const command = config.command === 'node' ? process.execPath : config.command;
  return { command, args: [...config.args], env, cwd };
}

/** A fresh transport and a short description of the endpoint (for logs and errors). */
export interface TransportHandle {
  transport: Transport;
  endpoint: string;
  /** The server's stderr (stdio only), to be read by the connection. */
  stderr: NodeJS.ReadableStream | null;
  /** The pid once started (stdio only). */
  pid(): number | null;
  /** How the server's process ended, once it has (stdio only; null while it runs or for HTTP). */
  exit(): ProcessExit | null;
  /** The session id the server assigned (Streamable HTTP with sessions only). */
  sessionId(): string | undefined;
  /** Ends the server-side session (HTTP DELETE; stdio and session-less servers: nothing); rejects when the DELETE fails. */
  terminate(): Promise<void>;
}

/** How a stdio server's process ended: its exit code, or the signal that killed it. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * Builds an unstarted transport for a server entry of a flow; an HTTP server with `auth` gets its
 * OAuth provider (`auth` context: whose credentials, where kept). `legacySse`: the HTTP+SSE transport
 * of the 2024-11-05 revision instead of Streamable HTTP (the fallback, see the connection).
 */
export function createTransport(
  config: McpServerConfig,
  baseDir: string,
  auth?: McpAuthContext,
  env: NodeJS.ProcessEnv = process.env,
  legacySse = false,
): TransportHandle {
  if (isStdioServer(config)) return stdioTransport(config, baseDir, env);
  return legacySse ? sseTransport(config, env, auth) : httpTransport(config, env, auth);
}

/**
 * The HTTP+SSE transport of MCP 2024-11-05 (GET the URL for an event stream whose `endpoint` event
 * names where to POST). The SDK keeps it, deprecated, for exactly this: servers not yet on
 * Streamable HTTP. No session to end.
 */
function sseTransport(
  config: HttpServerConfig,
  env: NodeJS.ProcessEnv,
  auth?: McpAuthContext,
): TransportHandle {
  const authProvider = auth ? authProviderFor(config, auth, env) : null;
  const headers = config.headers ? expandEnvRefs(config.headers, 'headers', env) : undefined;
  // Deprecated in the SDK, kept there for servers still on the 2024-11-05 transport.
  const transport = new SSEClientTransport(new URL(config.url), {
    fetch: fetchForServer(config),
    ...(headers ? { requestInit: { headers } } : {}),
    ...(authProvider ? { authProvider } : {}),
  });
  return {
    transport,
    endpoint: `${config.url} (HTTP+SSE)`,
    stderr: null,
    pid: () => null,
    exit: () => null,
    sessionId: () => undefined,
    terminate: () => Promise.resolve(),
  };
}

function stdioTransport(config: StdioServerConfig, baseDir: string, env: NodeJS.ProcessEnv): TransportHandle {
  const launch = stdioLaunch(config, baseDir, env);
  const transport = new StdioClientTransport({ ...launch, stderr: 'pipe' });
  const stderr = transport.stderr as NodeJS.ReadableStream | null;
  let exit: ProcessExit | null = null;
  // The SDK does not expose how its child ended; its (TypeScript-private) `_process` exists from
  // `start()` until the child closes, so the exit listener is attached right after `start()`.
  const start = transport.start.bind(transport);
  transport.start = async () => {
    await start();
    const child = (transport as unknown as { _process?: ChildProcess })._process;
    child?.once('exit', (code, signal) => (exit = { code, signal }));
  };
  return {
    transport,
    endpoint: [config.command, ...config.args].join(' '),
    stderr,
    pid: () => transport.pid,
    exit: () => exit,
    sessionId: () => undefined,
    terminate: () => Promise.resolve(),
  };
}

function httpTransport(
  config: HttpServerConfig,
  env: NodeJS.ProcessEnv,
  auth?: McpAuthContext,
): TransportHandle {
  const authProvider = auth ? authProviderFor(config, auth, env) : null;
  const transport = new StreamableHTTPClientTransport(new URL(config.url), {
    fetch: fetchForServer(config),
    requestInit: config.headers ? { headers: expandEnvRefs(config.headers, 'headers', env) } : undefined,
    ...(authProvider ? { authProvider } : {}),
  });
  return {
    transport,
    endpoint: config.url,
    stderr: null,
    pid: () => null,
    exit: () => null,
    sessionId: () => transport.sessionId,
    terminate: () => transport.terminateSession(),
  };
}
