import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, reached, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/** `GET /v1/flows/{flowId}`: a flow's published interface (input schema, outputs with their schemas). */
const FLOW = `id: counter
version: 2
description: Counts things
locale: en
model: scripted:./turns.yaml
input: { type: object, properties: { text: { type: string }, limit: { type: integer } }, required: [text] }
nodes:
  - id: count
    instructions: Count.
    outputs:
      count: { required: true, sources: [model], schema: { type: integer, minimum: 0 } }
  - id: report
    outputs:
      text: { sources: [node, model] }
edges:
  - { from: count, to: report }
`;

const TURNS = `turns:
  - node: count
    calls:
      - { tool: builtin_output_set, args: { key: count, value: 3, sourceType: model } }
      - { tool: builtin_node_finish, args: { summary: counted } }
  - node: report
    calls:
      - { tool: builtin_output_set, args: { key: text, value: { lines: [three] }, sourceType: model } }
      - { tool: builtin_node_finish, args: { summary: reported } }
`;

let t: TestApp;
beforeAll(async () => {
  const flowsDir = await tempDir({ 'counter/flow.yaml': FLOW, 'counter/turns.yaml': TURNS });
  t = await openApp({ flowsDir, server: { scriptedModels: flowsDir } });
});
afterAll(async () => {
  await t.stop();
});

describe('GET /v1/flows/{flowId}', () => {
  it("answers a viewer with the flow's interface, without the server path", async () => {
    const res = await t.call('GET', '/v1/flows/counter', { token: TOKENS.viewer });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      flowId: 'counter',
      version: 2,
      description: 'Counts things',
      origin: 'dir',
      input: { type: 'object', required: ['text'] },
      nodes: [
        {
          id: 'count',
          outputs: { count: { required: true, sources: ['model'], schema: { type: 'integer', minimum: 0 } } },
        },
        { id: 'report', outputs: { text: { required: false, sources: ['node', 'model'] } } },
      ],
      outputsSchema: {
        type: 'object',
        properties: {
          count: { properties: { count: { type: 'integer', minimum: 0 } }, required: ['count'] },
          report: { properties: { text: {} }, required: [] },
        },
      },
    });
    expect(body).not.toHaveProperty('path');
    expect(body).not.toHaveProperty('mcpServers');
    // An instance admin sees where it was loaded from, as in GET /v1/flows.
    const admin = (await (await t.call('GET', '/v1/flows/counter', { token: TOKENS.admin })).json()) as {
      path?: string;
    };
    expect(admin.path).toMatch(/counter[/\\]flow\.yaml$/);
  });

  it('404 FLOW_NOT_FOUND for an unknown id, 401 without a token; the route is in the OpenAPI document', async () => {
    const missing = await t.call('GET', '/v1/flows/nope', { token: TOKENS.viewer });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('FLOW_NOT_FOUND');
    expect((await t.call('GET', '/v1/flows/counter')).status).toBe(401);
    const doc = (await (await t.call('GET', '/v1/openapi.json', { token: TOKENS.viewer })).json()) as {
      paths: Record<string, { get?: { responses: Record<string, unknown> } }>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    expect(Object.keys(doc.paths['/v1/flows/{flowId}']?.get?.responses ?? {}).sort()).toEqual([
      '200',
      '401',
      '404',
    ]);
    // FlowDetail extends FlowInfo (the generator may write it as an allOf).
    const detail = JSON.stringify(doc.components.schemas.FlowDetail ?? null);
    for (const field of ['input', 'nodes', 'outputsSchema', 'PublishedOutput'])
      expect(detail).toContain(field);
  });

  it('GET /v1/runs/{id} answers the typed values: a number stays a number, an object an object', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'counter', input: 'count' });
    await reached(t.runtime, runId, 'run.completed');
    const summary = (await (await t.call('GET', `/v1/runs/${runId}`, { token: TOKENS.viewer })).json()) as {
      outputs: Record<string, Record<string, unknown>>;
    };
    expect(summary.outputs).toEqual({ count: { count: 3 }, report: { text: { lines: ['three'] } } });
  });
});
