import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create.js';
import { createServer, type ApiServer } from '../../src/server/app.js';
import { consoleMiddleware, mountConsole } from '../../src/server/console.js';
import type { Runtime } from '../../src/runtime/runtime.js';

/**
 * src/server/console.ts over real HTTP: the built files with their types and caching, index.html for
 * client routes, no way out of the folder, and the API's own answers untouched.
 */

let dir: string;
let outside: string;
let runtime: Runtime;
let server: ApiServer;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  outside = mkdtempSync(join(tmpdir(), 'console-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(join(dir, 'assets', 'index-abc.css'), 'body{}');
  writeFileSync(join(dir, 'favicon.svg'), '<svg/>');
  runtime = createRuntime({ store: 'memory', logger: false });
  server = createServer({ runtime, tokens: null, logger: { debug() {}, info() {}, warn() {}, error() {} } });
  mountConsole(server.app, { dir });
  ({ url } = await server.listen());
});

afterAll(async () => {
  await server.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  rmSync(outside, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
});

async function get(
  path: string,
  method = 'GET',
): Promise<{ status: number; type: string | null; cache: string | null; csp: string | null; body: string }> {
  // Raw paths: fetch would normalise `..` away before sending.
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers['content-type'] ?? null,
          cache: res.headers['cache-control'] ?? null,
          csp: (res.headers['content-security-policy'] as string | undefined) ?? null,
          body,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the console at /', () => {
  it('serves index.html at / and for client routes, never cached, with a strict CSP', async () => {
    for (const path of ['/', '/runs/run_123', '/runs/run_123?x=1']) {
      const r = await get(path);
      expect([path, r.status, r.type, r.cache]).toEqual([path, 200, 'text/html; charset=utf-8', 'no-cache']);
      expect(r.body).toContain('<title>console</title>');
      expect(r.csp).toContain("script-src 'self'");
    }
  });

  it('serves assets with their content type; hashed assets are immutable', async () => {
    expect(await get('/assets/index-abc.js')).toMatchObject({
      status: 200,
      type: 'text/javascript; charset=utf-8',
      cache: 'public, max-age=31536000, immutable',
      body: 'console.log(1)',
    });
    expect(await get('/assets/index-abc.css')).toMatchObject({
      status: 200,
      type: 'text/css; charset=utf-8',
    });
    expect(await get('/favicon.svg')).toMatchObject({
      status: 200,
      type: 'image/svg+xml',
      cache: 'no-cache',
    });
    expect(await get('/assets/index-abc.js', 'HEAD')).toMatchObject({ status: 200, body: '' });
  });

  it('answers a missing asset 404, not index.html', async () => {
    expect(await get('/assets/missing.js')).toMatchObject({ status: 404 });
  });

  it('never leaves the folder', async () => {
    const name = outside.split('/').at(-1) as string;
    for (const path of [
      `/../${name}/secret.txt`,
      `/..%2f${name}%2fsecret.txt`,
      `/%2e%2e/${name}/secret.txt`,
      '/assets/..%5c..%5csecret.txt',
      '/%00index.html',
      '/%E0%A4%A',
    ]) {
      const r = await get(path);
      expect(r.body, path).not.toBe('secret');
      expect(r.status, path).toBe(404);
    }
  });

  it('leaves the API alone: its routes, its JSON 404s and non-GET methods', async () => {
    expect(await get('/healthz')).toMatchObject({ status: 200, type: 'application/json' });
    expect(await get('/v1/runs')).toMatchObject({ status: 200, type: 'application/json' });
    const missing = await get('/v1/nope');
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    expect(await get('/', 'POST')).toMatchObject({ status: 404 });
  });

  it('says how to build the console when web/dist is missing', async () => {
    const app = new Hono();
    app.use('*', consoleMiddleware({ dir: join(outside, 'no-dist') }));
    const response = await app.request('/');
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build:web');
  });
});
