import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openApp, reached, settled, startRun, tempDir, type TestApp } from './helpers.js';

/**
 * The run routes (src/server/runs-routes.ts) in process: the exact refusals of a start, the listing's
 * filters and bounds, responses naming the wrong item, idempotent repeats of cancel and start, and
 * tenants starting and acting on runs. What errors.test.ts, access.test.ts and idempotency.test.ts
 * already assert (status classes of each refusal) is not repeated here; these pin the bodies.
 */

let t: TestApp;
const tools = ticketTools();

beforeAll(async () => {
  t = await openApp({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: tools.tools } });
});
afterAll(async () => {
  await t.stop();
});

const op = TOKENS.operator;

interface ErrorBody {
  status: number;
  code: string;
  message: string;
  problems?: string[];
}

async function errorOf(response: Response): Promise<ErrorBody> {
  const body = (await response.json()) as { error: Omit<ErrorBody, 'status'> };
  return { status: response.status, ...body.error };
}

interface Summary {
  runId: string;
  status: string;
  flowId: string;
  suspension?: { kind: string; pending: { id?: string; tool?: string; question?: string } };
  reply: string | null;
}

async function json<T = Summary>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

async function suspendedRun(flowId: string, token: string = op): Promise<Summary> {
  const runId = await startRun(t, token, { flowId, input: 'printer' });
  await reached(t.runtime, runId, 'run.suspended');
  return t.runtime.status(runId);
}

async function versionOf(runId: string): Promise<number | undefined> {
  return (await (await t.runtime.db()).getRun(runId))?.version;
}

