import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, reached, settled, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/** Every error status of the HTTP API with its `{error: {code, message}}` body. */

let t: TestApp;
const tools = ticketTools();

beforeAll(async () => {
  t = await openApp({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: tools.tools } });
});
afterAll(async () => {
  await t.stop();
});

async function errorOf(
  response: Response,
): Promise<{ status: number; code: string; message: string; problems?: string[] }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string; problems?: string[] } };
  expect(typeof body.error.message).toBe('string');
  return { status: response.status, ...body.error };
}

const op = TOKENS.operator;

describe('400 bad input', () => {
  it('rejects malformed and invalid bodies', async () => {
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs', {
          token: op,
          body: '{not json',
          headers: { 'content-type': 'application/json' },
        }),
      ),
    ).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs', {
          token: op,
          body: 'flowId=tickets',
          headers: { 'content-type': 'text/plain' },
        }),
      ),
    ).toMatchObject({ status: 400 });
    const unknownKey = await errorOf(
      await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'tickets', input: 'x', priority: 1 } }),
    );
    expect(unknownKey).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(unknownKey.problems?.join('\n')).toMatch(/priority/);
    expect(
      await errorOf(await t.call('POST', '/v1/runs', { token: op, json: { input: 'x' } })),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/flowId/) });
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs/run_x/approval', { token: op, json: { decision: 'maybe' } }),
      ),
    ).toMatchObject({ status: 400 });
    expect(
      await errorOf(await t.call('POST', '/v1/runs/run_x/answer', { token: op, json: {} })),
    ).toMatchObject({ status: 400 });
    expect(await errorOf(await t.call('GET', '/v1/runs?status=sleeping', { token: op }))).toMatchObject({
      status: 400,
    });
    expect(await errorOf(await t.call('GET', '/v1/runs/run_x/events?after=-1', { token: op }))).toMatchObject(
      { status: 400 },
    );
    expect(
      await errorOf(
        await t.call('GET', '/v1/runs/run_x/events', { token: op, headers: { 'last-event-id': 'abc' } }),
      ),
    ).toMatchObject({ status: 400 });
  });

  it("rejects a run input that does not match the flow's input schema, naming the field", async () => {
    const bad = await errorOf(
      await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'tickets', input: { subject: 'x' } } }),
    );
    expect(bad).toMatchObject({ status: 400, code: 'INPUT_INVALID' });
    expect(bad.problems?.join('\n')).toMatch(/text/);
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs', {
          token: op,
          json: { flowId: 'tickets', input: 'x', model: 'nonsense' },
        }),
      ),
    ).toMatchObject({ status: 400 });
  });

  it('rejects an invalid flow upload or inline flow with every problem', async () => {
    const yaml = 'id: broken\nnodes:\n  - id: a\n    tools: [x]\nedges:\n  - { from: a, to: nowhere }\n';
    const upload = await errorOf(
      await t.call('POST', '/v1/flows', {
        token: TOKENS.admin,
        body: yaml,
        headers: { 'content-type': 'application/yaml' },
      }),
    );
    expect(upload).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    expect(upload.problems?.join('\n')).toMatch(/nowhere/);
    const inline = await errorOf(
      await t.call('POST', '/v1/runs', {
        token: TOKENS.admin,
        json: { flow: { id: 'x', nodes: [], extra: 1 } },
      }),
    );
    expect(inline).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    expect(
      await errorOf(
        await t.call('POST', '/v1/flows', {
          token: TOKENS.admin,
          body: 'id: x',
          headers: { 'content-type': 'text/html' },
        }),
      ),
    ).toMatchObject({ status: 400 });
  });
});

describe('404', () => {
  it('answers unknown runs, flows and routes', async () => {
    expect(await errorOf(await t.call('GET', '/v1/runs/run_nope', { token: op }))).toMatchObject({
      status: 404,
      code: 'RUN_NOT_FOUND',
    });
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs/run_nope/approval', { token: op, json: { decision: 'approve' } }),
      ),
    ).toMatchObject({ status: 404 });
    expect(
      await errorOf(await t.call('POST', '/v1/runs/run_nope/answer', { token: op, json: { text: 'x' } })),
    ).toMatchObject({ status: 404 });
    expect(await errorOf(await t.call('POST', '/v1/runs/run_nope/cancel', { token: op }))).toMatchObject({
      status: 404,
    });
    expect(await errorOf(await t.call('GET', '/v1/runs/run_nope/events', { token: op }))).toMatchObject({
      status: 404,
    });
    expect(
      await errorOf(await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'nope', input: 'x' } })),
    ).toMatchObject({ status: 404, code: 'FLOW_NOT_FOUND' });
    expect(await errorOf(await t.call('GET', '/v1/nothing', { token: op }))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
    });
  });
});

describe('409 wrong state', () => {
  it('refuses input the run is not waiting for, and changes nothing', async () => {
    const runId = await startRun(t, op, { flowId: 'tickets', input: 'printer' });
    await reached(t.runtime, runId, 'run.suspended');
    const before = await (await t.runtime.db()).getRun(runId);
    const answer = await errorOf(
      await t.call('POST', `/v1/runs/${runId}/answer`, { token: op, json: { text: 'yes' } }),
    );
    expect(answer).toMatchObject({
      status: 409,
      code: 'CONFLICT',
      message: expect.stringMatching(/waits for an approval/),
    });
    expect((await (await t.runtime.db()).getRun(runId))?.version).toBe(before?.version);

    expect(
      (await t.call('POST', `/v1/runs/${runId}/approval`, { token: op, json: { decision: 'approve' } }))
        .status,
    ).toBe(200);
    await settled(t.runtime, runId);
    expect(
      await errorOf(
        await t.call('POST', `/v1/runs/${runId}/approval`, { token: op, json: { decision: 'approve' } }),
      ),
    ).toMatchObject({ status: 409 });
    expect(await errorOf(await t.call('POST', `/v1/runs/${runId}/cancel`, { token: op }))).toMatchObject({
      status: 409,
      message: expect.stringMatching(/already ended/),
    });
    expect(tools.created).toEqual(['printer']);
  });

  it('cancels a suspended run once', async () => {
    const runId = await startRun(t, op, { flowId: 'ask', input: 'printer' });
    await reached(t.runtime, runId, 'run.suspended');
    const cancelled = await t.call('POST', `/v1/runs/${runId}/cancel`, { token: op });
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as { status: string }).status).toBe('cancelled');
    expect(
      (await t.call('POST', `/v1/runs/${runId}/answer`, { token: op, json: { text: 'A4' } })).status,
    ).toBe(409);
  });
});
