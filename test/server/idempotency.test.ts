import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotencyCache } from '../../src/server/idempotency.js';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, reached, settled, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/** Idempotency-Key and racing identical requests. */

let t: TestApp;
const tools = ticketTools();

beforeAll(async () => {
  t = await openApp({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: tools.tools } });
});
afterAll(async () => {
  await t.stop();
});

const op = TOKENS.operator;

describe('Idempotency-Key over HTTP', () => {
  it('answers a retried approval with the first response instead of a conflict', async () => {
    const runId = await startRun(t, op, { flowId: 'tickets', input: 'printer' });
    await reached(t.runtime, runId, 'run.suspended');
    const send = () =>
      t.call('POST', `/v1/runs/${runId}/approval`, {
        token: op,
        json: { decision: 'approve' },
        headers: { 'idempotency-key': 'approve-1' },
      });
    const first = await send();
    expect(first.status).toBe(200);
    const firstBody = await first.json();
    await settled(t.runtime, runId);
    const retry = await send();
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual(firstBody);
    const withoutKey = await t.call('POST', `/v1/runs/${runId}/approval`, {
      token: op,
      json: { decision: 'approve' },
    });
    expect(withoutKey.status).toBe(409);
    const otherBody = await t.call('POST', `/v1/runs/${runId}/approval`, {
      token: op,
      json: { decision: 'reject' },
      headers: { 'idempotency-key': 'approve-1' },
    });
    expect(otherBody.status).toBe(400);
    expect(((await otherBody.json()) as { error: { code: string } }).error.code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    const run = await t.runtime.status(runId);
    expect(run.status).toBe('completed');
    expect(tools.created).toEqual(['printer']);
  });

  it('starts one run for a retried start, and keys are per caller', async () => {
    const body = { flowId: 'quick', input: 'x' };
    const headers = { 'idempotency-key': 'start-42' };
    const [a, b] = await Promise.all([
      t.call('POST', '/v1/runs', { token: op, json: body, headers }),
      t.call('POST', '/v1/runs', { token: op, json: body, headers }),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const [ja, jb] = (await Promise.all([a.json(), b.json()])) as { runId: string }[];
    expect(ja?.runId).toBe(jb?.runId);
    const other = await t.call('POST', '/v1/runs', { token: TOKENS.admin, json: body, headers });
    expect(((await other.json()) as { runId: string }).runId).not.toBe(ja?.runId);
    expect(
      (await t.call('POST', '/v1/runs', { token: op, json: body, headers: { 'idempotency-key': 'bad key' } }))
        .status,
    ).toBe(400);
  });

  it('lets only one of two racing identical approvals continue the run; the other is a 409', async () => {
    const runId = await startRun(t, op, { flowId: 'tickets', input: 'printer' });
    await reached(t.runtime, runId, 'run.suspended');
    const before = tools.created.length;
    const send = () =>
      t.call('POST', `/v1/runs/${runId}/approval`, { token: op, json: { decision: 'approve' } });
    const statuses = (await Promise.all([send(), send(), send()])).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    await settled(t.runtime, runId);
    expect(tools.created.length).toBe(before + 1);
  });
});

describe('IdempotencyCache', () => {
  it('forgets the oldest key beyond its bound and keys older than its ttl, and never remembers errors', async () => {
    let now = 0;
    const cache = new IdempotencyCache({ maxEntries: 2, ttlMs: 1000, now: () => now });
    let calls = 0;
    const produce = () => Promise.resolve({ status: 200, body: ++calls });
    await cache.run('s', 'a', null, produce);
    await cache.run('s', 'b', null, produce);
    await cache.run('s', 'c', null, produce);
    expect(cache.size).toBe(2);
    expect((await cache.run('s', 'a', null, produce)).body).toBe(4);
    expect((await cache.run('s', 'c', null, produce)).replayed).toBe(true);
    now = 5000;
    expect((await cache.run('s', 'c', null, produce)).replayed).toBe(false);
    await cache.run('s', 'e', null, () => Promise.resolve({ status: 409, body: 'no' }));
    expect((await cache.run('s', 'e', null, produce)).replayed).toBe(false);
    await expect(cache.run('s', 'f', null, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect((await cache.run('s', 'f', null, produce)).replayed).toBe(false);
  });
});
