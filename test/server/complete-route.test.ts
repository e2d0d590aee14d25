import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../acceptance/build.js';
import { openApp, tempDir, TOKENS, type TestApp } from './helpers.js';

/**
 * `POST /v1/flows/{flowId}/mcp/{server}/complete` (docs/api.md) against the official reference server
 * over stdio: `completable-prompt` completes `department`, and `name` from the department in the
 * context; the dynamic text template completes its `resourceId`. Operators only, tenant-scoped flows.
 */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const flowYaml = (id: string, command = 'node') =>
  [
    `id: ${id}`,
    'locale: en',
    'mcpServers:',
    `  everything: { command: ${command}, args: [${JSON.stringify(EVERYTHING)}, stdio] }`,
    'nodes:',
    '  - id: a',
    '    instructions: Do the task.',
  ].join('\n');

let app: TestApp;
beforeAll(async () => {
  const dir = await tempDir({
    'completing.yaml': flowYaml('completing'),
    'broken.yaml': flowYaml('broken', JSON.stringify(join(REPO_ROOT, 'no-such-server'))),
  });
  app = await openApp({ flowsDir: dir });
});
afterAll(() => app.stop());

const PATH = '/v1/flows/completing/mcp/everything/complete';
const complete = (json: unknown, token: string = TOKENS.operator, path = PATH) =>
  app.call('POST', path, { token, json });

describe('POST /v1/flows/{flowId}/mcp/{server}/complete', { timeout: 60_000 }, () => {
  it("completes a prompt's argument, narrowed by what was typed and by the context", async () => {
    const all = await complete({ prompt: 'completable-prompt', argument: 'department' });
    expect(all.status).toBe(200);
    expect(await all.json()).toMatchObject({ values: ['Engineering', 'Sales', 'Marketing', 'Support'] });
    const typed = await complete({ prompt: 'completable-prompt', argument: 'department', value: 'S' });
    expect(await typed.json()).toMatchObject({ values: ['Sales', 'Support'] });
    const names = await complete({
      prompt: 'completable-prompt',
      argument: 'name',
      context: { department: 'Sales' },
    });
    expect(await names.json()).toMatchObject({ values: ['David', 'Eve', 'Frank'] });
  });

  it("completes a resource template's variable", async () => {
    const response = await complete({
      template: 'demo://resource/dynamic/text/{resourceId}',
      argument: 'resourceId',
      value: '1',
    });
    expect(response.status).toBe(200);
    const { values } = (await response.json()) as { values: string[] };
    expect(values.length).toBeGreaterThan(0);
    for (const value of values) expect(value.startsWith('1')).toBe(true);
  });

  it('refuses bad input, unknown flows and servers, viewers and other tenants', async () => {
    const both = await complete({ prompt: 'p', template: 't://{x}', argument: 'x' });
    expect(both.status).toBe(400);
    const neither = await complete({ argument: 'x' });
    expect(neither.status).toBe(400);
    expect(JSON.stringify(await neither.json())).toMatch(/prompt or template/);
    const extra = await complete({ prompt: 'p', argument: 'x', surprise: 1 });
    expect(extra.status).toBe(400);
    const viewer = await complete({ prompt: 'completable-prompt', argument: 'department' }, TOKENS.viewer);
    expect(viewer.status).toBe(403);
    const anonymous = await app.call('POST', PATH, { json: { prompt: 'p', argument: 'x' } });
    expect(anonymous.status).toBe(401);
    const flow = await complete(
      { prompt: 'p', argument: 'x' },
      TOKENS.operator,
      '/v1/flows/nope/mcp/everything/complete',
    );
    expect(flow.status).toBe(404);
    expect(await flow.json()).toMatchObject({ error: { code: 'FLOW_NOT_FOUND' } });
    const server = await complete(
      { prompt: 'p', argument: 'x' },
      TOKENS.operator,
      '/v1/flows/completing/mcp/nope/complete',
    );
    expect(server.status).toBe(404);
    expect(await server.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    // `__proto__` and friends are no server of the flow.
    const proto = await complete(
      { prompt: 'p', argument: 'x' },
      TOKENS.operator,
      '/v1/flows/completing/mcp/__proto__/complete',
    );
    expect(proto.status).toBe(404);
  });

  it('answers 502 MCP_UNAVAILABLE when the server cannot be started', async () => {
    const response = await complete(
      { prompt: 'p', argument: 'x' },
      TOKENS.operator,
      '/v1/flows/broken/mcp/everything/complete',
    );
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ error: { code: 'MCP_UNAVAILABLE' } });
  });
});
