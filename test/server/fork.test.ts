import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, settled, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/** `POST /v1/runs/{id}/fork`: an operator starts a new run continuing from an event of a run. */

const FLOW = `id: forking
version: 1
model: scripted:./turns.yaml
nodes:
  - id: only
    instructions: Finish when you can.
`;

// Round 1 calls a tool the node does not have (REJECTED, the node goes on to round 2): a fork point.
const TURNS = `turns:
  - { node: only, calls: [{ tool: nope, args: {} }] }
  - { node: only, calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

let t: TestApp;
beforeAll(async () => {
  t = await openApp({
    flowsDir: await tempDir({ 'forking/flow.yaml': FLOW, 'forking/turns.yaml': TURNS }),
  });
});
afterAll(async () => {
  await t.stop();
});

describe('POST /v1/runs/{id}/fork', () => {
  it('starts the fork for an operator, refuses a viewer (403), an event that is no fork point (400), an unknown run (404)', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'forking', input: 'go' });
    await settled(t.runtime, runId);
    const events = [];
    for await (const e of t.runtime.events(runId, { follow: false })) events.push(e);
    const at = events.find((e) => e.type === 'tool.invoked' && e.tool === 'nope')!.seq;

    const viewer = await t.call('POST', `/v1/runs/${runId}/fork`, { token: TOKENS.viewer, json: { at } });
    expect(viewer.status).toBe(403);
    const forked = await t.call('POST', `/v1/runs/${runId}/fork`, { token: TOKENS.operator, json: { at } });
    expect(forked.status).toBe(200);
    const body = (await forked.json()) as { runId: string; forkedFrom: unknown };
    expect(body).toMatchObject({ forkedFrom: { runId, seq: at } });
    expect(body.runId).not.toBe(runId);
    await settled(t.runtime, body.runId);
    expect(await t.runtime.status(body.runId)).toMatchObject({
      status: 'completed',
      forkedFrom: { runId, seq: at },
    });

    const bad = await t.call('POST', `/v1/runs/${runId}/fork`, { token: TOKENS.operator, json: { at: 1 } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { message: expect.stringContaining(`nearest: ${at}`) } });
    const unknown = await t.call('POST', '/v1/runs/run_nope/fork', { token: TOKENS.operator, json: { at } });
    expect(unknown.status).toBe(404);
  });

  it('continues with the registered flow when flowVersion names its version, and says which one is registered otherwise', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'forking', input: 'go' });
    await settled(t.runtime, runId);
    const events = [];
    for await (const e of t.runtime.events(runId, { follow: false })) events.push(e);
    const at = events.find((e) => e.type === 'tool.invoked' && e.tool === 'nope')!.seq;

    const wrong = await t.call('POST', `/v1/runs/${runId}/fork`, {
      token: TOKENS.operator,
      json: { at, flowVersion: '7' },
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({
      error: { message: 'flow forking is registered at version "1", not "7"' },
    });
    const right = await t.call('POST', `/v1/runs/${runId}/fork`, {
      token: TOKENS.operator,
      json: { at, flowVersion: '1' },
    });
    expect(right.status).toBe(200);
    const body = (await right.json()) as { runId: string };
    await settled(t.runtime, body.runId);
    expect(await t.runtime.status(body.runId)).toMatchObject({
      status: 'completed',
      forkedFrom: { runId, seq: at },
    });
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await (await t.call('GET', '/v1/openapi.json', { token: TOKENS.viewer })).json()) as {
      paths: Record<string, { post?: { responses: Record<string, unknown> } }>;
    };
    expect(Object.keys(doc.paths['/v1/runs/{id}/fork']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '403', '404']),
    );
  });
});
