import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context.js';
import { ApiError } from './errors.js';

/** Methods that only read (a browser sends them cross-site without asking, but cannot read the answer). */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * True for a `Host` header naming this machine's loopback interface: `localhost`, an address of
 * 127.0.0.0/8 or `[::1]`, each with or without a port. Anything else (a DNS name pointing at
 * 127.0.0.1 by rebinding, `0.0.0.0`, a LAN address) is false.
 */
export function isLoopbackHost(header: string): boolean {
  const match = /^(?:\[([^\]]*)\]|([^:[\]]*))(?::(\d{1,5}))?$/.exec(header.trim());
  if (!match) return false;
  const port = match[3];
  if (port !== undefined && Number(port) > 65535) return false;
  if (match[1] !== undefined) return match[1] === '::1';
  const name = (match[2] ?? '').toLowerCase();
  if (name === 'localhost') return true;
  const parts = name.split('.');
  return (
    parts.length === 4 && parts[0] === '127' && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)
  );
}

/**
 * Why a state-changing request comes from another site, or null when it does not: an `Origin` that is
 * not this server's own origin (`http://` + the request's `Host`), or, without `Origin`, a
 * `Sec-Fetch-Site` other than `same-origin` or `none`. A request with neither header (curl, the CLI,
 * a server-side client) is not a browser's cross-site request.
 */
export function crossOriginReason(
  origin: string | undefined,
  fetchSite: string | undefined,
  host: string,
): string | null {
  if (origin !== undefined) {
    if (origin === `http://${host.trim().toLowerCase()}`) return null;
    return `Origin ${JSON.stringify(origin.slice(0, 200))} is not this server's origin`;
  }
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none')
    return `Sec-Fetch-Site ${JSON.stringify(fetchSite.slice(0, 40))}`;
  return null;
}

/**
 * The guard of a server without tokens (docs/security.md): every caller would be admin, so only this
 * machine may call it. Refuses with 403 FORBIDDEN a request whose `Host` is not a loopback name
 * (a DNS-rebinding page reaches 127.0.0.1 under its own name), and (also 403 FORBIDDEN) a
 * state-changing request (anything but GET, HEAD, OPTIONS) sent by a page of another origin. The
 * console served by the server itself is same-origin and works as before.
 */
export function loopbackOnly(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A request made in-process (app.request) carries no Host header: its URL says where it went.
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!isLoopbackHost(host))
      throw new ApiError(
        403,
        'FORBIDDEN',
        'this server has no tokens and answers only requests addressed to a loopback name (localhost, 127.0.0.1, [::1]); start it with --tokens FILE to serve other names',
      );
    if (!SAFE_METHODS.has(c.req.method)) {
      const why = crossOriginReason(c.req.header('origin'), c.req.header('sec-fetch-site'), host);
      if (why !== null)
        throw new ApiError(
          403,
          'FORBIDDEN',
          `refusing a state-changing request from another site (${why}); this server has no tokens, so only its own console and non-browser clients may change runs and flows`,
        );
    }
    return next();
  };
}
