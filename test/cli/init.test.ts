import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT, World, ensureBuilt, type Summary } from './helpers/cli.js';

/**
 * `agent-runtime init [DIR]` and `run`'s refusal of tool-name conflicts, as subprocesses. The starter's
 * MCP server imports @modelcontextprotocol/server and zod, which a user's `npm install` provides; here
 * the starter folder borrows the repository's node_modules.
 */
describe('cli: init', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('writes a starter whose flow runs at once to its approval, and approving completes it', async () => {
    const init = await w.cli(['init', 'my-agent'], { db: false });
    expect(init.code, init.stderr).toBe(0);
    const dir = join(w.dir, 'my-agent');
    for (const file of [
      'flow.yaml',
      'turns.yaml',
      'mcp/tasks-server.mjs',
      'README.md',
      'test/flow.test.mjs',
      'package.json',
      'tokens.yaml',
      '.gitignore',
    ])
      expect(existsSync(join(dir, file)), file).toBe(true);
    expect(statSync(join(dir, 'tokens.yaml')).mode & 0o777).toBe(0o600);
    const tokens = parse(readFileSync(join(dir, 'tokens.yaml'), 'utf8')) as { token: string; role: string }[];
    expect(tokens.map((t) => t.role)).toEqual(['admin', 'operator', 'viewer']);
    expect(new Set(tokens.map((t) => t.token)).size).toBe(3);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      dependencies: Record<string, string>;
    };
    expect(manifest.name).toBe('my-agent');
    expect(Object.keys(manifest.dependencies)).toContain('g2rain-agent-runtime');
    expect(init.stderr).toMatch(/next:\n {2}cd my-agent/);

    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
    const run = await w.cli([
      'run',
      join(dir, 'flow.yaml'),
      '--input',
      'Add a task: water the plants',
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(3);
    const summary = run.json as Summary;
    expect(summary).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'APPROVAL', pending: { tool: 'task_add' } },
    });
    const approved = await w.cli(['approve', summary.runId, '--json']);
    expect(approved.code, approved.stderr).toBe(0);
    expect((approved.json as Summary).outputs).toEqual({ add: { taskId: 'water-the-plants' } });
    expect(JSON.parse(readFileSync(join(dir, '.data/tasks.json'), 'utf8'))).toEqual([
      { id: 'water-the-plants', title: 'water the plants', done: false },
    ]);
  });

  it('keeps files that exist (naming them), and refuses a DIR that is a file', async () => {
    w.write('flow.yaml', 'mine\n');
    const init = await w.cli(['init'], { db: false });
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(join(w.dir, 'flow.yaml'), 'utf8')).toBe('mine\n');
    expect(init.stderr).toMatch(/kept as they were \(not overwritten\): flow\.yaml/);
    expect(existsSync(join(w.dir, 'turns.yaml'))).toBe(true);

    writeFileSync(join(w.dir, 'a-file'), 'x');
    const refused = await w.cli(['init', 'a-file'], { db: false });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^agent-runtime: init: .*a-file is not a folder\n$/);
  });
});

describe('cli: run refuses tool-name conflicts', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('exits 2 naming the conflict, and creates no run', async () => {
    const w = new World();
    try {
      const server = `{ command: node, args: [${JSON.stringify(join(REPO_ROOT, 'examples/demo-cloud/server.js'))}], env: { DEMO_CLOUD_DATA: ${JSON.stringify(w.dataDir)} } }`;
      const flow = w.write(
        'twice.yaml',
        `id: twice\nlocale: en\nmcpServers:\n  a: ${server}\n  b: ${server}\nnodes:\n  - { id: n, tools: [space_list] }\n`,
      );
      w.write('turns.yaml', 'turns: []\n');
      const run = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml', '--json']);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(
        /twice\.yaml aliases: tool name conflicts: .*space_list \(a\.space_list, b\.space_list\)/,
      );
      expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
      expect((await (await w.db()).listRuns()).length).toBe(0);
    } finally {
      await w.dispose();
    }
  });
});
