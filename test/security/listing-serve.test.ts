import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/helpers/cli.js';
import { SEC } from './helpers.js';
import { startServe, whileOtherTenantWaits, type ServeProcess } from './serve-process.js';

/**
 * Issue 39, finding 7 (listings), against a real `serve` with two tenants: listing 150 runs whose
 * inputs are ~900 KB each reads their heads only (never an input or a state), so the other tenant's
 * requests are answered within 250 ms while acme lists them again and again.
 */

let serve: ServeProcess;

beforeAll(async () => {
  ensureBuilt();
  serve = await startServe();
}, 240_000);
afterAll(async () => {
  await serve.stop();
});

describe('listing runs with large inputs', () => {
  it('keeps the other tenant under 250 ms while 150 runs of ~900 KB inputs are listed', async () => {
    await writeFile(
      join(serve.dir, 'finish.yaml'),
      'turns:\n  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }\n',
    );
    const flow = {
      id: 'big-input',
      version: 1,
      locale: 'en',
      model: 'scripted:finish.yaml',
      input: { type: 'object' },
      nodes: [{ id: 'main' }],
    };
    const uploaded = await serve.call('POST', '/v1/flows', SEC.acmeAdmin, flow);
    expect(uploaded.status, await uploaded.text()).toBe(201);
    // Many values, not one long string: decoding them is what costs.
    const blob = Array.from({ length: 52_000 }, (_, i) => `value-${i}-xxxx`);
    expect(JSON.stringify({ blob }).length).toBeGreaterThan(900_000);
    for (let i = 0; i < 150; i++) {
      const started = await serve.call('POST', '/v1/runs', SEC.acmeOperator, {
        flowId: 'big-input',
        input: { blob },
      });
      expect(started.status, await started.clone().text()).toBe(201);
      await started.arrayBuffer();
    }
    const answer = await whileOtherTenantWaits(serve, SEC.betaOperator, async () => {
      let last: Response | undefined;
      for (let round = 0; round < 10; round++) {
        last = await serve.call('GET', '/v1/runs?limit=150', SEC.acmeOperator);
        const runs = (await last.clone().json()) as unknown[];
        expect(runs).toHaveLength(150);
      }
      return last as Response;
    });
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('value-1-xxxx');
    expect(answer.longestWaitMs).toBeLessThan(250);
  }, 300_000);
});
