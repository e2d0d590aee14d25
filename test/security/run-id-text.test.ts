import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * Issue 27, finding 12 (the HTTP half; the store half is the store contract case "stores
 * model-written texts with NUL…", run on PGlite and the real PostgreSQL): a run id with NUL or
 * another control character is a 400, never a query PostgreSQL refuses with a 500.
 */

let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
afterAll(async () => {
  await t.stop();
});

describe('run ids in paths', () => {
  it('answers 400 for NUL and control characters', async () => {
    for (const id of ['%00', 'run%00x', '%1b%5b2J', '%7f']) {
      const response = await t.call('GET', `/v1/runs/${id}`, { token: SEC.acmeViewer });
      expect((await errorOf(response)).status, id).toBe(400);
    }
    expect((await t.call('GET', '/v1/runs/run_unknown', { token: SEC.acmeViewer })).status).toBe(404);
  });
});
