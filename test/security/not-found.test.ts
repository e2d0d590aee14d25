import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiPath } from '../../src/server/api-paths.js';
import { SEC, startTarget, type Target } from './helpers.js';

/** Hole 7: unknown paths under a different spelling of /v1 answered 200 with the console's HTML. */

let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
afterAll(async () => {
  await t.stop();
});

describe('unknown API paths', () => {
  it('answer a JSON 404 under any spelling of /v1, with or without a token', async () => {
    for (const path of [
      '/V1/RUNS',
      '//v1/runs',
      '/v1/nope',
      '/V1',
      '/%76%31/nope',
      '/v1//runs',
      '/v1/runs/x/y/z',
    ]) {
      for (const token of [undefined, SEC.viewer]) {
        const response = await fetch(
          `${t.url}${path}`,
          token ? { headers: { authorization: `Bearer ${token}` } } : {},
        );
        expect(response.status, path).toBeGreaterThanOrEqual(400);
        expect(response.status, path).toBeLessThan(500);
        expect(response.headers.get('content-type'), path).toMatch(/application\/json/);
        const body = (await response.json()) as { error?: { code?: string } };
        expect(body.error?.code, path).toBeTruthy();
      }
    }
  });

  it('recognises the spellings that belong to the API and leaves the console its routes', () => {
    for (const path of ['/v1', '/V1/runs', '//v1', '/%76%31/x', '/v1\\runs'])
      expect(isApiPath(path), path).toBe(true);
    for (const path of ['/', '/runs/run_1', '/v2', '/assets/v1.js', '/healthz'])
      expect(isApiPath(path), path).toBe(false);
  });
});