describe('POST /v1/runs refusals', () => {
  const exactlyOne = {
    status: 400,
    code: 'BAD_REQUEST',
    message: 'give exactly one of flowId (a registered flow) or flow (an inline flow)',
  };

  it('refuses both flowId and flow with the same 400 as neither, even from an admin', async () => {
    const inline = { id: 'inline', nodes: [{ id: 'n' }] };
    for (const token of [op, TOKENS.admin]) {
      expect(
        await errorOf(
          await t.call('POST', '/v1/runs', { token, json: { flowId: 'quick', flow: inline, input: 'x' } }),
        ),
      ).toEqual(exactlyOne);
      expect(await errorOf(await t.call('POST', '/v1/runs', { token, json: {} }))).toEqual(exactlyOne);
    }
  });

  it("names the token and the role an inline flow needs, for a tenant's operator too", async () => {
    const inline = { id: 'inline', nodes: [{ id: 'n' }] };
    expect(await errorOf(await t.call('POST', '/v1/runs', { token: op, json: { flow: inline } }))).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: 'token olivia may start registered flows only; an inline flow needs role admin',
    });
    expect(
      await errorOf(await t.call('POST', '/v1/runs', { token: TOKENS.tenantA, json: { flow: inline } })),
    ).toEqual({
      status: 403,
      code: 'FORBIDDEN',
      message: 'token alice may start registered flows only; an inline flow needs role admin',
    });
  });

  it('names an unknown flow id and where to find the known ones', async () => {
    expect(
      await errorOf(await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'no-such-flow' } })),
    ).toEqual({
      status: 404,
      code: 'FLOW_NOT_FOUND',
      message: 'unknown flow id no-such-flow (GET /v1/flows lists them)',
    });
  });

  it("an absent input is {}: refused by a flow that requires text, with the flow's id and the field", async () => {
    const refused = await errorOf(
      await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'tickets' } }),
    );
    expect(refused).toMatchObject({
      status: 400,
      code: 'INPUT_INVALID',
      message: 'the input does not match the input schema of flow "tickets"',
    });
    expect(refused.problems).toHaveLength(1);
    expect(refused.problems?.[0]).toMatch(/text/);
    // A string is {text}: the same flow takes it.
    const started = await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'tickets', input: 'x' } });
    expect(started.status).toBe(201);
    const { runId } = await json(started);
    await t.call('POST', `/v1/runs/${runId}/cancel`, { token: op });
  });

  it('refuses an input that is neither a string nor an object, naming body.input', async () => {
    for (const input of [3, ['a'], null, true]) {
      const refused = await errorOf(
        await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'quick', input } }),
      );
      expect(refused, JSON.stringify(input)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      expect(
        refused.problems?.every((p) => p.startsWith('body.input: ')),
        JSON.stringify(input),
      ).toBe(true);
    }
  });

  it('refuses a model that is not provider:model, and a scripted one without --scripted-models, naming `model`', async () => {
    const badName = await errorOf(
      await t.call('POST', '/v1/runs', {
        token: op,
        json: { flowId: 'quick', input: 'x', model: 'nonsense' },
      }),
    );
    expect(badName).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(badName.message).toMatch(/^model: /);
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs', {
          token: op,
          json: { flowId: 'quick', input: 'x', model: 'scripted:./turns/quick.yaml' },
        }),
      ),
    ).toEqual({
      status: 400,
      code: 'BAD_REQUEST',
      message:
        'model: scripted models are not accepted from requests; name a provider model (e.g. openai:gpt-4.1), or start the server with --scripted-models DIR',
    });
    expect(
      await errorOf(await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'quick', model: '' } })),
    ).toMatchObject({ status: 400, problems: [expect.stringMatching(/^body\.model: /)] });
    // The input is checked first: a bad input and a bad model answer the input's refusal.
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'quick', model: 'nonsense' } }),
      ),
    ).toMatchObject({ status: 400, code: 'INPUT_INVALID' });
  });

  it('creates nothing when it refuses', async () => {
    const before = (await t.runtime.list({})).length;
    await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'tickets', input: { subject: 'x' } } });
    await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'quick', model: 'nonsense' } });
    await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'nope' } });
    expect((await t.runtime.list({})).length).toBe(before);
  });

  it('answers 201 with the summary of a running run, its Location, flow and who started it', async () => {
    const started = await t.call('POST', '/v1/runs', { token: op, json: { flowId: 'quick', input: 'x' } });
    expect(started.status).toBe(201);
    const body = await json(started);
    expect(body).toMatchObject({ status: 'running', flowId: 'quick', reply: null, outputs: {} });
    expect(started.headers.get('location')).toBe(`/v1/runs/${body.runId}`);
    await settled(t.runtime, body.runId);
    const record = await (await t.runtime.db()).getRun(body.runId);
    expect(record?.tenant).toBeNull();
    expect(record?.state.run.startedBy).toBe('olivia');
  });
});

