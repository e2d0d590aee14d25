import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openEvents, reached, startRun, startServer, tempDir, type TestServer } from './helpers.js';

/** GET /v1/runs/{id}/evidence[/{evidenceId}] and tool results on the events stream. */

let t: TestServer;
let runId = '';
const tools = ticketTools();

beforeAll(async () => {
  t = await startServer({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: tools.tools } });
  runId = await startRun(t, TOKENS.tenantA, { flowId: 'tickets', input: 'printer broken' });
  await reached(t.runtime, runId, 'run.suspended');
});
afterAll(async () => {
  await t.stop();
});

async function body(response: Response): Promise<unknown> {
  return response.json();
}

describe('evidence routes', () => {
  it('lists the run’s evidence with full payloads, for a viewer of its tenant', async () => {
    const response = await t.call('GET', `/v1/runs/${runId}/evidence`, { token: TOKENS.viewerA });
    expect(response.status).toBe(200);
    const list = (await body(response)) as Record<string, unknown>[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      id: 'ev_1',
      tool: 'ticket_list',
      args: {},
      outcome: 'SUCCESS',
      errorCode: null,
      payload: { tickets: [{ id: 't1', title: 'printer' }] },
      nodeId: 'main',
    });
    expect(typeof list[0]?.ts).toBe('string');
  });

  it('answers one record, and 404 EVIDENCE_NOT_FOUND for an id the run does not have', async () => {
    const one = await t.call('GET', `/v1/runs/${runId}/evidence/ev_1`, { token: TOKENS.viewerA });
    expect(one.status).toBe(200);
    expect(await body(one)).toMatchObject({ id: 'ev_1', tool: 'ticket_list', callId: expect.any(String) });
    const missing = await t.call('GET', `/v1/runs/${runId}/evidence/ev_9`, { token: TOKENS.viewerA });
    expect(missing.status).toBe(404);
    expect(await body(missing)).toEqual({
      error: { code: 'EVIDENCE_NOT_FOUND', message: `run ${runId} has no evidence ev_9` },
    });
  });

  it('hides another tenant’s run (404 RUN_NOT_FOUND) and needs a token (401)', async () => {
    for (const path of [`/v1/runs/${runId}/evidence`, `/v1/runs/${runId}/evidence/ev_1`]) {
      const other = await t.call('GET', path, { token: TOKENS.tenantB });
      expect(other.status).toBe(404);
      expect(await body(other)).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
      expect((await t.call('GET', path)).status).toBe(401);
    }
    const unknown = await t.call('GET', '/v1/runs/run_nope/evidence', { token: TOKENS.admin });
    expect(unknown.status).toBe(404);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await body(await t.call('GET', '/v1/openapi.json', { token: TOKENS.viewer }))) as {
      paths: Record<string, { get?: unknown }>;
      components: { schemas: Record<string, unknown> };
    };
    expect(doc.paths['/v1/runs/{id}/evidence']?.get).toBeDefined();
    expect(doc.paths['/v1/runs/{id}/evidence/{evidenceId}']?.get).toBeDefined();
    expect(doc.components.schemas.Evidence).toBeDefined();
  });

  it('streams tool.invoked with the result the evidence holds', async () => {
    const stream = await openEvents(t.url, runId, { token: TOKENS.viewerA, after: 0 });
    const events = await stream.events((e) => e.type === 'run.suspended');
    stream.close();
    const list = events.find((e) => e.type === 'tool.invoked' && e.tool === 'ticket_list');
    expect(list).toMatchObject({ evidenceId: 'ev_1', result: { tickets: [{ id: 't1', title: 'printer' }] } });
    const gated = events.find((e) => e.type === 'tool.invoked' && e.tool === 'ticket_create');
    expect(gated).toMatchObject({ outcome: 'DEFERRED' });
    expect(gated).not.toHaveProperty('result');
  });
});
