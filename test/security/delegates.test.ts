import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { World, ensureBuilt } from '../cli/helpers/cli.js';
import { tempDir } from '../server/helpers.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * A flow's `delegates` may name any file. When that file is not a flow (`/etc/passwd`, a `.env`,
 * YAML with other keys) its parse errors or unknown keys used to be reported, quoting its content.
 * Now such a file is one problem, "not a valid flow file", naming the path and never the content;
 * and a flow sent over HTTP may not delegate to hidden files or folders or to node_modules.
 */

const CANARY = 'CANARY-delegate-9c41';
const NOT_FLOWS: Record<string, string> = {
  'env.yaml': `DATABASE_URL: postgres://u:${CANARY}@db/prod\nAPI_KEY: ${CANARY}\n`,
  'broken.yaml': `id: x\nnodes: [\n  ${CANARY}: {\n`,
  'list.yaml': `- ${CANARY}\n- b\n`,
  'data.json': `{"nodes": 1, "${CANARY}": true}`,
};
const CHILD = 'id: child\nlocale: en\nnodes: [{ id: a }]\n';

let target: Target;
let flowsDir: string;

beforeAll(async () => {
  flowsDir = await tempDir({
    ...NOT_FLOWS,
    '.env': `SECRET=${CANARY}\n`,
    'sub/child.yaml': CHILD,
  });
  for (const folder of ['.hidden', 'node_modules/pkg']) {
    mkdirSync(join(flowsDir, folder), { recursive: true });
    writeFileSync(join(flowsDir, folder, 'flow.yaml'), CHILD);
  }
  target = await startTarget({ flowsDir });
}, 300_000);
afterAll(async () => {
  await target.stop();
});

function flowDelegating(delegates: string[]): Record<string, unknown> {
  return { id: 'parent', locale: 'en', model: 'openai:gpt-4.1', nodes: [{ id: 'main', delegates }] };
}

async function upload(delegates: string[]): Promise<{ status: number; text: string }> {
  const response = await target.call('POST', '/v1/flows', {
    token: SEC.admin,
    json: flowDelegating(delegates),
  });
  return { status: response.status, text: await response.text() };
}

describe('delegate flows that are not flows', () => {
  it('over HTTP: one generic problem per file, never its content nor a server path', async () => {
    for (const name of Object.keys(NOT_FLOWS)) {
      const { status, text } = await upload([name]);
      expect(status, name).toBe(400);
      const error = (JSON.parse(text) as { error: { code: string; problems: string[] } }).error;
      expect(error.code).toBe('FLOW_INVALID');
      expect(error.problems).toEqual([
        expect.stringMatching(
          new RegExp(
            `delegates\\[0\\]: delegate flow "${name.replace('.', '\\.')}" is not a flow file of the server's flows folder`,
          ),
        ),
      ]);
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain(flowsDir);
    }
  });

  it('over HTTP: refuses hidden files and folders and node_modules, even inside the flows folder', async () => {
    for (const delegate of [
      '.env',
      '.hidden/flow.yaml',
      'node_modules/pkg/flow.yaml',
      'sub/../.hidden/flow.yaml',
    ]) {
      const error = await errorOf(
        await target.call('POST', '/v1/runs', {
          token: SEC.admin,
          json: { flow: flowDelegating([delegate]), input: 'x' },
        }),
      );
      expect(error, delegate).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
      expect(error.problems?.join('\n'), delegate).toMatch(/is not a flow file of the server's flows folder/);
      expect(JSON.stringify(error)).not.toContain(CANARY);
    }
    expect((await upload(['sub/child.yaml'])).status).toBe(201);
  });
});

describe('delegate refusals over HTTP', () => {
  it('are one message whatever the cause, so they cannot map the flows folder', async () => {
    // Outside the folder, not found inside it (guessing its name), hidden, not a flow: one answer each.
    const folder = flowsDir.split('/').at(-1) as string;
    const probes = [
      '/etc/passwd',
      '../nowhere.yaml',
      `../${folder}/missing.yaml`,
      'missing.yaml',
      `../${folder}/env.yaml`,
      '.env',
      'node_modules/pkg/flow.yaml',
      '/nonexistent/dir/x.yaml',
    ];
    const answers = new Set<string>();
    for (const delegate of probes) {
      const { status, text } = await upload([delegate]);
      expect(status, delegate).toBe(400);
      const error = (JSON.parse(text) as { error: { problems: string[] } }).error;
      expect(error.problems, delegate).toHaveLength(1);
      // The same answer but for the delegate as written (the location prefix is the same column for all).
      answers.add((error.problems[0] as string).replace(JSON.stringify(delegate), 'X'));
      expect(text).not.toContain(flowsDir);
    }
    expect([...answers]).toEqual([
      "upload.json:1:90 nodes[0].delegates[0]: delegate flow X is not a flow file of the server's flows folder; flows sent over HTTP may delegate only to visible flow files there (not hidden ones, nor in node_modules)",
    ]);
    expect((await upload([`../${folder}/sub/child.yaml`])).status).toBe(201);
  });
});

describe('validate (the CLI) with delegates that are not flows', () => {
  const world = new World();
  beforeAll(() => ensureBuilt(), 300_000);

  it('exits 2 naming each file, without quoting it', async () => {
    for (const [name, text] of Object.entries(NOT_FLOWS)) world.write(name, text);
    world.write(
      'flow.yaml',
      `id: parent\nlocale: en\nnodes:\n  - id: main\n    delegates: [env.yaml, broken.yaml, list.yaml, data.json, /etc/passwd]\n`,
    );
    const result = await world.cli(['validate', 'flow.yaml', '--offline'], { db: false });
    expect(result.code).toBe(2);
    const output = result.stdout + result.stderr;
    for (const name of [...Object.keys(NOT_FLOWS), '/etc/passwd'])
      expect(output).toContain(`"${name}" is not a valid flow file`);
    expect(output).not.toContain(CANARY);
    expect(output).not.toMatch(/root:/);
  });
});
