import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context, Env, Hono, MiddlewareHandler } from 'hono';
import { isApiPath } from './api-paths.js';

/**
 * Serving of the web console (issue 9): the files Vite built into `web/dist`, at `/`. Requests under
 * `/v1/` and `/healthz` are never answered here, so the API keeps its own 404s. A path that names no
 * file and has no extension is a client route (`/runs/run_…`) and gets index.html; a missing asset
 * (`/assets/x.js`) is a plain 404. Paths are resolved inside the folder only: `..`, encoded slashes
 * and NUL bytes never reach the file system outside it.
 */

/** Options of the console handler. */
export interface ConsoleOptions {
  /** The built console (default: `web/dist` of this package, from the source tree or from `dist/`). */
  dir?: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Headers of every console response: no inline script or foreign origin, no framing, no sniffing. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

/** The default location of the built console: `web/dist` at the package root (found from src/ or dist/src/). */
export function defaultConsoleDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, '../../web/dist'), resolve(here, '../../../web/dist')];
  return candidates.find((dir) => existsSync(join(dir, 'index.html'))) ?? (candidates[0] as string);
}

/**
 * A middleware serving the console for GET and HEAD requests outside `/v1/` (any spelling) and `/healthz`; every
 * other request goes on to the next handler (the API's routes and its JSON 404).
 */
export function consoleMiddleware<E extends Env>(options: ConsoleOptions = {}): MiddlewareHandler<E> {
  const root = resolve(options.dir ?? defaultConsoleDir());
  return async (c, next) => {
    const method = c.req.method;
    const path = c.req.path;
    if ((method !== 'GET' && method !== 'HEAD') || isApiPath(path) || path === '/healthz') return next();
    const file = await locate(root, path);
    if (file === 'missing-root') return notBuilt(c);
    if (file === null) return next();
    const body = await readFile(file.path);
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'Content-Type': TYPES[extname(file.path).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': String(body.byteLength),
      // Vite names assets by content hash: they never change. index.html must always be fresh.
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    };
    return new Response(method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
  };
}

/** Mounts the console on an app (after its API routes, so they win): `mountConsole(server.app)`. */
export function mountConsole<E extends Env>(app: Hono<E>, options: ConsoleOptions = {}): void {
  app.use('*', consoleMiddleware<E>(options));
}

interface Located {
  path: string;
  immutable: boolean;
}

/**
 * The file a request path names inside `root`: the file itself, or index.html for a client route;
 * null for a missing asset or a path that would leave the folder; 'missing-root' when the console is not built.
 */
async function locate(root: string, urlPath: string): Promise<Located | null | 'missing-root'> {
  const index = join(root, 'index.html');
  if (!(await isFile(index))) return 'missing-root';
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null; // malformed percent-encoding names no file
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const target = resolve(root, `.${decoded.startsWith('/') ? '' : '/'}${decoded}`);
  const inside = relative(root, target);
  if (inside.startsWith('..') || isAbsolute(inside)) return null;
  if (inside !== '' && (await isFile(target)))
    return { path: target, immutable: inside.startsWith(`assets${sep}`) };
  // A path with an extension names a file that is not there; a path without one is a client route.
  if (extname(decoded) !== '') return null;
  return { path: index, immutable: false };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw error;
  }
}

// The message names no server path: any caller may see it.
function notBuilt(c: Context): Response {
  return c.text('The web console is not built (its index.html is missing). Run: npm run build:web\n', 503, {
    'Content-Type': 'text/plain; charset=utf-8',
  });
}
