import type { FetchLike } from '@modelcontextprotocol/client';
import type { HttpServerConfig } from '../domain/flow.js';
import { McpError } from './errors.js';

/** Most bytes of an OAuth answer (discovery metadata, registration, token) the runtime reads: 1 MiB. */
export const MAX_OAUTH_BODY_BYTES = 1_048_576;
/** Longest an OAuth request may take, answer body included, before it is abandoned: 10 s. */
export const OAUTH_REQUEST_TIMEOUT_MS = 10_000;
/** Most redirects followed for one request (each hop checked against the allowed hosts). */
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([204, 205, 304]);

/** What `guardedFetch` holds requests to. */
export interface FetchBounds {
  /**
   * Hosts (`host`, or `host:port` with the scheme's default port when the URL names none; lower case)
   * every request and every redirect hop must go to; null: any host.
   */
  readonly allowHosts: ReadonlySet<string> | null;
  /** Most bytes of a bounded answer (default MAX_OAUTH_BODY_BYTES). */
  readonly maxBodyBytes?: number;
  /** Longest a bounded request may take, body included (default OAUTH_REQUEST_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Names the server in refusals. */
  readonly serverId?: string;
  /** The fetch underneath (default the global one). */
  readonly fetch?: FetchLike;
}

/**
 * The fetch every request for an HTTP MCP server goes through (docs/security.md, "Limits for OAuth
 * and Connect"). Each request, and each hop of a redirect, must go to an allowed host (`allowHosts`),
 * else it is never sent: McpError CONNECT naming the host. Requests that do not accept an event stream
 * — OAuth discovery, registration and token requests, never MCP messages — are bounded: their answer
 * is read whole within `timeoutMs` and refused past `maxBodyBytes` (the request is abandoned either
 * way, McpError CONNECT saying which limit). MCP messages and their streams pass as they are.
 */
export function guardedFetch(bounds: FetchBounds): FetchLike {
  const base = bounds.fetch ?? fetch;
  const maxBytes = bounds.maxBodyBytes ?? MAX_OAUTH_BODY_BYTES;
  const timeoutMs = bounds.timeoutMs ?? OAUTH_REQUEST_TIMEOUT_MS;
  const who = bounds.serverId === undefined ? 'an MCP server' : `MCP server ${bounds.serverId}`;
  const check = (url: URL): void => {
    if (bounds.allowHosts === null || hostAllowed(url, bounds.allowHosts)) return;
    throw new McpError(
      'CONNECT',
      `a request for ${who} to ${JSON.stringify(url.host || url.href)} was not sent: that host is not allowed for this flow (serve --allow-mcp-host)`,
      bounds.serverId === undefined ? {} : { serverId: bounds.serverId },
    );
  };
  return async (input, init) => {
    let url = new URL(String(input));
    let request: RequestInit = { ...init };
    const bounded = !acceptsEventStream(init?.headers);
    const deadline = bounded ? AbortSignal.timeout(timeoutMs) : null;
    const signal = deadline
      ? AbortSignal.any([deadline, ...(init?.signal ? [init.signal] : [])])
      : init?.signal;
    const follow = (init?.redirect ?? 'follow') === 'follow';
    try {
      for (let hop = 0; ; hop++) {
        check(url);
        const response = await base(url, { ...request, redirect: 'manual', ...(signal ? { signal } : {}) });
        const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null;
        if (follow && location !== null && hop < MAX_REDIRECTS) {
          const method = (request.method ?? 'GET').toUpperCase();
          const keeps = method === 'GET' || response.status === 307 || response.status === 308;
          if (keeps) {
            await response.body?.cancel();
            url = new URL(location, url);
            continue;
          }
          if (response.status === 303 || method === 'POST') {
            await response.body?.cancel();
            url = new URL(location, url);
            request = { ...request, method: 'GET', body: null };
            continue;
          }
        }
        return bounded ? await readBounded(response, maxBytes, who, url) : response;
      }
    } catch (error) {
      if (deadline?.aborted && !(error instanceof McpError))
        throw new McpError(
          'CONNECT',
          `a request for ${who} to ${url.host} was abandoned: no whole answer within ${timeoutMs} ms`,
          { ...(bounds.serverId === undefined ? {} : { serverId: bounds.serverId }), cause: error },
        );
      throw error;
    }
  };
}

/**
 * The fetch of an HTTP MCP server entry: held to its `allowHosts` (set by `serve` for flows sent over
 * HTTP), OAuth answers bounded.
 */
export function fetchForServer(config: HttpServerConfig, serverId?: string): FetchLike {
  const allow =
    config.allowHosts === undefined ? null : new Set(config.allowHosts.map((h) => h.toLowerCase()));
  return guardedFetch({ allowHosts: allow, ...(serverId === undefined ? {} : { serverId }) });
}

/** True when `url` is http(s) on a host (any port) or `host:port` of `allowed`. */
export function hostAllowed(url: URL, allowed: ReadonlySet<string>): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowed.has(host) || allowed.has(`${host}:${port}`);
}

function acceptsEventStream(headers: RequestInit['headers']): boolean {
  return (new Headers(headers).get('accept') ?? '').toLowerCase().includes('text/event-stream');
}

/** The answer read whole (at most `maxBytes`), as a new Response; McpError CONNECT past the limit. */
async function readBounded(response: Response, maxBytes: number, who: string, url: URL): Promise<Response> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  const tooLarge = () =>
    new McpError(
      'CONNECT',
      `the answer of ${url.host} for ${who} was refused: larger than ${maxBytes} bytes (an OAuth answer is at most that)`,
    );
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  let over = false;
  // Leaving the loop early cancels the stream (and so the request).
  for await (const chunk of (response.body ?? []) as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      over = true;
      break;
    }
    chunks.push(chunk);
  }
  if (over) throw tooLarge();
  const body = NULL_BODY.has(response.status) ? null : Buffer.concat(chunks);
  const copy = new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(copy, 'url', { value: response.url || url.href });
  return copy;
}
