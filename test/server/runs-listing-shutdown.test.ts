import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openApp, reached, settled, startRun, tempDir, type TestApp } from './helpers.js';

/**
 * `GET /v1/runs` and `GET /v1/runs/{id}` (src/server/runs-routes.ts): order, status filter, limit
 * bounds and default, tenants; a tenant's own flow shadowing a shared one when it starts a run; and
 * what every mutating route answers once shutdown began (503 SHUTTING_DOWN, reads still served).
 */

interface Summary {
  runId: string;
  status: string;
  flowId: string;
  suspension?: { kind: string };
}

async function list(t: TestApp, token: string, query = ''): Promise<Summary[]> {
  const response = await t.call('GET', `/v1/runs${query}`, { token });
  expect(response.status, query).toBe(200);
  return (await response.json()) as Summary[];
}

async function errorOf(
  response: Response,
): Promise<{ status: number; code: string; message: string; problems?: string[] }> {
  const body = (await response.json()) as { error: { code: string; message: string; problems?: string[] } };
  return { status: response.status, ...body.error };
}

describe('GET /v1/runs', () => {
  let t: TestApp;
  const ids: Record<string, string> = {};
  const tools = ticketTools();

  beforeAll(async () => {
    t = await openApp({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: tools.tools } });
    // In this order: completed (no tenant), suspended (acme), cancelled (no tenant), completed (globex).
    ids.quick = await startRun(t, TOKENS.operator, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, ids.quick);
    ids.acme = await startRun(t, TOKENS.tenantA, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, ids.acme, 'run.suspended');
    ids.cancelled = await startRun(t, TOKENS.operator, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, ids.cancelled, 'run.suspended');
    await t.call('POST', `/v1/runs/${ids.cancelled}/cancel`, { token: TOKENS.operator });
    ids.globex = await startRun(t, TOKENS.tenantB, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, ids.globex);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('lists every run, newest first, for a token without tenant', async () => {
    expect((await list(t, TOKENS.viewer)).map((r) => r.runId)).toEqual([
      ids.globex,
      ids.cancelled,
      ids.acme,
      ids.quick,
    ]);
  });

  it('filters by status, and answers [] for a status no run has', async () => {
    expect((await list(t, TOKENS.viewer, '?status=completed')).map((r) => r.runId)).toEqual([
      ids.globex,
      ids.quick,
    ]);
    expect((await list(t, TOKENS.viewer, '?status=cancelled')).map((r) => r.runId)).toEqual([ids.cancelled]);
    expect(await list(t, TOKENS.viewer, '?status=failed')).toEqual([]);
    const suspended = await list(t, TOKENS.viewer, '?status=suspended');
    expect(suspended.map((r) => [r.runId, r.suspension?.kind])).toEqual([[ids.acme, 'FOLLOW_UP']]);
  });

  it("keeps a tenant's listing to its runs, with the status filter and limit applied within them", async () => {
    expect((await list(t, TOKENS.viewerA)).map((r) => r.runId)).toEqual([ids.acme]);
    expect(await list(t, TOKENS.tenantA, '?status=completed')).toEqual([]);
    expect((await list(t, TOKENS.tenantB, '?limit=1')).map((r) => r.runId)).toEqual([ids.globex]);
  });

  it('gives the newest `limit` runs, limit 1 to 1000', async () => {
    expect((await list(t, TOKENS.viewer, '?limit=2')).map((r) => r.runId)).toEqual([
      ids.globex,
      ids.cancelled,
    ]);
    expect(await list(t, TOKENS.viewer, '?limit=1000')).toHaveLength(4);
    expect((await list(t, TOKENS.viewer, '?limit=1&status=completed')).map((r) => r.runId)).toEqual([
      ids.globex,
    ]);
  });

  it('refuses a limit outside 1..1000 or not a whole number, and an unknown status, naming the query field', async () => {
    expect(await errorOf(await t.call('GET', '/v1/runs?limit=1001', { token: TOKENS.viewer }))).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'invalid request query: query.limit: Too big: expected number to be <=1000',
      problems: ['query.limit: Too big: expected number to be <=1000'],
    });
    for (const limit of ['2.5', 'abc', '-3', '']) {
      const refused = await errorOf(await t.call('GET', `/v1/runs?limit=${limit}`, { token: TOKENS.viewer }));
      expect(refused.status, limit).toBe(400);
      expect(refused.problems?.[0], limit).toMatch(/^query\.limit: /);
    }
    const status = await errorOf(await t.call('GET', '/v1/runs?status=Completed', { token: TOKENS.viewer }));
    expect(status).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(status.problems?.[0]).toMatch(/^query\.status: /);
  });

  it('hides a run without tenant from tenant tokens exactly like an unknown run', async () => {
    for (const token of [TOKENS.tenantA, TOKENS.viewerA]) {
      expect(await errorOf(await t.call('GET', `/v1/runs/${ids.quick}`, { token }))).toEqual({
        status: 404,
        code: 'RUN_NOT_FOUND',
        message: `unknown run id ${ids.quick}`,
      });
    }
    const own = await t.call('GET', `/v1/runs/${ids.acme}`, { token: TOKENS.viewerA });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({ runId: ids.acme, status: 'suspended', flowId: 'ask' });
  });

  it('lets no tenant act on a run without tenant (404, nothing changed)', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, runId, 'run.suspended');
    for (const [path, json] of [
      ['answer', { text: 'A4' }],
      ['approval', { decision: 'approve' }],
      ['cancel', undefined],
    ] as const) {
      const response = await t.call('POST', `/v1/runs/${runId}/${path}`, { token: TOKENS.tenantA, json });
      expect(await errorOf(response), path).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
    }
    expect((await t.runtime.status(runId)).status).toBe('suspended');
    await t.call('POST', `/v1/runs/${runId}/cancel`, { token: TOKENS.operator });
  });
});