describe('responses naming the wrong item or kind', () => {
  it('refuses args with a rejection before looking at the run (400 even for an unknown run)', async () => {
    const expected = {
      status: 400,
      code: 'BAD_REQUEST',
      message: 'args edit the call on approval; expected decision: approve',
    };
    expect(
      await errorOf(
        await t.call('POST', '/v1/runs/run_unknown/approval', {
          token: op,
          json: { decision: 'reject', args: { title: 'x' } },
        }),
      ),
    ).toEqual(expected);
    const run = await suspendedRun('tickets');
    const version = await versionOf(run.runId);
    expect(
      await errorOf(
        await t.call('POST', `/v1/runs/${run.runId}/approval`, {
          token: op,
          json: { decision: 'reject', args: { title: 'x' } },
        }),
      ),
    ).toEqual(expected);
    expect(await versionOf(run.runId)).toBe(version);
    await t.call('POST', `/v1/runs/${run.runId}/cancel`, { token: op });
  });

  it('an approval whose expect names another item is 409 naming both, and nothing changes', async () => {
    const run = await suspendedRun('tickets');
    const pendingId = run.suspension?.pending.id as string;
    expect(pendingId).toMatch(/^pnd_[0-9a-f]{16}$/);
    const version = await versionOf(run.runId);
    expect(
      await errorOf(
        await t.call('POST', `/v1/runs/${run.runId}/approval`, {
          token: op,
          json: { decision: 'approve', expect: 'pnd_0000000000000000' },
        }),
      ),
    ).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: `run ${run.runId} waits for pending item ${pendingId}, not for pnd_0000000000000000 (nothing changed)`,
    });
    expect(await versionOf(run.runId)).toBe(version);
    const created = tools.created.length;
    const ok = await t.call('POST', `/v1/runs/${run.runId}/approval`, {
      token: op,
      json: { decision: 'approve', expect: pendingId },
    });
    expect(ok.status).toBe(200);
    await settled(t.runtime, run.runId);
    expect(tools.created.length).toBe(created + 1);
  });

  it('an answer whose expect names another item is 409, and the right one continues the run', async () => {
    const run = await suspendedRun('ask');
    const pendingId = run.suspension?.pending.id as string;
    expect(
      await errorOf(
        await t.call('POST', `/v1/runs/${run.runId}/answer`, {
          token: op,
          json: { text: 'A4', expect: 'pnd_ffffffffffffffff' },
        }),
      ),
    ).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: `run ${run.runId} waits for pending item ${pendingId}, not for pnd_ffffffffffffffff (nothing changed)`,
    });
    const ok = await t.call('POST', `/v1/runs/${run.runId}/answer`, {
      token: op,
      json: { text: 'A4', expect: pendingId },
    });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({ runId: run.runId, status: 'running' });
    await settled(t.runtime, run.runId);
    expect((await t.runtime.status(run.runId)).status).toBe('completed');
  });

  it('an approval of a run that waits for an answer is 409 saying what it waits for', async () => {
    const run = await suspendedRun('ask');
    expect(
      await errorOf(
        await t.call('POST', `/v1/runs/${run.runId}/approval`, { token: op, json: { decision: 'approve' } }),
      ),
    ).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: `run ${run.runId} waits for an answer, not for an approval (nothing changed)`,
    });
    await t.call('POST', `/v1/runs/${run.runId}/cancel`, { token: op });
  });

  it("decline or cancel of a model's question is 400 naming the run, and the question stays", async () => {
    const run = await suspendedRun('ask');
    for (const action of ['decline', 'cancel'] as const) {
      expect(
        await errorOf(await t.call('POST', `/v1/runs/${run.runId}/answer`, { token: op, json: { action } })),
      ).toEqual({
        status: 400,
        code: 'BAD_REQUEST',
        message: `run ${run.runId} waits for an answer to the model's question; ${action} only answers an MCP server's question`,
      });
    }
    expect(await t.runtime.status(run.runId)).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'FOLLOW_UP' },
    });
    await t.call('POST', `/v1/runs/${run.runId}/cancel`, { token: op });
  });

  it('an answer or approval to a run that ended says it ended', async () => {
    const runId = await startRun(t, op, { flowId: 'quick', input: 'x' });
    await settled(t.runtime, runId);
    expect(
      await errorOf(await t.call('POST', `/v1/runs/${runId}/answer`, { token: op, json: { text: 'x' } })),
    ).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: `run ${runId} is completed; it is not waiting for an answer (nothing changed)`,
    });
    expect(
      await errorOf(
        await t.call('POST', `/v1/runs/${runId}/approval`, { token: op, json: { decision: 'reject' } }),
      ),
    ).toEqual({
      status: 409,
      code: 'CONFLICT',
      message: `run ${runId} is completed; it is not waiting for an approval (nothing changed)`,
    });
  });
});

