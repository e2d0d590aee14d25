import { mkdir } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryLogger } from '../../src/log/logger.js';
import { hiddenFolders, withoutFolders } from '../../src/server/model-problems.js';
import { tempDir } from '../server/helpers.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * Issue 13, lower holes: a model that cannot be used answered operators with the server's folders
 * (`cannot read scripted model file /srv/…`) and its configuration (`OPENAI_API_KEY is not set`).
 * Over HTTP the answer now names the model as the caller wrote it and the provider only; the
 * server's log keeps the detail.
 */

const SECRET = 'sk-CANARY-model-errors-7f3a';
const ENV = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL'] as const;
const saved = Object.fromEntries(ENV.map((name) => [name, process.env[name]]));

let t: Target;
let scripts: string;
let flowsDir: string;
const log = new MemoryLogger();

beforeAll(async () => {
  for (const name of ENV) delete process.env[name];
  scripts = await tempDir({
    'bad.yaml': `turns: [\n  token: "${SECRET}"\n: : :`,
    'obj.yaml': `${SECRET}: 1\n`,
  });
  await mkdir(join(scripts, 'sub'));
  flowsDir = await tempDir({
    'broken.yaml':
      'id: broken\nversion: 1\nlocale: en\nmodel: scripted:./turns.yaml\nnodes: [{ id: main }]\n',
    'turns.yaml': `turns: {${SECRET}\n`,
  });
  t = await startTarget({ flowsDir, server: { scriptedModels: scripts, logger: log } });
});
afterAll(async () => {
  await t.stop();
  for (const name of ENV) if (saved[name] !== undefined) process.env[name] = saved[name];
});

const inline = { id: 'inline', version: 1, locale: 'en', nodes: [{ id: 'main' }] };

/** Asserts the answer is a 400 that names no server folder, no file content and no variable. */
async function refusal(response: Response): Promise<string> {
  const error = await errorOf(response);
  expect(error.status).toBe(400);
  const shown = JSON.stringify(error);
  for (const hidden of [
    scripts,
    realpathSync(scripts),
    flowsDir,
    realpathSync(flowsDir),
    tmpdir(),
    SECRET,
    '_API_KEY',
    'AGENT_RUNTIME_PROVIDER',
  ])
    expect(shown).not.toContain(hidden);
  return error.message;
}

describe('model problems over HTTP', () => {
  it('name a scripted model as the request wrote it, never by its server path or content', async () => {
    for (const [model, said] of [
      ['scripted:.', /scripted model file \.: . is not a regular file/],
      ['scripted:sub', /scripted model file sub: sub is not a regular file/],
      ['scripted:bad.yaml', /scripted model file bad\.yaml is not valid YAML/],
      ['scripted:obj.yaml', /scripted model file obj\.yaml: turns: expected array/],
      [`scripted:${join(scripts, 'bad.yaml')}`, /scripted model file bad\.yaml/],
    ] as const) {
      const response = await t.call('POST', '/v1/runs', {
        token: SEC.admin,
        json: { flow: inline, input: 'x', model },
      });
      expect(await refusal(response), model).toMatch(said);
    }
  });

  it("keeps the server's folder out of a --flows DIR flow's broken scripted model", async () => {
    const response = await t.call('POST', '/v1/runs', {
      token: SEC.operator,
      json: { flowId: 'broken', input: 'x' },
    });
    expect(await refusal(response)).toMatch(/scripted model file turns\.yaml is not valid YAML/);
  });

  it('says a provider is not configured, without naming its variables; the log keeps the detail', async () => {
    for (const [model, provider] of [
      ['openai:gpt-4.1', 'openai'],
      ['anthropic:claude-sonnet-4', 'anthropic'],
      ['qwen:qwen-max', 'qwen'],
    ] as const) {
      const response = await t.call('POST', '/v1/runs', {
        token: SEC.operator,
        json: { flowId: 'broken', input: 'x', model },
      });
      expect(await refusal(response), model).toBe(
        `model provider ${provider} is not configured on this server`,
      );
    }
    const logged = log.records.map((r) => JSON.stringify(r)).join('\n');
    expect(logged).toContain('OPENAI_API_KEY is not set');
    expect(logged).toContain('AGENT_RUNTIME_PROVIDER_QWEN_BASE_URL');
  });

  it('cuts out whole folders only, longest first, and never the file system root', () => {
    const folders = hiddenFolders(['/srv/app', '/srv/app/scripts', '/', null]);
    expect(folders).toEqual(['/srv/app/scripts', '/srv/app']);
    expect(withoutFolders('file /srv/app/scripts/a.yaml: /srv/app/scripts/a.yaml is bad', folders)).toBe(
      'file a.yaml: a.yaml is bad',
    );
    expect(withoutFolders('/srv/app: not a file; /srv/apple/x and /srv/app2 stay', folders)).toBe(
      '.: not a file; /srv/apple/x and /srv/app2 stay',
    );
  });
});
