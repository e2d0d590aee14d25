import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, reached, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/** Code nodes under `serve`: from the flows folder they run; in a flow sent over HTTP they are refused. */
const FLOW = `id: totals
locale: en
model: scripted:./turns.yaml
input: { type: object, properties: { items: { type: array, items: { type: number } } }, required: [items] }
nodes:
  - id: sum
    module: ./steps.mjs#sum
    outputs:
      total: { required: true, schema: { type: number } }
`;

const STEPS = `export function sum(ctx) {
  ctx.reply('the total is ' + ctx.input.items.reduce((a, b) => a + b, 0));
  return { total: ctx.input.items.reduce((a, b) => a + b, 0) };
}
`;

let t: TestApp;
beforeAll(async () => {
  const flowsDir = await tempDir({
    'totals/flow.yaml': FLOW,
    'totals/steps.mjs': STEPS,
    'totals/turns.yaml': 'turns: []\n',
  });
  t = await openApp({ flowsDir, server: { scriptedModels: flowsDir } });
});
afterAll(async () => {
  await t.stop();
});

describe('code nodes under serve', () => {
  it("runs a flow of the flows folder whose node is a module's function", async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'totals', input: { items: [1, 2, 4] } });
    await reached(t.runtime, runId, 'run.completed');
    const res = await t.call('GET', `/v1/runs/${runId}`, { token: TOKENS.viewer });
    expect(await res.json()).toMatchObject({
      status: 'completed',
      outputs: { sum: { total: 7 } },
      reply: 'the total is 7',
    });
  });

  it('refuses a flow sent over HTTP with a code node, naming the node (POST /v1/flows and an inline flow)', async () => {
    const upload = await t.call('POST', '/v1/flows', {
      token: TOKENS.admin,
      body: FLOW.replace('id: totals', 'id: uploaded'),
      headers: { 'content-type': 'application/yaml' },
    });
    expect(upload.status).toBe(400);
    expect(JSON.stringify(await upload.json())).toContain(
      "nodes[0].module: code nodes are not accepted in flows sent over HTTP; put the flow in the server's flows folder (serve --flows)",
    );
    const inline = await t.call('POST', '/v1/runs', {
      token: TOKENS.admin,
      json: {
        flow: {
          id: 'inline',
          model: 'scripted:./totals/turns.yaml',
          nodes: [{ id: 'sum', module: './totals/steps.mjs#sum', outputs: { total: {} } }],
        },
        input: 'x',
      },
    });
    expect(inline.status).toBe(400);
    expect(JSON.stringify(await inline.json())).toContain(
      'code nodes are not accepted in flows sent over HTTP',
    );
    expect((await t.runtime.list()).map((r) => r.flowId)).not.toContain('inline');
  });
});