describe('cancel', () => {
  it('a repeated cancel with the same Idempotency-Key gets the first answer; without it, 409', async () => {
    const run = await suspendedRun('ask');
    const send = (headers: Record<string, string> = {}) =>
      t.call('POST', `/v1/runs/${run.runId}/cancel`, { token: op, headers });
    const first = await send({ 'idempotency-key': 'cancel-1' });
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstBody = await json(first);
    expect(firstBody).toMatchObject({ runId: run.runId, status: 'cancelled' });
    const again = await send({ 'idempotency-key': 'cancel-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again)).toEqual(firstBody);
    const plain = await errorOf(await send());
    expect(plain).toMatchObject({ status: 409, code: 'CONFLICT' });
    // Another token's retry with the key is its own request: the run has ended for it.
    expect(
      (
        await t.call('POST', `/v1/runs/${run.runId}/cancel`, {
          token: TOKENS.admin,
          headers: { 'idempotency-key': 'cancel-1' },
        })
      ).status,
    ).toBe(409);
  });

  it('a key used on one run is a new request on another run (the scope is the route)', async () => {
    const a = await suspendedRun('ask');
    const b = await suspendedRun('ask');
    const headers = { 'idempotency-key': 'same-key-two-runs' };
    const first = await t.call('POST', `/v1/runs/${a.runId}/cancel`, { token: op, headers });
    const second = await t.call('POST', `/v1/runs/${b.runId}/cancel`, { token: op, headers });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect((await json(second)).runId).toBe(b.runId);
    expect((await t.runtime.status(b.runId)).status).toBe('cancelled');
  });

  it('a refused cancel is not remembered: a key that met a 404 works once the id is right', async () => {
    const headers = { 'idempotency-key': 'cancel-404' };
    expect((await t.call('POST', '/v1/runs/run_missing/cancel', { token: op, headers })).status).toBe(404);
    expect((await t.call('POST', '/v1/runs/run_missing/cancel', { token: op, headers })).status).toBe(404);
  });

  it('refuses a malformed Idempotency-Key before doing anything', async () => {
    const run = await suspendedRun('ask');
    for (const key of ['has space', 'é', 'k'.repeat(256)]) {
      expect(
        await errorOf(
          await t.call('POST', `/v1/runs/${run.runId}/cancel`, {
            token: op,
            headers: { 'idempotency-key': key },
          }),
        ),
        key,
      ).toEqual({
        status: 400,
        code: 'BAD_REQUEST',
        message: 'Idempotency-Key must be 1 to 255 visible ASCII characters',
      });
    }
    expect((await t.runtime.status(run.runId)).status).toBe('suspended');
    const longest = await t.call('POST', `/v1/runs/${run.runId}/cancel`, {
      token: op,
      headers: { 'idempotency-key': 'k'.repeat(255) },
    });
    expect(longest.status).toBe(200);
  });
});

describe('idempotent starts', () => {
  it('a start refused for its input is not remembered: the same key with a fixed body starts the run', async () => {
    const headers = { 'idempotency-key': 'start-fixed' };
    const refused = await t.call('POST', '/v1/runs', {
      token: op,
      json: { flowId: 'tickets', input: { subject: 'x' } },
      headers,
    });
    expect(refused.status).toBe(400);
    const fixed = await t.call('POST', '/v1/runs', {
      token: op,
      json: { flowId: 'tickets', input: 'printer' },
      headers,
    });
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    const { runId } = await json(fixed);
    const replay = await t.call('POST', '/v1/runs', {
      token: op,
      json: { flowId: 'tickets', input: 'printer' },
      headers,
    });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(`/v1/runs/${runId}`);
    expect((await json(replay)).runId).toBe(runId);
    // The first answer, as it was: `running`, whatever the run did since.
    await reached(t.runtime, runId, 'run.suspended');
    const later = await t.call('POST', '/v1/runs', {
      token: op,
      json: { flowId: 'tickets', input: 'printer' },
      headers,
    });
    expect((await json(later)).status).toBe('running');
    await t.call('POST', `/v1/runs/${runId}/cancel`, { token: op });
  });

  it('the same key and body from two tenants’ tokens start two runs', async () => {
    const body = { flowId: 'quick', input: 'x' };
    const headers = { 'idempotency-key': 'tenant-scoped' };
    const a = await json(await t.call('POST', '/v1/runs', { token: TOKENS.tenantA, json: body, headers }));
    const b = await json(await t.call('POST', '/v1/runs', { token: TOKENS.tenantB, json: body, headers }));
    expect(a.runId).not.toBe(b.runId);
    await Promise.all([settled(t.runtime, a.runId), settled(t.runtime, b.runId)]);
  });
});
