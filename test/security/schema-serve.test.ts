import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/helpers/cli.js';
import { SEC } from './helpers.js';
import { startServe, whileOtherTenantWaits, type ServeProcess } from './serve-process.js';

/**
 * Issue 27, findings 1 and 2 against a real `serve` with two tenants: acme's hostile inputs cost
 * beta nothing it would notice (its requests answered within 1 s), and the answers are small.
 */

let serve: ServeProcess;

beforeAll(async () => {
  ensureBuilt();
  serve = await startServe();
}, 240_000);
afterAll(async () => {
  await serve.stop();
});

function flowWithInput(id: string, input: Record<string, unknown>, version = 1): Record<string, unknown> {
  return { id, version, locale: 'en', model: 'scripted:quick.yaml', input, nodes: [{ id: 'main' }] };
}

async function upload(flow: Record<string, unknown>): Promise<void> {
  const response = await serve.call('POST', '/v1/flows', SEC.acmeAdmin, flow);
  expect(response.status, await response.clone().text()).toBeLessThan(300);
}

function startRun(flowId: string, input: unknown): () => Promise<Response> {
  return () => serve.call('POST', '/v1/runs', SEC.acmeOperator, { flowId, input });
}

describe('hostile inputs against one tenant’s flows', () => {
  it('answers a 600 KB input against a 40-name enum in under 64 KB, beta waiting < 1 s (finding 1)', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `colleague-${i}`);
    await upload(
      flowWithInput('names', {
        type: 'object',
        properties: { who: { type: 'array', items: { enum: names } } },
      }),
    );
    const who = Array.from({ length: 60_000 }, () => 'stranger');
    expect(JSON.stringify({ who }).length).toBeGreaterThan(600_000);
    const answer = await whileOtherTenantWaits(serve, SEC.betaOperator, startRun('names', { who }));
    expect(answer.status).toBe(400);
    expect(answer.text.length).toBeLessThan(64 * 1024);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'INPUT_INVALID' } });
    expect(answer.longestWaitMs).toBeLessThan(1_000);
  });

  it('answers a 20,000-item input against a 9,000-value enum in under 64 KB, beta waiting < 1 s (finding 1)', async () => {
    // An upload holds at most 10,000 values: 9,000 of them in one enum.
    const values = Array.from({ length: 9_000 }, (_, i) => `v${i}`);
    await upload(
      flowWithInput('plans', {
        type: 'object',
        properties: { plan: { type: 'array', items: { enum: values } } },
      }),
    );
    const plan = Array.from({ length: 20_000 }, () => 'gold');
    const answer = await whileOtherTenantWaits(serve, SEC.betaOperator, startRun('plans', { plan }));
    expect(answer.status).toBe(400);
    expect(answer.text.length).toBeLessThan(64 * 1024);
    expect(answer.longestWaitMs).toBeLessThan(1_000);
  });

  it('checks a 349 KB uniqueItems input of 30,000 objects without stalling beta (finding 2)', async () => {
    await upload(
      flowWithInput('rows', {
        type: 'object',
        properties: { rows: { type: 'array', uniqueItems: true }, tail: { type: 'string' } },
      }),
    );
    const rows = Array.from({ length: 30_000 }, (_, i) => ({ n: i, m: 1 }));
    expect(JSON.stringify({ rows }).length).toBeGreaterThan(349_000);
    // Every row is checked (all unique), then `tail` fails: the whole array was compared.
    const answer = await whileOtherTenantWaits(serve, SEC.betaOperator, startRun('rows', { rows, tail: 1 }));
    expect(answer.status, answer.text).toBe(400);
    expect(answer.text).toContain('tail: expected string');
    expect(answer.longestWaitMs).toBeLessThan(1_000);
  });
});
