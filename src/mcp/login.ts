import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  auth as authorize,
  Client,
  StreamableHTTPClientTransport,
  type FetchLike,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../domain/flow.js';
import { CLIENT_INFO } from './client-info.js';
import { expandEnvRefs } from './env-refs.js';
import { McpError } from './errors.js';
import { fetchForServer } from './guarded-fetch.js';
import { adoptLegacyAuthorizationServer } from './legacy-discovery.js';
import { DEFAULT_REDIRECT_PATH, StoredOAuthProvider } from './oauth.js';
import { versionNegotiation } from './session-setup.js';
import type { McpCredentialStore } from './token-store.js';

/** How long `mcp login` waits for the person to come back through the loopback redirect. */
export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

/** Most authorizations one `mcp login` asks the person for (a server moving to another authorization server asks twice). */
const MAX_AUTHORIZATIONS = 3;

/** Options of `loginMcpServer`. */
export interface McpLoginOptions {
  readonly serverId: string;
  readonly config: HttpServerConfig;
  readonly tenant: string | null;
  readonly store: McpCredentialStore;
  /** Shows the person the URL to open (the CLI prints it). */
  readonly showUrl: (url: URL) => void;
  readonly timeoutMs?: number;
}

/** What a login achieved: whether a person had to authorize, and how many tools the server lists now. */
export interface McpLoginResult {
  readonly authorized: boolean;
  readonly tools: number;
}

/**
 * Authorizes the runtime at one HTTP MCP server with `auth` (grant authorization_code) for a tenant
 * (docs/mcp.md, "Authorization"): connects; on a 401 the SDK discovers the authorization server
 * (WWW-Authenticate resource metadata, well-known fallbacks), registers a client when the flow gives
 * none (client id metadata document where supported, else dynamic registration) and builds the
 * authorization URL (PKCE S256, `resource`, `state`); the URL is shown, and the code coming back to
 * the loopback redirect (127.0.0.1, `redirectPort` or any free port) is exchanged for tokens, stored
 * encrypted. Ends by listing the server's tools with them. Throws McpError UNAUTHORIZED when the
 * person declines, the state does not match, or nobody comes back within `timeoutMs`.
 */
export async function loginMcpServer(options: McpLoginOptions): Promise<McpLoginResult> {
  const auth = options.config.auth;
  if (!auth || auth.grant !== 'authorization_code')
    throw new McpError(
      'UNAUTHORIZED',
      `MCP server ${options.serverId} has no \`auth\` with grant authorization_code: nothing to log in to`,
      { serverId: options.serverId },
    );
  const loopback = await listenLoopback(auth.redirectPort ?? 0);
  try {
    const secret = expandEnvRefs(
      auth.clientSecret === undefined ? {} : { clientSecret: auth.clientSecret },
      'auth',
    ).clientSecret;
    const shown: URL[] = [];
    const provider = new StoredOAuthProvider(
      options.config.url,
      auth,
      secret,
      {
        store: options.store,
        tenant: options.tenant,
        redirectUrl: loopback.redirectUrl,
        onAuthorizationUrl: (url) => {
          shown.push(url);
          options.showUrl(url);
        },
      },
      options.config.allowHosts,
    );
    const first = await attempt(options, provider);
    // A token that works for listing may still lack the scope a run's tool call was refused for
    // (403 insufficient_scope): then the person authorizes again, for the union of both.
    const stepUp = first.tools === null ? undefined : provider.missingScope();
    if (first.tools !== null && stepUp === undefined) return { authorized: false, tools: first.tools };
    const serverUrl = new URL(options.config.url);
    const fetchFn = fetchForServer(options.config);
    if (stepUp !== undefined)
      await authorize(provider, { serverUrl, scope: stepUp, forceReauthorization: true, fetchFn });
    let pending = stepUp === undefined ? first.transport : null;
    // The new token may be refused with an authorization URL of another authorization server shown
    // (the server moved to it meanwhile): the person authorizes there too, up to MAX_AUTHORIZATIONS.
    // The same authorization server asking again is a refusal, not a move.
    for (let round = 1; ; round++) {
      const params = await loopback.callback(options.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS);
      const refused = params.get('error');
      if (refused !== null || !provider.stateMatches(params.get('state')))
        throw new McpError(
          'UNAUTHORIZED',
          refused !== null
            ? `authorization at MCP server ${options.serverId} was refused: ${refused}`
            : `authorization at MCP server ${options.serverId} came back with a wrong state`,
          { serverId: options.serverId },
        );
      if (pending) await pending.finishAuth(params);
      else await finishStepUp(provider, serverUrl, stepUp ?? '', params, fetchFn);
      provider.clearRequired();
      const before = shown.length;
      const next = await attempt(options, provider);
      if (next.tools !== null) return { authorized: true, tools: next.tools };
      if (!movedOn(shown, before) || round >= MAX_AUTHORIZATIONS)
        throw new McpError('UNAUTHORIZED', `MCP server ${options.serverId} still refuses the new token`, {
          serverId: options.serverId,
        });
      pending = next.transport;
    }
  } finally {
    await loopback.close();
  }
}

