import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openEvents, reached, startRun, startServer, tempDir, type TestServer } from './helpers.js';

/** Roles and tenants: who may read, act, and see which runs. */

let t: TestServer;
const tools = ticketTools();

beforeAll(async () => {
  const flowsDir = await tempDir(FLOW_FILES);
  // Inline flows below name a scripted model: requests may do so only inside --scripted-models.
  t = await startServer({ flowsDir, runtime: { tools: tools.tools }, server: { scriptedModels: flowsDir } });
});
afterAll(async () => {
  await t.stop();
});

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, ...body.error };
}

describe('authentication', () => {
  it('tells a token who it is (GET /v1/me)', async () => {
    expect(await (await t.call('GET', '/v1/me', { token: TOKENS.viewerA })).json()).toEqual({
      name: 'ann',
      role: 'viewer',
      tenant: 'acme',
    });
    expect(await (await t.call('GET', '/v1/me', { token: TOKENS.admin })).json()).toEqual({
      name: 'root',
      role: 'admin',
      tenant: null,
    });
    expect((await t.call('GET', '/v1/me')).status).toBe(401);
  });

  it('answers 401 without a token or with an unknown one, with WWW-Authenticate', async () => {
    const none = await t.call('GET', '/v1/runs');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(await errorOf(none)).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    expect(await errorOf(await t.call('GET', '/v1/runs', { token: 'not-a-configured-token' }))).toMatchObject(
      { status: 401 },
    );
    expect(
      await errorOf(await t.call('GET', '/v1/runs', { headers: { authorization: `Basic ${TOKENS.admin}` } })),
    ).toMatchObject({ status: 401 });
    expect((await openEvents(t.url, 'run_x')).status).toBe(401);
    expect((await t.call('GET', '/v1/openapi.json')).status).toBe(401);
  });
});

describe('roles', () => {
  it('lets a viewer read runs, events, flows and the OpenAPI document, and nothing else', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'tickets', input: 'printer broken' });
    await reached(t.runtime, runId, 'run.suspended');
    for (const path of ['/v1/runs', `/v1/runs/${runId}`, '/v1/flows', '/v1/openapi.json']) {
      expect((await t.call('GET', path, { token: TOKENS.viewer })).status).toBe(200);
    }
    const stream = await openEvents(t.url, runId, { token: TOKENS.viewer, after: 0 });
    expect(stream.status).toBe(200);
    stream.close();

    const approve = await t.call('POST', `/v1/runs/${runId}/approval`, {
      token: TOKENS.viewer,
      json: { decision: 'approve' },
    });
    expect(await errorOf(approve)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(
      (await t.call('POST', `/v1/runs/${runId}/answer`, { token: TOKENS.viewer, json: { text: 'x' } }))
        .status,
    ).toBe(403);
    expect((await t.call('POST', `/v1/runs/${runId}/cancel`, { token: TOKENS.viewer })).status).toBe(403);
    expect(
      (await t.call('POST', '/v1/runs', { token: TOKENS.viewer, json: { flowId: 'tickets', input: 'x' } }))
        .status,
    ).toBe(403);
    expect(
      (await t.call('GET', `/v1/runs/${runId}`, { token: TOKENS.viewer }).then((r) => r.json())) as object,
    ).toMatchObject({ status: 'suspended' });
    expect(tools.created).toEqual([]);

    const ok = await t.call('POST', `/v1/runs/${runId}/approval`, {
      token: TOKENS.operator,
      json: { decision: 'approve' },
    });
    expect(ok.status).toBe(200);
  });

  it('keeps inline flows and flow uploads for admins', async () => {
    const inline = {
      id: 'inline',
      locale: 'en',
      model: 'scripted:./turns/quick.yaml',
      nodes: [{ id: 'main', tools: ['ticket_list'] }],
    };
    const byOperator = await t.call('POST', '/v1/runs', {
      token: TOKENS.operator,
      json: { flow: inline, input: 'x' },
    });
    expect(await errorOf(byOperator)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    const upload = await t.call('POST', '/v1/flows', {
      token: TOKENS.operator,
      body: 'id: up\nnodes: [{ id: a }]\n',
      headers: { 'content-type': 'application/yaml' },
    });
    expect(upload.status).toBe(403);

    const byAdmin = await t.call('POST', '/v1/runs', {
      token: TOKENS.admin,
      json: { flow: inline, input: 'x' },
    });
    expect(byAdmin.status).toBe(201);
  });
});

describe('tenants', () => {
  it("hides and protects one tenant's runs from another (404), and tags runs with the token's tenant", async () => {
    const runB = await startRun(t, TOKENS.tenantB, { flowId: 'tickets', input: 'printer' });
    await reached(t.runtime, runB, 'run.suspended');
    expect((await (await t.runtime.db()).getRun(runB))?.tenant).toBe('globex');

    for (const token of [TOKENS.tenantA, TOKENS.viewerA]) {
      expect(await errorOf(await t.call('GET', `/v1/runs/${runB}`, { token }))).toMatchObject({
        status: 404,
        code: 'RUN_NOT_FOUND',
        message: `unknown run id ${runB}`,
      });
      expect((await openEvents(t.url, runB, { token })).status).toBe(404);
      const listed = (await (await t.call('GET', '/v1/runs', { token })).json()) as { runId: string }[];
      expect(listed.map((r) => r.runId)).not.toContain(runB);
    }
    const approveA = await t.call('POST', `/v1/runs/${runB}/approval`, {
      token: TOKENS.tenantA,
      json: { decision: 'approve' },
    });
    expect(await errorOf(approveA)).toMatchObject({ status: 404, code: 'RUN_NOT_FOUND' });
    expect((await t.call('POST', `/v1/runs/${runB}/cancel`, { token: TOKENS.tenantA })).status).toBe(404);
    expect(
      (await t.call('GET', `/v1/runs/${runB}`, { token: TOKENS.tenantB }).then((r) => r.json())) as object,
    ).toMatchObject({ status: 'suspended' });

    // a token without tenant sees every tenant's runs
    expect((await t.call('GET', `/v1/runs/${runB}`, { token: TOKENS.viewer })).status).toBe(200);
    const listedB = (await (await t.call('GET', '/v1/runs', { token: TOKENS.tenantB })).json()) as {
      runId: string;
    }[];
    expect(listedB.map((r) => r.runId)).toEqual([runB]);

    const approveB = await t.call('POST', `/v1/runs/${runB}/approval`, {
      token: TOKENS.tenantB,
      json: { decision: 'reject', comment: 'not now' },
    });
    expect(approveB.status).toBe(200);
  });
});
