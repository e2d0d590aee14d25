import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaCacheStats } from '../../src/domain/schema-engine.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * Issue 27, finding 4: every compiled schema was kept for ever (Ajv's own cache and ours), so
 * re-uploading one flow id with a new input schema grew the server by the schema each time. Now
 * validators live in one LRU cache bounded by bytes, and nothing else holds them.
 */

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let t: Target;
beforeAll(async () => {
  t = await startTarget();
});
afterAll(async () => {
  await t.stop();
});

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('compiled schemas of re-uploaded flows', () => {
  it('do not grow the heap after the cache is full, however many versions arrive', async () => {
    // Cheap to compile, dear to keep: a 100 KB description, and a rule that changes with the version.
    const description = 'd'.repeat(100_000);
    const upload = async (v: number) => {
      const input = { type: 'object', description, properties: { name: { type: 'string', maxLength: v } } };
      const flow = { id: 'churn', version: v, locale: 'en', input, nodes: [{ id: 'main' }] };
      const response = await t.call('POST', '/v1/flows', { token: SEC.acmeAdmin, json: flow });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
    };
    for (let v = 1; v <= 80; v++) await upload(v);
    const before = heapAfterGc();
    for (let v = 81; v <= 160; v++) await upload(v);
    const grown = heapAfterGc() - before;
    const listed = (await (await t.call('GET', '/v1/flows', { token: SEC.acmeAdmin })).json()) as {
      flowId: string;
    }[];
    expect(listed.filter((f) => f.flowId === 'churn')).toHaveLength(1);
    // Kept for ever, 80 more schemas would hold 80 × 100 KB = 8 MB of descriptions alone.
    expect(grown).toBeLessThan(4 * 1024 * 1024);
    expect(schemaCacheStats().bytes).toBeLessThanOrEqual(48 * 1024 * 1024);
  }, 120_000);
});
