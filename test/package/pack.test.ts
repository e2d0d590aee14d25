/**
 * The package as a user gets it: packed by `npm pack` (its real prepack/postpack), installed into an
 * empty folder from the tarball, then `npx agent-runtime init` and the starter's flow to its approval,
 * and the starter's own test (`npm test`, which imports `g2rain-agent-runtime/testing`). On an older
 * Node (env AGENT_RUNTIME_OLD_NODE, else /usr/bin/node when it is older than 22.13) every entry point
 * must print one line and exit 2.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeSupported } from '../../src/node-version.js';
import { NODE, REPO_ROOT, ensureBuilt } from '../acceptance/build.js';

const PATH = [dirname(NODE), process.env.PATH ?? ''].join(delimiter);
const ENV = {
  ...process.env,
  PATH,
  npm_config_update_notifier: 'false',
  NO_COLOR: '1',
  AGENT_RUNTIME_DB: '',
};
const SHIPPED = [
  'package.json',
  'README.md',
  'scripts/pack-manifest.mjs',
  'dist/src',
  'examples',
  'schema',
  'templates',
  'web/dist',
];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function sh(
  command: string,
  args: string[],
  cwd: string,
  timeoutMs = 120_000,
  env: NodeJS.ProcessEnv = ENV,
): Ran {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** An older Node to check the version guard with, or null when this machine has none. */
function oldNode(): string | null {
  const candidate = process.env.AGENT_RUNTIME_OLD_NODE ?? '/usr/bin/node';
  if (!existsSync(candidate)) return null;
  const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
  return version !== '' && !nodeSupported(version) ? candidate : null;
}

let work: string;
let project: string;
let install: Ran;

beforeAll(() => {
  ensureBuilt();
  work = mkdtempSync(join(tmpdir(), 'agent-runtime-pack-'));
  // Pack a copy of what the package ships, so the real package.json is never touched by prepack.
  const stage = join(work, 'stage');
  for (const path of SHIPPED) {
    if (existsSync(join(REPO_ROOT, path)))
      cpSync(join(REPO_ROOT, path), join(stage, path), { recursive: true });
  }
  const packed = sh('npm', ['pack', '--pack-destination', work], stage, 120_000, {
    ...ENV,
    AGENT_RUNTIME_PACK_PREBUILT: '1',
  });
  expect(packed.code, packed.stderr).toBe(0);
  // postpack put the manifest back as it was (a clone still builds through `prepare`).
  expect(
    (JSON.parse(readFileSync(join(stage, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts.prepare,
  ).toBe('npm run build');
  expect(existsSync(join(stage, '.package.json.pack-backup'))).toBe(false);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball: ${packed.stdout}${packed.stderr}`);
  project = join(work, 'project');
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'fresh', private: true }, null, 2)}\n`,
  );
  install = sh(
    'npm',
    ['install', join(work, tarball), '--prefer-offline', '--no-audit', '--no-fund'],
    project,
    240_000,
  );
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true, maxRetries: 3 });
}, 120_000);

describe('the packed package', () => {
  it('installs into an empty project without warnings, built, with no build script left', () => {
    expect(install.code, install.stderr).toBe(0);
    expect(install.stderr).not.toMatch(/\bwarn/i);
    const installed = join(project, 'node_modules', 'g2rain-agent-runtime');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    expect(manifest.scripts?.prepare).toBeUndefined();
    for (const file of ['dist/src/cli/bin.js', 'dist/src/testing/index.js', 'templates/starter/flow.yaml'])
      expect(existsSync(join(installed, file)), file).toBe(true);
    expect(existsSync(join(installed, 'src')) || existsSync(join(installed, 'test'))).toBe(false);
  });

  it('`init` writes a starter whose flow stops at its approval and whose test passes', () => {
    const init = sh('npx', ['agent-runtime', 'init'], project);
    expect(init.code, init.stderr).toBe(0);
    for (const file of [
      'flow.yaml',
      'turns.yaml',
      'mcp/tasks-server.mjs',
      'README.md',
      'tokens.yaml',
      'test/flow.test.mjs',
    ])
      expect(existsSync(join(project, file)), file).toBe(true);
    // npm made package.json without scripts: init adds them (and the starter's dependencies).
    expect(init.stderr).toMatch(/added to package\.json: scripts start, validate, serve, test\n/);

    const run = sh(
      'npx',
      ['agent-runtime', 'run', 'flow.yaml', '--input', 'Add a task: water the plants', '--json'],
      project,
    );
    expect(run.code, run.stderr).toBe(3);
    // Run through npx: the printed follow-up must be the npx form too (agent-runtime is not on PATH).
    expect(run.stderr).toMatch(/continue with: npx agent-runtime approve run_\w+/);
    const summary = JSON.parse(run.stdout) as {
      status: string;
      suspension?: { kind: string; pending: { tool?: string } };
    };
    expect(summary).toMatchObject({
      status: 'suspended',
      suspension: { kind: 'APPROVAL', pending: { tool: 'task_add' } },
    });

    const test = sh('npm', ['test'], project);
    expect(test.code, `${test.stdout}${test.stderr}`).toBe(0);
    expect(test.stdout).toMatch(/pass 3/);
    expect(test.stderr).not.toMatch(/warning/i);
  });

  const old = oldNode();
  it.skipIf(old === null)('on an older Node, the CLI and every import print one line and exit 2', () => {
    const node = old as string;
    const installed = join(project, 'node_modules', 'g2rain-agent-runtime');
    const runs = [
      sh(node, [join(installed, 'dist/src/cli/bin.js'), 'status', 'run_x', '--db', 'memory'], project),
      ...['', '/testing', '/server', '/postgres'].map((sub) =>
        sh(node, ['--input-type=module', '-e', `await import('g2rain-agent-runtime${sub}')`], project),
      ),
    ];
    for (const ran of runs) {
      expect(ran.code, ran.stderr).toBe(2);
      expect(ran.stderr.trim().split('\n')).toHaveLength(1);
      expect(ran.stderr).toMatch(/requires Node\.js 22\.13 or newer \(found \d+\.\d+\.\d+\)/);
    }
  });
});
