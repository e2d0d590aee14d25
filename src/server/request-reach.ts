import { isStdioServer, type Flow, type HttpServerConfig } from '../domain/flow.js';
import { envRefNames } from '../mcp/env-refs.js';

/**
 * What a flow sent over HTTP may make the server read and reach for its MCP servers: `${VAR}`
 * references (held to `--allow-env`) and the hosts of its HTTP servers and their OAuth settings
 * (held to `--allow-mcp-host`). Part of `vetRequestFlow` (request-policy.ts).
 */

/** The allow-lists `reachProblems` checks against (RequestPolicy's). */
export interface ReachPolicy {
  readonly allowMcpHosts: ReadonlySet<string>;
  readonly allowEnv: ReadonlySet<string>;
}

/**
 * One problem per `${VAR}` that `--allow-env` does not allow, anywhere in a server entry (`env`,
 * `headers`, `auth.clientSecret`, `auth.privateKey`, `auth.idp.clientSecret`, `auth.idp.idToken`, any
 * other string), named by its path.
 */
export function envRefProblems(
  id: string,
  server: Flow['mcpServers'][string],
  policy: ReachPolicy,
): string[] {
  const problems: string[] = [];
  for (const [path, value] of strings(server, `mcpServers.${id}`))
    for (const name of envRefNames({ value }))
      if (!policy.allowEnv.has(name))
        problems.push(
          `${path}: references the server's environment variable ${name} as \${${name}}; flows sent over HTTP may reference only variables given with --allow-env`,
        );
  return problems;
}

/**
 * One problem per URL of an HTTP server's OAuth settings the server would contact that is not on an
 * allowed host: the identity provider (`auth.idp.tokenEndpoint`, `auth.idp.issuer`) and the
 * authorization server (`auth.issuer`). Hosts discovered later (metadata, redirects) are checked at
 * each request by the server entry's `allowHosts`, which `confineHosts` sets.
 */
export function authHostProblems(id: string, server: HttpServerConfig, policy: ReachPolicy): string[] {
  const auth = server.auth;
  const urls: [string, string | undefined][] = [
    ['auth.issuer', auth?.issuer],
    ['auth.idp.tokenEndpoint', auth?.idp?.tokenEndpoint],
    ['auth.idp.issuer', auth?.idp?.issuer],
  ];
  const problems: string[] = [];
  for (const [key, url] of urls) {
    if (url === undefined) continue;
    const endpoint = endpointOf(url);
    if (endpoint === null)
      problems.push(`mcpServers.${id}.${key}: ${JSON.stringify(url)} is not an http or https URL`);
    else if (!hostAllowed(endpoint, policy.allowMcpHosts))
      problems.push(
        `mcpServers.${id}.${key}: host ${JSON.stringify(endpoint.hostPort)} is not allowed for flows sent over HTTP; the server admits only hosts (HOST, or HOST:PORT) given with --allow-mcp-host`,
      );
  }
  return problems;
}

/**
 * The problem of an HTTP server whose `auth` names a file on the server (`assertionFile`, the
 * workload's JWT of grant jwt_bearer): a flow sent over HTTP may not make the server read its files
 * (and send what it read); it names the token as `${VAR}` instead, held to `--allow-env`.
 */
export function authFileProblems(id: string, server: HttpServerConfig): string[] {
  if (server.auth?.assertionFile === undefined) return [];
  return [
    `mcpServers.${id}.auth.assertionFile: flows sent over HTTP may not read files on the server; give the token as \`assertion: \${VAR}\` with a variable allowed by --allow-env`,
  ];
}

/**
 * Sets each HTTP server's `allowHosts` to the `--allow-mcp-host` list (in place, replacing whatever the
 * flow said), so that every request made for it — discovery, registration, tokens, the identity
 * provider, each redirect hop — is held to the list wherever the run is executed.
 */
export function confineHosts(flow: Flow, policy: ReachPolicy): void {
  for (const server of Object.values(flow.mcpServers))
    if (!isStdioServer(server)) server.allowHosts = [...policy.allowMcpHosts].sort();
}

/** True when the endpoint's host (any port) or `host:port` is allowed. */
export function hostAllowed(
  endpoint: { host: string; hostPort: string },
  allowed: ReadonlySet<string>,
): boolean {
  return allowed.has(endpoint.host) || allowed.has(endpoint.hostPort);
}

/**
 * The host (lower case, IPv6 in brackets) and `host:port` (the scheme's default port when the URL
 * names none) of an http or https URL; null for anything else.
 */
export function endpointOf(url: string): { host: string; hostPort: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  const host = parsed.hostname.toLowerCase();
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  return { host, hostPort: `${host}:${port}` };
}

/** Every string inside `value` with its dotted path. */
function* strings(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value))
    for (const [i, item] of value.entries()) yield* strings(item, `${path}[${i}]`);
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) yield* strings(item, `${path}.${key}`);
}