/** True when a URL was shown after the first `before` and its authorization endpoint is another one. */
function movedOn(shown: readonly URL[], before: number): boolean {
  const last = shown.at(-1);
  const previous = shown[before - 1];
  if (shown.length <= before || last === undefined || previous === undefined) return false;
  return last.origin + last.pathname !== previous.origin + previous.pathname;
}

/** Exchanges the code of a step-up authorization for tokens with the wider scope. */
async function finishStepUp(
  provider: StoredOAuthProvider,
  serverUrl: URL,
  scope: string,
  params: URLSearchParams,
  fetchFn: FetchLike,
): Promise<void> {
  const code = params.get('code');
  const iss = params.get('iss') ?? undefined;
  const done =
    code === null
      ? 'REDIRECT'
      : await authorize(provider, {
          serverUrl,
          scope,
          authorizationCode: code,
          fetchFn,
          ...(iss ? { iss } : {}),
        });
  if (done !== 'AUTHORIZED')
    throw new McpError('UNAUTHORIZED', `the authorization at ${serverUrl.href} brought no token`);
}

/**
 * One connection to the server with `provider`, listing its tools: the tool count, or null when a
 * person must authorize first (the provider was then told the authorization URL). Other failures throw.
 */
export async function attempt(
  options: Pick<McpLoginOptions, 'config'>,
  provider: StoredOAuthProvider,
  legacyTried = false,
): Promise<{ tools: number | null; transport: StreamableHTTPClientTransport }> {
  const headers = options.config.headers ? expandEnvRefs(options.config.headers, 'headers') : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(options.config.url), {
    authProvider: provider,
    fetch: fetchForServer(options.config),
    ...(headers ? { requestInit: { headers } } : {}),
  });
  // The revision the runs will speak (a server that speaks only 2026-07-28 refuses `initialize`).
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    versionNegotiation: versionNegotiation(options.config),
  });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    return { tools: tools.length, transport };
  } catch (error) {
    if (UnauthorizedError.isInstance(error)) return { tools: null, transport };
    if (!legacyTried && (await adoptLegacyAuthorizationServer(options.config, error, provider.context)))
      return attempt(options, provider, true);
    throw error;
  } finally {
    await client.close();
  }
}

interface Loopback {
  readonly redirectUrl: string;
  callback(timeoutMs: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** The loopback redirect: answers the browser, hands the callback's query to `callback()`. */
async function listenLoopback(port: number): Promise<Loopback> {
  // Callbacks in the order they came; each `callback()` takes the next one (or waits for it).
  const arrivedEarly: URLSearchParams[] = [];
  let waiting: ((params: URLSearchParams) => void) | null = null;
  const arrived = (params: URLSearchParams) => {
    if (waiting === null) return void arrivedEarly.push(params);
    const take = waiting;
    waiting = null;
    take(params);
  };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== DEFAULT_REDIRECT_PATH) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end('Authorization received; you may close this window.\n');
    arrived(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    redirectUrl: `http://127.0.0.1:${actual}${DEFAULT_REDIRECT_PATH}`,
    async callback(timeoutMs) {
      const early = arrivedEarly.shift();
      if (early) return early;
      const received = new Promise<URLSearchParams>((resolve) => (waiting = resolve));
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new McpError('UNAUTHORIZED', `no authorization came back within ${timeoutMs} ms`)),
          timeoutMs,
        );
      });
      try {
        return await Promise.race([received, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
