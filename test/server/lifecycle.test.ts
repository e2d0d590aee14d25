import { describe, expect, it } from 'vitest';
import { createRuntime } from '../../src/runtime/create.js';
import { createServer } from '../../src/server/app.js';
import { isLoopback } from '../../src/server/listen.js';
import { FLOW_FILES, ticketTools } from './fixtures.js';
import { TOKENS, openEvents, quietLogger, reached, startRun, startServer, tempDir } from './helpers.js';

/** Listening rules, graceful shutdown and the OpenAPI document. */

describe('without tokens', () => {
  it('serves without auth on loopback and refuses any other address', async () => {
    const runtime = createRuntime({ store: 'memory', logger: false });
    const server = createServer({ runtime, tokens: null, logger: quietLogger });
    expect(server.auth).toBe(false);
    await expect(server.listen({ host: '0.0.0.0', port: 0 })).rejects.toMatchObject({
      code: 'UNSAFE_LISTEN',
    });
    await runtime.close();

    const t = await startServer({
      tokens: null,
      flowsDir: await tempDir(FLOW_FILES),
      runtime: { tools: ticketTools().tools },
    });
    try {
      const runId = await startRun(t, '', { flowId: 'quick', input: 'x' });
      expect((await t.call('GET', `/v1/runs/${runId}`)).status).toBe(200);
      const upload = await t.call('POST', '/v1/flows', {
        body: '{"id":"up","nodes":[{"id":"a"}]}',
        headers: { 'content-type': 'application/json' },
      });
      expect(upload.status).toBe(201);
      expect(await upload.json()).toEqual({ flowId: 'up', version: 1 });
    } finally {
      await t.stop();
    }
    expect(['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', 'example.com'].some(isLoopback)).toBe(false);
  });
});

describe('graceful shutdown', () => {
  it('stops accepting, ends event streams, and waits for a run in the middle of a step', async () => {
    const tools = ticketTools();
    const t = await startServer({ flowsDir: await tempDir(FLOW_FILES), runtime: { tools: tools.tools } });
    const waiting = await startRun(t, TOKENS.operator, { flowId: 'ask', input: 'x' });
    await reached(t.runtime, waiting, 'run.suspended');
    const stream = await openEvents(t.url, waiting, { token: TOKENS.viewer });
    const busy = await startRun(t, TOKENS.operator, { flowId: 'slow', input: 'x' });
    await tools.gate.reached();

    let closed = false;
    const closing = t.server.close().then((left) => {
      closed = true;
      return left;
    });
    expect((await stream.events()).at(-1)?.type).toBe('run.suspended');
    expect(await stream.next()).toBeNull();
    const late = await fetch(`${t.url}/v1/runs`, { method: 'POST' }).catch(() => null);
    expect(late === null || late.status === 503).toBe(true);
    expect(closed).toBe(false);

    tools.gate.open();
    expect(await closing).toBe(0);
    expect((await t.runtime.status(busy)).status).toBe('completed');
    expect((await t.runtime.status(waiting)).status).toBe('suspended');
    await t.runtime.close();
  });

  it('reports how many runs are still being driven after the grace period, and leaves them running', async () => {
    const tools = ticketTools();
    const t = await startServer({
      flowsDir: await tempDir(FLOW_FILES),
      runtime: { tools: tools.tools },
      server: { shutdownGraceMs: 50 },
    });
    const busy = await startRun(t, TOKENS.operator, { flowId: 'slow', input: 'x' });
    await tools.gate.reached();
    expect(await t.server.close()).toBe(1);
    expect((await t.runtime.status(busy)).status).toBe('running');
    tools.gate.open();
    await t.runtime.close();
  });
});

describe('GET /v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document of every route, generated from the request schemas', async () => {
    const t = await startServer();
    try {
      const doc = (await (await t.call('GET', '/v1/openapi.json', { token: TOKENS.viewer })).json()) as {
        openapi: string;
        paths: Record<
          string,
          Record<
            string,
            {
              requestBody?: { content: Record<string, { schema: unknown }> };
              responses: Record<string, unknown>;
            }
          >
        >;
        components: {
          securitySchemes: Record<string, unknown>;
          schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }>;
        };
        security: unknown[];
      };
      expect(doc.openapi).toBe('3.1.0');
      const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      );
      expect(routes.sort()).toEqual(
        [
          'GET /v1/flows',
          'GET /v1/flows/{flowId}',
          'POST /v1/flows/{flowId}/mcp/{server}/complete',
          'GET /v1/flows/{flowId}/starters',
          'POST /v1/flows/{flowId}/starters/{name}',
          'GET /v1/me',
          'GET /v1/runs',
          'GET /v1/runs/{id}',
          'GET /v1/runs/{id}/events',
          'GET /v1/runs/{id}/evidence',
          'GET /v1/runs/{id}/evidence/{evidenceId}',
          'POST /v1/flows',
          'POST /v1/runs',
          'GET /v1/oauth/callback',
          'POST /v1/runs/{id}/answer',
          'POST /v1/runs/{id}/approval',
          'POST /v1/runs/{id}/authorization',
          'POST /v1/runs/{id}/cancel',
          'POST /v1/runs/{id}/fork',
          'POST /v1/runs/{id}/messages',
          'POST /v1/runs/{id}/retry',
          'GET /v1/threads',
          'GET /v1/threads/{threadId}',
          'GET /v1/webhooks/deliveries',
          'POST /v1/threads/{threadId}/messages',
          'POST /v1/threads/{threadId}/chat',
        ].sort(),
      );
      expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
      expect(doc.security).toEqual([{ bearer: [] }]);
      expect(doc.components.schemas.Approval?.properties).toHaveProperty('decision');
      expect(doc.components.schemas.Approval?.required).toEqual(['decision']);
      expect(doc.components.schemas.RunSummary?.properties).toHaveProperty('reply');
      expect(Object.keys(doc.paths['/v1/runs/{id}/approval']?.post?.responses ?? {}).sort()).toEqual([
        '200',
        '400',
        '401',
        '403',
        '404',
        '409',
        '413',
      ]);
      expect(Object.keys(doc.paths['/v1/flows']?.post?.requestBody?.content ?? {})).toEqual([
        'application/json',
        'application/yaml',
      ]);
      expect(doc.paths['/v1/runs/{id}/events']?.get?.responses).toHaveProperty(
        '200.content.text/event-stream',
      );
    } finally {
      await t.stop();
    }
  });
});
