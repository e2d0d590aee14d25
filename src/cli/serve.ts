import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { createStderrLogger, type Logger } from '../log/logger.js';
import { createRuntime, type Runtime } from '../runtime/create.js';
import { startRecoverer } from '../runtime/recoverer.js';
import { expiryPollMs, startExpiryTimer } from '../runtime/approval-expiry.js';
import { createServer, type ApiServer, type ServerOptions } from '../server/app.js';
import { mountConsole } from '../server/console.js';
import { FlowRegistry, type FlowLimits } from '../server/flows.js';
import { watchFlows, type FlowWatch } from '../server/flow-watch.js';
import { isLoopback, type Listening } from '../server/listen.js';
import { ServerConfigError } from '../server/config-error.js';
import { hookedEnvKey } from '../server/request-policy.js';
import { loadTokenFile, tokensFromEnv, type TokenEntry } from '../server/tokens.js';
import { resolveDbUrl } from '../store/open.js';
import { UsageError, flag, parse, str, type Parsed } from './args.js';
import type { Command } from './commands.js';
import { cliDb } from './context.js';
import { loadExtensions, runtimeExtensions, toolNames } from './extensions.js';
import { SERVE_OPTIONS } from './serve-usage.js';
import { webhookOptions } from './serve-webhooks.js';

const DEFAULT_PORT = 8080;

/** How `runServe` talks to the world (injected by tests). */
export interface ServeIo {
  /** Receives the URL line (stdout). */
  out: (text: string) => void;
  /** Resolves when the server should shut down (default: the first SIGINT or SIGTERM). */
  stopped: (logger: Logger) => Promise<void>;
  logger?: Logger;
}

/** The `serve` command of the CLI. */
export const serve: Command = (argv) =>
  runServe(argv, { out: (text) => void process.stdout.write(text), stopped: shutdownSignal });

/**
 * `serve` with the options of SERVE_OPTIONS (usage in serve-usage.ts; docs/cli.md; docs/api.md): the HTTP API
 * until SIGINT/SIGTERM, then a graceful shutdown. Prints the URL on stdout, the log on stderr.
 * Exits 2 for bad flags, an unusable token file or flows folder, an address in use, or a
 * non-loopback host without tokens.
 */
export async function runServe(argv: string[], io: ServeIo): Promise<number> {
  const parsed = parse('serve', argv, SERVE_OPTIONS, { min: 0, max: 0, names: '' });
  const host = str(parsed, 'host') ?? '127.0.0.1';
  const port = portOf(str(parsed, 'port'));
  const tokens = await readTokens(str(parsed, 'tokens'));
  const extensions = await loadExtensions(parsed);
  const logger = io.logger ?? createStderrLogger();
  if (tokens === null) {
    if (!isLoopback(host)) {
      throw new UsageError(
        `serve: refusing --host ${host} without tokens; give --tokens FILE (or AGENT_RUNTIME_TOKENS) or listen on 127.0.0.1`,
      );
    }
    logger.warn(
      'SERVER no tokens configured: listening on loopback only, WITHOUT authentication (every caller is admin)',
    );
  }
  const security = securityOptions(parsed);
  const notifications = await webhookOptions(parsed);
  const expiryMs = expiryInterval();
  const flowsDir = str(parsed, 'flows');
  const flows = new FlowRegistry({
    dir: flowsDir ? resolve(flowsDir) : null,
    logger,
    knownTools: toolNames(extensions),
    limits: flowLimits(parsed),
  });
  await loadFlows(flows, flowsDir);
  const watching = watchOption(parsed, flows, logger);
  const runtime = createRuntime({
    store: resolveDbUrl({ db: cliDb(parsed) }),
    storeOptions: str(parsed, 'durability') === 'strict' ? { durability: 'strict' } : {},
    env: process.env,
    cwd: process.cwd(),
    logger,
    ...runtimeExtensions(extensions),
    ...mcpLimits(parsed),
    // A run needing a person's authorization at an MCP server waits for the console's Connect.
    mcpAuthorization: 'suspend',
  });
  const server = createServer({ runtime, flows, tokens, logger, ...security, ...notifications });
  mountConsole(server.app);
  const listening = await listenOrExplain(server, runtime, host, port);
  io.out(`${listening.url}\n`);
  const recoverer = startRecoverer(runtime, { intervalMs: runtime.leaseLength, logger });
  const expiry = startExpiryTimer(runtime, { intervalMs: expiryMs, logger });
  // Runs waiting for an MCP task go on once it ended (docs/mcp.md, "Tools that run as tasks").
  const tasks = runtime.startTaskPoller({ logger });
  logger.info('SERVER listening', {
    url: listening.url,
    auth: tokens ? `${tokens.length} tokens` : 'none',
    flows: flows
      .list()
      .map((f) => f.flowId)
      .join(','),
  });
  await io.stopped(logger);
  watching?.close();
  recoverer.stop();
  expiry.stop();
  tasks.stop();
  // The runs being driven start nothing new; a write in flight is waited for and recorded first. They
  // stay `running` with their steps persisted, for a later takeover (another serve, a worker, resume).
  const stopping = runtime.stopDriving();
  const left = await server.close();
  await stopping;
  await runtime.close();
  logger.info('SERVER stopped', { runsLeftRunning: left });
  return 0;
}

