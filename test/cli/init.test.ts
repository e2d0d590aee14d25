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

  it("completes a package.json npm made: adds the missing scripts and dependencies, keeps the user's", async () => {
    const npmMade = {
      name: 'mine',
      version: '1.0.0',
      main: 'index.js',
      scripts: { test: 'echo "Error: no test specified" && exit 1', start: 'node index.js' },
      devDependencies: { zod: '^4.0.0' },
    };
    w.write('package.json', JSON.stringify(npmMade, null, 4));
    const init = await w.cli(['init'], { db: false });
    expect(init.code, init.stderr).toBe(0);
    const text = readFileSync(join(w.dir, 'package.json'), 'utf8');
    expect(text).toMatch(/^\{\n {4}"name"/);
    const manifest = JSON.parse(text) as {
      name: string;
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(manifest.name).toBe('mine');
    expect(manifest.scripts).toEqual({
      test: 'node --test',
      start: 'node index.js',
      validate: 'agent-runtime validate flow.yaml',
      serve: 'agent-runtime serve --flows . --tokens tokens.yaml',
    });
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      '@modelcontextprotocol/server',
      'g2rain-agent-runtime',
    ]);
    expect(manifest.devDependencies).toEqual({ zod: '^4.0.0' });
    expect(init.stderr).toMatch(/added to package\.json: scripts validate, serve, test\n/);
    expect(init.stderr).toMatch(
      /added to package\.json: dependencies g2rain-agent-runtime, @modelcontextprotocol\/server\n/,
    );
    expect(init.stderr).toMatch(/npm install\n/);
    expect(init.stderr).toMatch(/ {2}npm test +# the flow’s test/);

    // A second init adds nothing and keeps a test script of the user's.
    const own = { ...manifest, scripts: { ...manifest.scripts, test: 'vitest run' } };
    w.write('package.json', JSON.stringify(own, null, 2));
    const again = await w.cli(['init'], { db: false });
    expect(again.code).toBe(0);
    expect(JSON.parse(readFileSync(join(w.dir, 'package.json'), 'utf8'))).toEqual(own);
    expect(again.stderr).not.toMatch(/added to package\.json/);
    expect(again.stderr).toMatch(/ {2}node --test +# the flow’s test/);

    w.write('package.json', '{ not json');
    const broken = await w.cli(['init'], { db: false });
    expect(broken.code).toBe(0);
    expect(broken.stderr).toMatch(/package\.json left alone \(it is not valid JSON\)/);
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
      // The lines `validate` prints (run checks the flow as validate does before anything is stored).
      const validate = await w.cli(['validate', flow], { db: false });
      // The problem lines `validate` prints, without its closing count line.
      expect(run.stderr).toBe(validate.stderr.split('\n').slice(0, -2).join('\n') + '\n');
      expect(run.stderr).toMatch(
        /twice\.yaml:\d+:\d+ mcpServers\.b: servers "a" and "b" both export tools named "space_list"/,
      );
      expect(run.stderr).not.toMatch(/internal error|\n\s+at /);
      expect((await (await w.db()).listRuns()).length).toBe(0);
    } finally {
      await w.dispose();
    }
  });
});
