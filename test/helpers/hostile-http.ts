import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a hostile server received. */
export interface Hit {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** Answers one request; `body` is the request's whole body. */
export type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

/**
 * A hostile HTTP server on a loopback port (a malicious MCP or authorization server): answers each path
 * with the route set for it (404 otherwise) and records every request it receives, so that a test can
 * tell what reached it.
 */
export interface HostileServer {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  /** `127.0.0.1:PORT`, as `--allow-mcp-host` takes it. */
  readonly host: string;
  readonly hits: Hit[];
  /** Sets the answer of one path (no query). */
  route(path: string, route: Route): void;
  close(): Promise<void>;
}

/** Starts a hostile server; resolves once it listens. */
export async function startHostile(): Promise<HostileServer> {
  const routes = new Map<string, Route>();
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const body = Buffer.concat(chunks).toString('utf8');
      hits.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
      const route = routes.get(path);
      if (!route) return void res.writeHead(404).end();
      void Promise.resolve(route(req, res, body)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    hits,
    route: (path, route) => void routes.set(path, route),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * Makes `mcp` an MCP endpoint at `/mcp` that refuses every request with 401 and names its protected
 * resource metadata (at `/.well-known/oauth-protected-resource/mcp`), which lists `authorizationServers`.
 */
export function protectedMcp(mcp: HostileServer, authorizationServers: readonly string[]): void {
  const metadata = `${mcp.url}/.well-known/oauth-protected-resource/mcp`;
  mcp.route('/mcp', (_req, res) =>
    json(
      res,
      401,
      { error: 'unauthorized' },
      { 'www-authenticate': `Bearer resource_metadata="${metadata}"` },
    ),
  );
  mcp.route('/.well-known/oauth-protected-resource/mcp', (_req, res) =>
    json(res, 200, { resource: `${mcp.url}/mcp`, authorization_servers: authorizationServers }),
  );
}

/** Authorization server metadata (RFC 8414) of `issuer` with its endpoints at `endpoints` (default: the issuer). */
export function asMetadata(issuer: string, endpoints = issuer): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${endpoints}/authorize`,
    token_endpoint: `${endpoints}/token`,
    registration_endpoint: `${endpoints}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
  };
}
