import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiPath } from '../../src/server/api-paths.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * Issue 13, lower holes: paths that only look like `/v1` (`/v1x`, a full-width `ｖ1`, percent-encoded
 * or twice-encoded) were answered 200 with the console's HTML; `/v1\runs` (a backslash) got a 400
 * with no body at all, and so did a request line the HTTP parser refuses. Each is now a JSON error.
 * N7: invisible characters inside the segment (`/v%E2%81%A01`: a word joiner, a zero-width space, a soft
 * hyphen) and encoded dot segments (`/x%2F..%2Fv1/runs`) still reached the console.
 */

let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
afterAll(async () => {
  await t.stop();
});

/** Sends `GET <target>` byte for byte (fetch would normalise it) and reads the whole answer. */
function rawGet(target: string): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port, host } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(
        Buffer.from(
          `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${SEC.viewer}\r\nConnection: close\r\n\r\n`,
          'utf8',
        ),
      );
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body });
    });
  });
}

/** A chunked body's data (the server may answer either way). */
function unchunk(head: string, body: string): string {
  if (!/transfer-encoding: chunked/i.test(head)) return body;
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

const FULL_WIDTH = '/ｖ1/runs';

describe('paths that look like /v1', () => {
  it('answer the JSON 404 of the API, not the console', async () => {
    for (const path of [
      '/v1x',
      '/v1x/runs',
      '/V1X/RUNS',
      '/v10',
      encodeURI(FULL_WIDTH),
      encodeURI('/Ｖ１/runs'),
      encodeURI('/ｖ１'),
      '/%EF%BD%96%EF%BC%91/runs',
      '/%25EF%25BD%25961/runs',
      '/%2576%2531/runs',
      encodeURI('/／v1/runs'),
      '/v%E2%81%A01/runs',
      '/v%E2%80%8B1/runs',
      '/v%C2%AD1/runs',
      '/%E2%80%8Bv1/runs',
      '/v1%E2%81%A0/runs',
      '/x%2F..%2Fv1/runs',
      '/x%2F..%2F..%2Fv1/runs',
      '/.%2Fv1/runs',
      '/x%5C..%5Cv1/runs',
      '/x%252F..%252Fv1/runs',
      '/v%201/runs',
      '/v%C2%A01/runs',
      '/v%E3%80%801/runs',
      '/v%E2%80%A81/runs',
      '/v%0B1/runs',
      '/v%E2%A0%801/runs',
    ]) {
      const response = await t.call('GET', path, { token: SEC.viewer });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/application\/json/);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('NOT_FOUND');
    }
  });

  it('judges the first segment after decoding, NFKC and case folding', () => {
    for (const path of [
      '/v1x',
      '/v10',
      '/ｖ1/runs',
      '/Ｖ１',
      '/%EF%BD%961/runs',
      '/%25EF%25BD%25961',
      '/／v1',
      '/v1\\runs',
      '/ｖ1＼runs',
      '/v\u20601/runs',
      '/v\u200b1/runs',
      '/v\u00ad1/runs',
      '/\ufeffv1',
      '/v\u180e1',
      '/v\u{e0001}1',
      '/v\u31641',
      '/x/../v1/runs',
      '/x/y/../../v1',
      '/../v1',
      '/./v1',
      '/x\\..\\v1',
      '/v1/..',
      '/v1/../runs',
    ])
      expect(isApiPath(path), path).toBe(true);
    for (const path of [
      '/',
      '/runs/run_1',
      '/v',
      '/v2/runs',
      '/assets/v1.js',
      '/healthz',
      '/1v',
      '/x/v1',
      '/x/./v1',
    ])
      expect(isApiPath(path), path).toBe(false);
  });

  it('answers a backslash in the path with a JSON error body', async () => {
    for (const target of ['/v1\\runs', '/V1\\RUNS', '/v1\\..\\healthz']) {
      const answer = await rawGet(target);
      expect(answer.status, target).toBeGreaterThanOrEqual(400);
      expect(answer.status, target).toBeLessThan(500);
      expect(answer.head, target).toMatch(/content-type: application\/json/i);
      const body = JSON.parse(unchunk(answer.head, answer.body)) as { error: { code: string } };
      expect(body.error.code, target).toMatch(/^(BAD_REQUEST|NOT_FOUND)$/);
    }
  });

  it('answers a request line the HTTP parser refuses (raw full-width bytes) with a JSON 400', async () => {
    for (const target of [FULL_WIDTH, '/Ｖ１/runs', '/v1/ru\u0001ns']) {
      const answer = await rawGet(target);
      expect(answer.status, target).toBe(400);
      expect(answer.head, target).toMatch(/content-type: application\/json/i);
      const body = JSON.parse(unchunk(answer.head, answer.body)) as { error: { code: string } };
      expect(body.error.code, target).toBe('BAD_REQUEST');
    }
    // The server is still fine afterwards.
    expect((await t.call('GET', '/healthz')).status).toBe(200);
  });
});
