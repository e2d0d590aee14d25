import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunInput } from '../../src/flow/input.js';
import { loadFlow } from '../../src/flow/load.js';
import { readInputFile, readInputFileSync } from '../../src/fs/input-file.js';
import { loadScriptedModel } from '../../src/model/scripted.js';
import { ticketTools } from '../server/fixtures.js';
import { tempDir } from '../server/helpers.js';
import { QUICK_TURNS, SEC, errorOf, quickFlow, startTarget, type Target } from './helpers.js';

/**
 * Hole 1 and 2: a model named by a request made the server read any file (and quote it back), and
 * `/dev/zero` exhausted its memory. Now a request names a provider model, or a scripted model inside
 * `--scripted-models DIR`; every file read because of input is a regular file under a size cap.
 */

const CANARY = 'CANARY-7f3a-secret-line';
let scripts: string;
let outside: string;
let bare: Target;
let confined: Target;
const tools = ticketTools();

beforeAll(async () => {
  outside = await tempDir({ 'secret.yaml': `${CANARY}: 1\n`, 'turns.yaml': QUICK_TURNS });
  scripts = await tempDir({ 'quick.yaml': QUICK_TURNS, 'canary.yaml': `turns: []\n${CANARY}: x\n` });
  mkdirSync(join(scripts, 'folder'));
  symlinkSync(join(outside, 'turns.yaml'), join(scripts, 'link-out.yaml'));
  symlinkSync('/dev/zero', join(scripts, 'zero.yaml'));
  execFileSync('mkfifo', [join(scripts, 'fifo.yaml')]);
  const flowsDir = await tempDir({
    'quick.yaml':
      'id: quick\nlocale: en\nmodel: scripted:./turns.yaml\nnodes: [{ id: main, tools: [ticket_list] }]\n',
    'turns.yaml': QUICK_TURNS,
  });
  bare = await startTarget({ flowsDir, runtime: { tools: tools.tools } });
  confined = await startTarget({
    flowsDir,
    runtime: { tools: tools.tools },
    server: { scriptedModels: scripts },
  });
});
afterAll(async () => {
  await bare.stop();
  await confined.stop();
});

function start(t: Target, model: string): Promise<Response> {
  return t.call('POST', '/v1/runs', { token: SEC.operator, json: { flowId: 'quick', input: 'x', model } });
}

describe('models named by requests', () => {
  it('refuses every scripted model without --scripted-models, the same way whatever the path', async () => {
    const answers = [];
    for (const model of [
      'scripted:/etc/passwd',
      'scripted:/no/such/file',
      'scripted:/etc',
      'scripted:/dev/zero',
    ]) {
      const error = await errorOf(await start(bare, model));
      answers.push({
        status: error.status,
        code: error.code,
        message: error.message.replace(model.slice(9), 'P'),
      });
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(answers[0]?.message).toMatch(/--scripted-models/);
  });

  it('refuses a scripted model path on retry too, before the run is looked at', async () => {
    for (const model of ['scripted:/etc/passwd', 'scripted:../secret.yaml']) {
      const res = await bare.call('POST', '/v1/runs/run_none/retry', {
        token: SEC.operator,
        json: { model },
      });
      const error = await errorOf(res);
      expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      expect(error.message).toMatch(/--scripted-models/);
      expect(error.message).not.toContain(CANARY);
    }
  });

  it("keeps a flow's own scripted model from --flows DIR working", async () => {
    const response = await bare.call('POST', '/v1/runs', {
      token: SEC.operator,
      json: { flowId: 'quick', input: 'x' },
    });
    expect(response.status).toBe(201);
  });

  it('accepts a scripted model inside --scripted-models DIR, by a name relative to it', async () => {
    expect((await start(confined, 'scripted:quick.yaml')).status).toBe(201);
    expect((await start(confined, `scripted:${join(scripts, 'quick.yaml')}`)).status).toBe(201);
  });

  it('refuses paths leaving DIR (.., absolute, links) and non-files, without quoting any content', async () => {
    const cases = [
      'scripted:../secret.yaml',
      `scripted:${join(outside, 'secret.yaml')}`,
      'scripted:/etc/passwd',
      'scripted:link-out.yaml',
      'scripted:zero.yaml',
      'scripted:folder',
      'scripted:fifo.yaml',
      'scripted:missing.yaml',
      'scripted:canary.yaml',
    ];
    for (const model of cases) {
      const response = await start(confined, model);
      const text = await response.text();
      expect(response.status, model).toBe(400);
      expect(text).not.toContain(CANARY);
      expect(text).not.toMatch(/root:/);
    }
  });

  it('refuses a malformed model name', async () => {
    expect(await errorOf(await start(confined, 'no-colon'))).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
    });
  });
});

describe('input files', () => {
  it('reads regular files only, within the size cap, and says why not without content', async () => {
    expect(() => readInputFileSync('/dev/zero')).toThrow(/not a regular file/);
    await expect(readInputFile('/dev/zero')).rejects.toThrow(/not a regular file/);
    await expect(readInputFile(join(scripts, 'fifo.yaml'))).rejects.toThrow(/not a regular file/);
    await expect(readInputFile(join(scripts, 'folder'))).rejects.toThrow(/not a regular file/);
    const big = join(outside, 'big.yaml');
    writeFileSync(big, 'x'.repeat(2048));
    expect(() => readInputFileSync(big, { maxBytes: 1024 })).toThrow(/larger than 1024 bytes/);
    expect(readInputFileSync(big, { maxBytes: 4096 })).toHaveLength(2048);
  });

  it('loads no scripted model from a device and quotes no content of a file that is not a script', () => {
    expect(() => loadScriptedModel('/dev/zero')).toThrow(/not a regular file/);
    let message = '';
    try {
      loadScriptedModel(join(scripts, 'canary.yaml'));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/unknown key/);
    expect(message).not.toContain(CANARY);
    const notYaml = join(outside, 'not-yaml.yaml');
    writeFileSync(notYaml, `${CANARY}: [unclosed\n  - "${CANARY}`);
    expect(() => loadScriptedModel(notYaml)).toThrow(/not valid YAML/);
    expect(() => loadScriptedModel(notYaml)).not.toThrow(new RegExp(CANARY));
  });

  it('loads no flow from a device, and no @file input from one, quoting nothing', async () => {
    await expect(loadFlow('/dev/zero')).rejects.toThrow(/not a regular file/);
    const notJson = join(outside, 'input.json');
    writeFileSync(notJson, `{"a": ${CANARY}}`);
    const flow = (await loadFlow(quickFlow('q', 1), { knownTools: ['ticket_list'] })).flow;
    const failure = await resolveRunInput(flow, { json: `@${notJson}` }, { cwd: outside }).then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    expect(failure).toMatch(/is not valid JSON/);
    expect(failure).not.toContain(CANARY);
    await expect(resolveRunInput(flow, { json: '@/dev/zero' })).rejects.toThrow(/not a regular file/);
  });

  it("refuses delegate flows outside the server's flows folder for flows sent over HTTP", async () => {
    const flow = {
      ...quickFlow('deleg', 1),
      model: 'openai:gpt-4.1',
      nodes: [{ id: 'main', tools: ['ticket_list'], delegates: ['/etc/passwd', '../x.yaml'] }],
    };
    const response = await bare.call('POST', '/v1/runs', { token: SEC.admin, json: { flow, input: 'x' } });
    const error = await errorOf(response);
    expect(error).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    expect(error.problems?.join('\n')).toMatch(/is not a flow file of the server's flows folder/);
    expect(JSON.stringify(error)).not.toMatch(/root:/);
  });
});
