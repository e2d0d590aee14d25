import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, settled, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/** `POST /v1/runs/{id}/retry`: an operator takes a failed run up again; 409 when it has not failed. */

const FLOW = `id: giving-up
version: 1
model: scripted:./turns.yaml
nodes:
  - id: only
    instructions: Finish when you can.
`;

const TURNS = `turns:
  - { node: only, calls: [{ tool: builtin_node_fail, args: { reason: not yet } }] }
  - { node: only, calls: [{ tool: builtin_node_finish, args: { summary: done now } }] }
`;

let t: TestApp;
beforeAll(async () => {
  t = await openApp({
    flowsDir: await tempDir({ 'giving-up/flow.yaml': FLOW, 'giving-up/turns.yaml': TURNS }),
  });
});
afterAll(async () => {
  await t.stop();
});

describe('POST /v1/runs/{id}/retry', () => {
  it('continues a failed run for an operator, refuses a viewer (403) and a run that is not failed (409)', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'giving-up', input: 'go' });
    await settled(t.runtime, runId);
    expect(await t.runtime.status(runId)).toMatchObject({ status: 'failed', reason: 'FAILED_BY_MODEL' });

    const viewer = await t.call('POST', `/v1/runs/${runId}/retry`, { token: TOKENS.viewer });
    expect(viewer.status).toBe(403);

    const retried = await t.call('POST', `/v1/runs/${runId}/retry`, { token: TOKENS.operator, json: {} });
    expect(retried.status).toBe(200);
    expect(await retried.json()).toMatchObject({ runId, status: 'running' });
    await settled(t.runtime, runId);
    expect(await t.runtime.status(runId)).toMatchObject({ status: 'completed' });
    const events = [];
    for await (const e of t.runtime.events(runId, { follow: false })) events.push(e);
    expect(events.filter((e) => e.type === 'run.retried')).toMatchObject([
      { nodeId: 'only', reason: 'FAILED_BY_MODEL', message: 'not yet', who: 'olivia' },
    ]);

    // The run's last event is traced before the request driving it lets go of the run (until then a
    // retry is refused as "already being continued", a 409 too): ask until it has, within a deadline.
    const deadline = Date.now() + 10_000;
    let again = await t.call('POST', `/v1/runs/${runId}/retry`, { token: TOKENS.operator });
    let body = (await again.json()) as { error?: { message?: string } };
    while (body.error?.message?.includes('already being continued') && Date.now() < deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      again = await t.call('POST', `/v1/runs/${runId}/retry`, { token: TOKENS.operator });
      body = (await again.json()) as { error?: { message?: string } };
    }
    expect(again.status).toBe(409);
    expect(body).toMatchObject({
      error: { message: expect.stringContaining('only a failed run can be retried') },
    });
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await t.call('GET', '/v1/openapi.json', { token: TOKENS.viewer })).json()) as {
      paths: Record<string, { post?: { responses: Record<string, unknown> } }>;
    };
    expect(Object.keys(doc.paths['/v1/runs/{id}/retry']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '403', '404', '409']),
    );
  });
});
