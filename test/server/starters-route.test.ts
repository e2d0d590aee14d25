import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../acceptance/build.js';
import { openApp, tempDir, TOKENS, type TestApp } from './helpers.js';

/**
 * `GET /v1/flows/{flowId}/starters` and `POST /v1/flows/{flowId}/starters/{name}` (docs/api.md)
 * against the official reference server over stdio, whose prompts include `simple-prompt` (no
 * arguments) and `args-prompt` (`city` required, `state` optional).
 */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const flowYaml = (id: string, starters: string[]) =>
  [
    `id: ${id}`,
    'locale: en',
    'mcpServers:',
    `  everything: { command: node, args: [${JSON.stringify(EVERYTHING)}, stdio] }`,
    ...starters,
    'nodes:',
    '  - id: a',
    '    instructions: Do the task.',
  ].join('\n');

let app: TestApp;
beforeAll(async () => {
  const dir = await tempDir({
    'all.yaml': flowYaml('all', ['starters: { server: everything }']),
    'picked.yaml': flowYaml('picked', [
      'starters: { server: everything, prompts: [args-prompt, simple-prompt] }',
    ]),
    'none.yaml': flowYaml('none', []),
  });
  app = await openApp({ flowsDir: dir });
});
afterAll(() => app.stop());

const list = (flowId: string, token: string = TOKENS.operator) =>
  app.call('GET', `/v1/flows/${flowId}/starters`, { token });
const get = (flowId: string, name: string, json: unknown, token: string = TOKENS.operator) =>
  app.call('POST', `/v1/flows/${flowId}/starters/${name}`, { token, json });

describe('chat starters of a flow', { timeout: 60_000 }, () => {
  it("lists the server's prompts, or those the flow names in its order", async () => {
    const all = await list('all');
    expect(all.status).toBe(200);
    const names = ((await all.json()) as { starters: { name: string }[] }).starters.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['simple-prompt', 'args-prompt', 'completable-prompt']));
    const picked = await list('picked');
    expect(await picked.json()).toEqual({
      starters: [
        {
          name: 'args-prompt',
          title: 'Arguments Prompt',
          description: 'A prompt with two arguments, one required and one optional',
          arguments: [
            { name: 'city', description: 'Name of the city', required: true },
            { name: 'state' }, // the server drops an optional argument's description
          ],
        },
        {
          name: 'simple-prompt',
          title: expect.any(String) as string,
          description: expect.any(String) as string,
          arguments: [],
        },
      ],
    });
    const none = await list('none');
    expect(await none.json()).toEqual({ starters: [] });
  });

  it("gives a starter's text with its arguments", async () => {
    const weather = await get('picked', 'args-prompt', { arguments: { city: 'Lyon', state: 'Rhône' } });
    expect(weather.status).toBe(200);
    expect(await weather.json()).toEqual({ text: "What's weather in Lyon, Rhône?" });
    const simple = await get('picked', 'simple-prompt', {});
    expect(await simple.json()).toEqual({ text: 'This is a simple prompt without arguments.' });
    const bodiless = await app.call('POST', '/v1/flows/picked/starters/simple-prompt', {
      token: TOKENS.operator,
    });
    expect(await bodiless.json()).toEqual({ text: 'This is a simple prompt without arguments.' });
  });

  it('refuses a missing argument, prompts that are no starters, viewers and unknown flows', async () => {
    const missing = await get('picked', 'args-prompt', { arguments: {} });
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toMatch(/city/);
    const notOffered = await get('picked', 'completable-prompt', {});
    expect(notOffered.status).toBe(404);
    expect(JSON.stringify(await notOffered.json())).toMatch(/not a starter/);
    expect((await get('none', 'simple-prompt', {})).status).toBe(404);
    expect((await get('picked', 'simple-prompt', { surprise: 1 })).status).toBe(400);
    expect((await list('all', TOKENS.viewer)).status).toBe(403);
    const flow = await list('nope');
    expect(flow.status).toBe(404);
    expect(await flow.json()).toMatchObject({ error: { code: 'FLOW_NOT_FOUND' } });
  });
});
