import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/** Issue 13, lower holes: a body over the 1 MiB limit was answered 400 BAD_REQUEST; it is 413 now. */

let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
afterAll(async () => {
  await t.stop();
});

const LIMIT = 1024 * 1024;

/** Posts `body` in chunks without a Content-Length (a client that does not say how much is coming). */
function postChunked(path: string, body: string): Promise<{ status: number; type: string; text: string }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        method: 'POST',
        headers: { authorization: `Bearer ${SEC.admin}`, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text }),
        );
      },
    );
    // The server may answer and close before every chunk is sent.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.slice(at, at + 64 * 1024));
    req.end();
  });
}

describe('request body limit', () => {
  const big = JSON.stringify({ flowId: 'f', input: 'x'.repeat(LIMIT) });

  it('answers 413 PAYLOAD_TOO_LARGE with a JSON error for a body over the limit', async () => {
    for (const [path, type] of [
      ['/v1/runs', 'application/json'],
      ['/v1/flows', 'application/json'],
      ['/v1/flows', 'application/yaml'],
      ['/v1/runs/run_x/answer', 'application/json'],
    ] as const) {
      const response = await t.call('POST', path, {
        token: SEC.admin,
        body: big,
        headers: { 'content-type': type },
      });
      expect(response.headers.get('content-type'), path).toMatch(/application\/json/);
      const error = await errorOf(response);
      expect(error.status, path).toBe(413);
      expect(error.code, path).toBe('PAYLOAD_TOO_LARGE');
      expect(error.message, path).toMatch(/larger than 1048576 bytes/);
    }
  });

  it('answers 413 also when the body comes without a Content-Length', async () => {
    const answer = await postChunked('/v1/runs', big);
    expect(answer.status).toBe(413);
    expect(answer.type).toMatch(/application\/json/);
    expect((JSON.parse(answer.text) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('documents 413 in the OpenAPI document for the routes that take a body', async () => {
    const doc = (await (await t.call('GET', '/v1/openapi.json', { token: SEC.viewer })).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const [path, method] of [
      ['/v1/runs', 'post'],
      ['/v1/flows', 'post'],
      ['/v1/runs/{id}/approval', 'post'],
      ['/v1/runs/{id}/answer', 'post'],
      ['/v1/runs/{id}/retry', 'post'],
    ] as const)
      expect(Object.keys(doc.paths[path]?.[method]?.responses ?? {}), `${method} ${path}`).toContain('413');
  });
});