describe('GET /v1/runs default limit', () => {
  it('answers at most 100 runs without a limit', async () => {
    const t = await openApp({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: ticketTools().tools } });
    try {
      const started = await Promise.all(
        Array.from({ length: 101 }, () => startRun(t, TOKENS.operator, { flowId: 'quick', input: 'x' })),
      );
      await Promise.all(started.map((id) => settled(t.runtime, id)));
      const listed = await list(t, TOKENS.viewer);
      expect(listed).toHaveLength(100);
      expect(await list(t, TOKENS.viewer, '?limit=101')).toHaveLength(101);
    } finally {
      await t.stop();
    }
  }, 60_000);
});

describe("a tenant's own flow shadows the shared one of its id", () => {
  let t: TestApp;
  beforeAll(async () => {
    const flowsDir = await tempDir(FLOW_FILES);
    // The upload names a scripted model: held to --scripted-models like any flow sent over HTTP.
    t = await openApp({
      flowsDir,
      runtime: { tools: ticketTools().tools },
      server: { scriptedModels: flowsDir },
    });
    await t.server.flows.registerText(
      'id: quick\nversion: 2\nlocale: en\nmodel: scripted:./turns/ask.yaml\nnodes:\n  - id: main\n    tools: [ticket_list]\n',
      '<upload>',
      'acme',
    );
  });
  afterAll(async () => {
    await t.stop();
  });

  it('starts the tenant’s flow for its tokens and the shared one for every other token', async () => {
    const acme = await startRun(t, TOKENS.tenantA, { flowId: 'quick', input: 'x' });
    const globex = await startRun(t, TOKENS.tenantB, { flowId: 'quick', input: 'x' });
    const shared = await startRun(t, TOKENS.operator, { flowId: 'quick', input: 'x' });
    await reached(t.runtime, acme, 'run.suspended');
    await Promise.all([settled(t.runtime, globex), settled(t.runtime, shared)]);
    expect((await t.runtime.status(acme)).status).toBe('suspended');
    expect((await t.runtime.status(globex)).status).toBe('completed');
    expect((await t.runtime.status(shared)).status).toBe('completed');
    expect((await (await t.runtime.db()).getRun(acme))?.flow.version).toBe(2);
    await t.call('POST', `/v1/runs/${acme}/cancel`, { token: TOKENS.tenantA });
  });
});

describe('once shutdown began', () => {
  let t: TestApp;
  let suspended: string;
  const shuttingDown = {
    status: 503,
    code: 'SHUTTING_DOWN',
    message: 'the server is shutting down; retry against another instance or later',
  };

  beforeAll(async () => {
    t = await openApp({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: ticketTools().tools } });
    suspended = await startRun(t, TOKENS.operator, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, suspended, 'run.suspended');
    expect(await t.server.close()).toBe(0);
  });
  afterAll(async () => {
    await t.stop();
  });

  it('refuses starts, responses and cancels with 503 SHUTTING_DOWN and Connection: close', async () => {
    const op = TOKENS.operator;
    const requests: [string, unknown][] = [
      ['/v1/runs', { flowId: 'quick', input: 'x' }],
      [`/v1/runs/${suspended}/answer`, { text: 'A4' }],
      [`/v1/runs/${suspended}/approval`, { decision: 'reject' }],
      [`/v1/runs/${suspended}/cancel`, undefined],
      ['/v1/threads/T1/messages', { flowId: 'quick', input: 'x' }],
    ];
    for (const [path, json] of requests) {
      const response = await t.call('POST', path, { token: op, json });
      expect(response.headers.get('connection'), path).toBe('close');
      expect(await errorOf(response), path).toEqual(shuttingDown);
    }
    expect((await t.runtime.status(suspended)).status).toBe('suspended');
    expect(await t.runtime.list({})).toHaveLength(1);
  });

  it('says so before looking the run up, but still checks the body first', async () => {
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs/run_unknown/answer', { token: TOKENS.operator, json: { text: 'x' } }),
      ),
    ).toEqual(shuttingDown);
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs/run_unknown/answer', { token: TOKENS.operator, json: { txt: 'x' } }),
      ),
    ).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it('does not remember a refused request under its Idempotency-Key', async () => {
    const send = () =>
      t.call('POST', `/v1/runs/${suspended}/cancel`, {
        token: TOKENS.operator,
        headers: { 'idempotency-key': 'during-shutdown' },
      });
    expect((await send()).status).toBe(503);
    const again = await send();
    expect(again.status).toBe(503);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('still serves reads; /healthz says it is closing', async () => {
    const run = await t.call('GET', `/v1/runs/${suspended}`, { token: TOKENS.viewer });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ runId: suspended, status: 'suspended' });
    expect((await list(t, TOKENS.viewer)).map((r) => r.runId)).toEqual([suspended]);
    const health = await t.call('GET', '/healthz');
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ ok: true, closing: true });
  });
});
