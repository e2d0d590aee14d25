import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, openApp, tempDir, type TestApp } from './helpers.js';

/** A function `when` never comes over HTTP: `when: inline` (what a stored flow has in its place) is refused. */
let t: TestApp;
beforeAll(async () => {
  const flowsDir = await tempDir({ 'empty/turns.yaml': 'turns: []\n' });
  t = await openApp({ flowsDir, server: { scriptedModels: flowsDir } });
});
afterAll(async () => {
  await t.stop();
});

describe('function when over HTTP', () => {
  it('refuses when: inline in an uploaded flow and in an inline flow, and starts no run', async () => {
    const flow = {
      id: 'routed-http',
      model: 'scripted:./empty/turns.yaml',
      nodes: [
        { id: 'a', instructions: 'a' },
        { id: 'b', instructions: 'b' },
      ],
      edges: [{ from: 'a', to: 'b', when: 'inline' }],
    };
    const upload = await t.call('POST', '/v1/flows', { token: TOKENS.admin, json: flow });
    expect(upload.status).toBe(400);
    const message = 'edges[0].when: when: inline stands for a function in flows written in code';
    expect(JSON.stringify(await upload.json())).toContain(message);
    const inline = await t.call('POST', '/v1/runs', { token: TOKENS.admin, json: { flow, input: 'x' } });
    expect(inline.status).toBe(400);
    expect(JSON.stringify(await inline.json())).toContain(message);
    expect((await t.runtime.list()).map((r) => r.flowId)).not.toContain('routed-http');
  });
});
