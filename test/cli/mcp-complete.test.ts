import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT, runCli, World } from './helpers/cli.js';

/**
 * `agent-runtime mcp complete` against the official reference server: `completable-prompt` completes
 * `department`, and `name` from the department in the context; the dynamic text template completes
 * its `resourceId`.
 */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

let world: World;
beforeAll(() => ensureBuilt());
afterEach(async () => {
  await world?.dispose();
});

function flowFile(): string {
  world = new World();
  const file = join(world.dir, 'flow.yaml');
  writeFileSync(
    file,
    [
      'id: completing',
      'locale: en',
      'mcpServers:',
      `  everything: { command: node, args: [${JSON.stringify(EVERYTHING)}, stdio] }`,
      'nodes:',
      '  - id: a',
      '    instructions: Do the task.',
    ].join('\n'),
  );
  return file;
}

describe('agent-runtime mcp complete (server-everything)', () => {
  it('prints the values of a prompt argument, narrowed by what was typed and by --context', async () => {
    const file = flowFile();
    const departments = await runCli(
      ['mcp', 'complete', file, 'everything', 'department', '--prompt', 'completable-prompt'],
      { cwd: world.dir },
    );
    expect(departments).toMatchObject({ code: 0, stdout: 'Engineering\nSales\nMarketing\nSupport\n' });
    const typed = await runCli(
      ['mcp', 'complete', file, 'everything', 'department', 'S', '--prompt', 'completable-prompt'],
      { cwd: world.dir },
    );
    expect(typed.stdout).toBe('Sales\nSupport\n');
    const names = await runCli(
      [
        'mcp',
        'complete',
        file,
        'everything',
        'name',
        '--prompt',
        'completable-prompt',
        '--context',
        'department=Sales',
      ],
      { cwd: world.dir },
    );
    expect(names.stdout).toBe('David\nEve\nFrank\n');
  }, 60_000);

  it('completes a resource template variable', async () => {
    const file = flowFile();
    const ids = await runCli(
      [
        'mcp',
        'complete',
        file,
        'everything',
        'resourceId',
        '1',
        '--template',
        'demo://resource/dynamic/text/{resourceId}',
      ],
      { cwd: world.dir },
    );
    expect(ids.code).toBe(0);
    expect(ids.stdout).toBe('1\n');
  }, 60_000);

  it('bad input is a usage error (exit 2) naming what is wrong', async () => {
    const file = flowFile();
    const neither = await runCli(['mcp', 'complete', file, 'everything', 'department'], { cwd: world.dir });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give either --prompt NAME or --template URI');
    const server = await runCli(['mcp', 'complete', file, 'nope', 'x', '--prompt', 'p'], { cwd: world.dir });
    expect(server.code).toBe(2);
    expect(server.stderr).toContain('flow completing declares no MCP server "nope"');
    const context = await runCli(
      ['mcp', 'complete', file, 'everything', 'x', '--prompt', 'p', '--context', 'oops'],
      { cwd: world.dir },
    );
    expect(context.code).toBe(2);
    expect(context.stderr).toContain('--context "oops": expected NAME=VALUE');
    expect(`${neither.stderr}${server.stderr}${context.stderr}`).not.toMatch(/\n\s+at /);
  }, 60_000);
});
