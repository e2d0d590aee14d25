import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_CACHE_BYTES, schemaCacheStats } from '../../src/domain/schema-engine.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * Issue 39, finding 7 (re-uploads): re-uploading one flow id with a new ~30 KB input schema each time
 * grew the server by megabytes per upload, because a compiled validator costs ~50× its schema's text
 * and the cache sized it at 12×. Now a replaced version's validators are dropped with it, and the
 * cache sizes an entry by its generated code, so the count, the counted bytes and the heap plateau.
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

/** A ~30 KB input schema whose 300 property names change with `v`. */
function inputSchema(v: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++)
    properties[`field_${i}_v${v}`] = {
      type: 'string',
      maxLength: 40 + (i % 9),
      description: `field ${i} of version ${v}, a text`,
    };
  return { type: 'object', properties, required: Object.keys(properties).slice(0, 10) };
}

describe('re-uploads of one flow id with a new input schema each time', () => {
  it('keep the compiled validators of the current version only, and the heap flat', async () => {
    expect(JSON.stringify(inputSchema(1)).length).toBeGreaterThan(25_000);
    const upload = async (v: number) => {
      const flow = {
        id: 'reupload',
        version: v,
        locale: 'en',
        input: inputSchema(v),
        nodes: [{ id: 'main' }],
      };
      const response = await t.call('POST', '/v1/flows', { token: SEC.acmeAdmin, json: flow });
      expect(response.status, await response.clone().text()).toBeLessThan(300);
    };
    const entries: number[] = [];
    for (let v = 1; v <= 60; v++) {
      await upload(v);
      entries.push(schemaCacheStats().entries);
    }
    const before = heapAfterGc();
    for (let v = 61; v <= 200; v++) {
      await upload(v);
      entries.push(schemaCacheStats().entries);
    }
    const grown = heapAfterGc() - before;
    // Each upload compiles its version's schemas and releases the previous version's.
    expect(Math.max(...entries)).toBeLessThanOrEqual(4);
    expect(schemaCacheStats().bytes).toBeLessThanOrEqual(SCHEMA_CACHE_BYTES);
    // 140 more versions kept would hold 140 × ~1.2 MB of compiled code.
    expect(grown).toBeLessThan(16 * 1024 * 1024);
  }, 240_000);

  it('counts a compiled validator at no less than the heap it holds', async () => {
    const { compileSchema } = await import('../../src/domain/schema-engine.js');
    const start = schemaCacheStats();
    const before = heapAfterGc();
    const kept = [];
    for (let v = 1_000; v < 1_010; v++) kept.push(compileSchema(inputSchema(v)));
    const grown = heapAfterGc() - before;
    const counted = schemaCacheStats().bytes - start.bytes;
    expect(kept).toHaveLength(10);
    expect(counted).toBeGreaterThan(grown * 0.5);
  }, 120_000);
});
