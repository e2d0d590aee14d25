import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openApp, reached, settled, startRun, tempDir, type TestApp } from './helpers.js';

/**
 * Connect's refusals (src/server/connect-routes.ts) answered in process, with no authorization server:
 * the optional body of `POST /v1/runs/{id}/authorization` and its 400s, the run that waits for no
 * authorization (409 naming its status), roles and tenants, and the callback's refusals (no state,
 * unknown state, checked before `error`; no bearer token needed). connect.test.ts drives the whole
 * flow against a real OAuth server; this pins the bodies of what it only counts.
 */

let t: TestApp;
let asking: string;
let approving: string;

beforeAll(async () => {
  t = await openApp({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: ticketTools().tools } });
  asking = await startRun(t, TOKENS.operator, { flowId: 'ask', input: 'x' });
  approving = await startRun(t, TOKENS.operator, { flowId: 'tickets', input: 'printer' });
  await Promise.all([
    reached(t.runtime, asking, 'run.suspended'),
    reached(t.runtime, approving, 'run.suspended'),
  ]);
});
afterAll(async () => {
  await t.stop();
});

async function errorOf(
  response: Response,
): Promise<{ status: number; code: string; message: string; problems?: string[] }> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: { code: string; message: string; problems?: string[] } };
  return { status: response.status, ...body.error };
}

function authorize(runId: string, options: { body?: string; json?: unknown; token?: string } = {}) {
  const { token = TOKENS.operator, ...rest } = options;
  const headers: Record<string, string> =
    rest.body !== undefined ? { 'content-type': 'application/json' } : {};
  return t.call('POST', `/v1/runs/${runId}/authorization`, { token, headers, ...rest });
}

describe('POST /v1/runs/{id}/authorization', () => {
  it('refuses a run that waits for an answer or an approval, naming its status; nothing changes', async () => {
    for (const runId of [asking, approving]) {
      const version = (await (await t.runtime.db()).getRun(runId))?.version;
      expect(await errorOf(await authorize(runId)), runId).toEqual({
        status: 409,
        code: 'CONFLICT',
        message: `run ${runId} is suspended; it is not waiting for an MCP server's authorization`,
      });
      expect((await (await t.runtime.db()).getRun(runId))?.version).toBe(version);
    }
  });

  it('refuses an ended run the same way', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, runId);
    expect(await errorOf(await authorize(runId, { json: {} }))).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: `run ${runId} is completed; it is not waiting for an MCP server's authorization`,
    });
  });

  it('takes no body, {} or an expect: the run that waits for no authorization is still the 409', async () => {
    for (const options of [{}, { json: {} }, { json: { expect: 'pnd_x' } }]) {
      expect((await errorOf(await authorize(asking, options))).status, JSON.stringify(options)).toBe(409);
    }
  });

  it('takes an empty or blank body sent with Content-Type: application/json as no body (like retry)', async () => {
    for (const body of ['', '  \n']) {
      expect((await errorOf(await authorize(asking, { body }))).status, JSON.stringify(body)).toBe(409);
    }
  });

  it('refuses a body that is not JSON, or not {expect?}, with 400 before looking the run up', async () => {
    for (const runId of [asking, 'run_unknown']) {
      expect(await errorOf(await authorize(runId, { body: '{expect:' }))).toEqual({
        status: 400,
        code: 'BAD_REQUEST',
        message: 'Malformed JSON in request body',
      });
      expect(await errorOf(await authorize(runId, { json: { expect: 'pnd_1', server: 'wiki' } }))).toEqual({
        status: 400,
        code: 'BAD_REQUEST',
        message: 'invalid request body: body: Unrecognized key: "server"',
        problems: ['body: Unrecognized key: "server"'],
      });
    }
    for (const json of [{ expect: '' }, [], 'x', 3, null]) {
      const refused = await errorOf(await authorize(asking, { json }));
      expect(refused, JSON.stringify(json)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      expect(refused.message, JSON.stringify(json)).toMatch(/^invalid request body: body/);
    }
    expect(
      await errorOf(
        await t.call('POST', `/v1/runs/${asking}/authorization`, {
          token: TOKENS.operator,
          body: '{}',
          headers: { 'content-type': 'text/plain' },
        }),
      ),
    ).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'unsupported Content-Type; send application/json',
    });
  });

  it('is 404 for an unknown run and for a run of another tenant, with the same message', async () => {
    expect(await errorOf(await authorize('run_unknown'))).toEqual({
      status: 404,
      code: 'RUN_NOT_FOUND',
      message: 'unknown run id run_unknown',
    });
    expect(await errorOf(await authorize(asking, { token: TOKENS.tenantA }))).toEqual({
      status: 404,
      code: 'RUN_NOT_FOUND',
      message: `unknown run id ${asking}`,
    });
  });

  it('needs an operator token', async () => {
    expect(await errorOf(await authorize(asking, { token: TOKENS.viewer }))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: 'token victor has role viewer; this needs operator',
    });
    expect((await t.call('POST', `/v1/runs/${asking}/authorization`)).status).toBe(401);
  });
});

describe('GET /v1/oauth/callback', () => {
  const callback = (query: string) => t.call('GET', `/v1/oauth/callback${query}`);

  it('needs no bearer token, and refuses a callback without state', async () => {
    for (const query of ['', '?code=abc', '?error=access_denied']) {
      expect(await errorOf(await callback(query)), query).toEqual({
        status: 400,
        code: 'BAD_REQUEST',
        message: 'the callback has no `state`',
      });
    }
  });

  it('refuses an unknown state before looking at code or error, and an empty one alike', async () => {
    const unknown = {
      status: 400,
      code: 'BAD_REQUEST',
      message: 'unknown or already used `state`: start the authorization again (Connect)',
    };
    for (const query of [
      '?state=forged&code=abc',
      '?state=forged',
      '?state=forged&error=access_denied&error_description=no',
      '?state=&code=abc',
    ]) {
      expect(await errorOf(await callback(query)), query).toEqual(unknown);
    }
    // A bearer token changes nothing: the state is what ties a callback to an authorization.
    expect(
      await errorOf(await t.call('GET', '/v1/oauth/callback?state=forged&code=x', { token: TOKENS.admin })),
    ).toEqual(unknown);
  });

  it('leaves the runs as they were', async () => {
    await callback('?state=forged&code=abc');
    expect(await t.runtime.status(asking)).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'FOLLOW_UP' },
    });
  });
});

describe('after shutdown began', () => {
  it('both routes answer 503 SHUTTING_DOWN', async () => {
    const local = await openApp({
      flowsDir: await tempDir(FLOW_FILES),
      runtime: { tools: ticketTools().tools },
    });
    try {
      const runId = await startRun(local, TOKENS.operator, { flowId: 'ask', input: 'x' });
      await reached(local.runtime, runId, 'run.suspended');
      await local.server.close();
      const expected = {
        status: 503,
        code: 'SHUTTING_DOWN',
        message: 'the server is shutting down; retry against another instance or later',
      };
      expect(
        await errorOf(
          await local.call('POST', `/v1/runs/${runId}/authorization`, { token: TOKENS.operator }),
        ),
      ).toEqual(expected);
      expect(await errorOf(await local.call('GET', '/v1/oauth/callback?state=s&code=c'))).toEqual(expected);
    } finally {
      await local.stop();
    }
  });
});