/** env AGENT_RUNTIME_EXPIRY_POLL_MS (docs/notifications.md): a usage error when it is not a number ≥ 50. */
function expiryInterval(): number {
  try {
    return expiryPollMs(process.env);
  } catch (error) {
    throw new UsageError(`serve: ${(error as Error).message}`, { cause: error });
  }
}

/** Listens, or closes the runtime and explains why not (a usage error for a busy or unusable address). */
async function listenOrExplain(
  server: ApiServer,
  runtime: Runtime,
  host: string,
  port: number,
): Promise<Listening> {
  try {
    return await server.listen({ host, port });
  } catch (error) {
    await runtime.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EADDRNOTAVAIL' || code === 'EACCES')
      throw new UsageError(`serve: cannot listen on ${host}:${port}: ${code}`, { cause: error });
    throw error;
  }
}

/**
 * The request policy flags: `--scripted-models DIR` (must be a folder), `--allow-stdio COMMAND`,
 * `--allow-mcp-host HOST`, `--allow-env VAR`, `--allow-stdio-env NAME` (repeatable), `--max-streams-per-token N`.
 */
/** `--public-url URL`: an absolute http(s) URL without query or fragment (UsageError otherwise). */
function publicUrl(given: string | undefined): Pick<ServerOptions, 'publicUrl'> {
  if (given === undefined) return {};
  const url = URL.canParse(given) ? new URL(given) : null;
  if (!url || !['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '')
    throw new UsageError(
      `serve: --public-url ${JSON.stringify(given)} is not an http(s) URL without query or fragment (e.g. https://agents.example.com)`,
    );
  return { publicUrl: url.href.replace(/\/+$/, '') };
}

function securityOptions(parsed: Parsed): Partial<ServerOptions> {
  const scripted = str(parsed, 'scripted-models');
  if (scripted !== undefined && !isFolder(resolve(scripted)))
    throw new UsageError(`serve: --scripted-models ${scripted} is not a folder`);
  const streams = positive(parsed, 'max-streams-per-token', 6);
  return {
    ...(scripted !== undefined ? { scriptedModels: resolve(scripted) } : {}),
    allowStdio: many(parsed, 'allow-stdio'),
    allowMcpHosts: many(parsed, 'allow-mcp-host'),
    allowEnv: envNames(many(parsed, 'allow-env'), 'allow-env'),
    allowStdioEnv: stdioEnvNames(many(parsed, 'allow-stdio-env')),
    ...(streams !== undefined ? { maxStreamsPerToken: streams } : {}),
    ...publicUrl(str(parsed, 'public-url')),
  };
}

/** `--max-flows N` and `--max-flow-bytes N`: what uploaded flows one tenant may hold (defaults in flows.ts). */
function flowLimits(parsed: Parsed): Partial<FlowLimits> {
  const flows = positive(parsed, 'max-flows', 7);
  const bytes = positive(parsed, 'max-flow-bytes', 12);
  return {
    ...(flows !== undefined ? { maxFlows: flows } : {}),
    ...(bytes !== undefined ? { maxBytes: bytes } : {}),
  };
}

/**
 * `--max-mcp-connections N` (per tenant) and `--mcp-idle-ms MS` (0: never close idle ones): the bounds of
 * MCP connections (defaults in src/mcp/pool.ts; docs/mcp.md).
 */
function mcpLimits(parsed: Parsed): { maxMcpConnections?: number; mcpIdleMs?: number } {
  const max = positive(parsed, 'max-mcp-connections', 6);
  const idle = str(parsed, 'mcp-idle-ms');
  if (idle !== undefined && !/^(0|[1-9]\d{0,9})$/.test(idle))
    throw new UsageError(
      `serve: --mcp-idle-ms must be a number of milliseconds, not ${JSON.stringify(idle)}`,
    );
  return {
    ...(max !== undefined ? { maxMcpConnections: max } : {}),
    ...(idle !== undefined ? { mcpIdleMs: Number(idle) } : {}),
  };
}

/** A whole number ≥ 1 of at most `digits` digits given as `--name`, or undefined when not given. */
function positive(parsed: Parsed, name: string, digits: number): number | undefined {
  const raw = str(parsed, name);
  if (raw === undefined) return undefined;
  if (!new RegExp(`^[1-9]\\d{0,${digits - 1}}$`).test(raw))
    throw new UsageError(`serve: --${name} must be a positive number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** `--allow-env` / `--allow-stdio-env` values: variable names as `${NAME}` references spell them. */
function envNames(names: string[], flag: string): string[] {
  for (const name of names)
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new UsageError(
        `serve: --${flag} takes a variable name (letters, digits, _), not ${JSON.stringify(name)}`,
      );
  return names;
}

/** `--allow-stdio-env` values: names, none of the variables known to make a program load other code. */
function stdioEnvNames(names: string[]): string[] {
  for (const name of envNames(names, 'allow-stdio-env'))
    if (hookedEnvKey(name))
      throw new UsageError(
        `serve: --allow-stdio-env ${name}: that variable can make a program load other code or trust other hosts; it cannot be allowed for flows sent over HTTP`,
      );
  return names;
}

function many(parsed: Parsed, name: string): string[] {
  const value: unknown = parsed.values[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

function portOf(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535)
    throw new UsageError(`serve: --port must be a number from 0 to 65535, not ${JSON.stringify(raw)}`);
  return port;
}

async function readTokens(file: string | undefined): Promise<TokenEntry[] | null> {
  try {
    return file !== undefined ? await loadTokenFile(resolve(file)) : tokensFromEnv();
  } catch (error) {
    // Every configuration error of the server is the user's to fix: a usage error (exit 2).
    if (error instanceof ServerConfigError) throw new UsageError(`serve: ${error.message}`, { cause: error });
    throw error;
  }
}

async function loadFlows(flows: FlowRegistry, dir: string | undefined): Promise<void> {
  try {
    await flows.loadDir();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new UsageError(`serve: --flows ${dir ?? ''} is not a folder`, { cause: error });
    throw error;
  }
}

/** Resolves on the first SIGINT or SIGTERM; a second one exits at once. */
function shutdownSignal(logger: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      logger.info(
        'SERVER shutting down: no new requests; waiting for runs being driven to stop at a persisted step',
        { signal },
      );
      process.once('SIGINT', () => process.exit(130));
      process.once('SIGTERM', () => process.exit(143));
      resolve();
    };
    process.once('SIGINT', first);
    process.once('SIGTERM', first);
  });
}

/** `--watch`: reloads changed flow files of `--flows DIR` (a usage error without `--flows`). */
function watchOption(parsed: Parsed, flows: FlowRegistry, logger: Logger): FlowWatch | null {
  if (!flag(parsed, 'watch')) return null;
  if (str(parsed, 'flows') === undefined) throw new UsageError('serve: --watch needs --flows DIR');
  return watchFlows(flows, flows.baseDir, logger);
}
