import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKENS, settled, startRun, startServer, tempDir, type TestServer } from './helpers.js';
import { mountConsole } from '../../src/server/console.js';

/**
 * Edge requests a hostile review found: a retry with a JSON Content-Type and no body, an absurd
 * `Last-Event-ID`, and `/v1` lookalike paths (`/v1./runs`, `/v1;x/runs`) that reached the console.
 */

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

let t: TestServer;
beforeAll(async () => {
  t = await startServer({
    flowsDir: await tempDir({ 'giving-up/flow.yaml': FLOW, 'giving-up/turns.yaml': TURNS }),
  });
  mountConsole(t.server.app, {
    dir: await tempDir({ 'index.html': '<!doctype html><title>console</title>' }),
  });
});
afterAll(async () => {
  await t.stop();
});

describe('edge requests', () => {
  it('retry with Content-Type: application/json and an empty body works like no body', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'giving-up', input: 'go' });
    await settled(t.runtime, runId);
    const retried = await t.call('POST', `/v1/runs/${runId}/retry`, {
      token: TOKENS.operator,
      body: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(retried.status, await retried.clone().text()).toBe(200);
    expect(await retried.json()).toMatchObject({ runId, status: 'running' });
    await settled(t.runtime, runId);
  });

  it('answers 400 to a Last-Event-ID that is no event seq, as ?after= does', async () => {
    const runId = await startRun(t, TOKENS.operator, { flowId: 'giving-up', input: 'go' });
    await settled(t.runtime, runId);
    for (const header of ['99999999999999999999999999', '1e400', '-1', '9007199254740993']) {
      const response = await t.call('GET', `/v1/runs/${runId}/events`, {
        token: TOKENS.viewer,
        headers: { 'last-event-id': header },
      });
      expect(response.status, header).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string } };
      expect(error.message, header).toMatch(/Last-Event-ID must be an event seq/);
    }
    const huge = await t.call('GET', `/v1/runs/${runId}/events?after=99999999999999999999999999`, {
      token: TOKENS.viewer,
    });
    expect(huge.status).toBe(400);
    const fine = await t.call('GET', `/v1/runs/${runId}/events`, {
      token: TOKENS.viewer,
      headers: { 'last-event-id': '2' },
    });
    expect(fine.status).toBe(200);
    await fine.body?.cancel();
  });

  it('answers a JSON 404 to /v1 lookalikes, never the console page', async () => {
    for (const path of [
      '/v1./runs',
      '/v1;x/runs',
      '/V1.;a=b/runs',
      '/%20v1/runs',
      '/v1%2e/runs',
      '/v1.',
      '//V1;/',
    ]) {
      const response = await fetch(`${t.url}${path}`, {
        headers: { authorization: `Bearer ${TOKENS.viewer}` },
      });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/application\/json/);
      expect(((await response.json()) as { error: { code: string } }).error.code, path).toBe('NOT_FOUND');
    }
    const page = await fetch(`${t.url}/runs/run_1`);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    await page.body?.cancel();
  });
});
