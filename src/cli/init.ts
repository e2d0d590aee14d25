import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { COMMON, UsageError, parse } from './args.js';
import type { Command } from './commands.js';

/** The package root (dist/src/cli → three levels up), where `templates/starter` ships. */
const PACKAGE_ROOT = resolve(import.meta.dirname, '../../..');
const TEMPLATE = join(PACKAGE_ROOT, 'templates', 'starter');

/**
 * `init [DIR]` (default: the current folder): writes a starter project — a flow with one read and one
 * gated write tool on a small MCP server of its own, a scripted-model file, a README, a tokens file for
 * `serve`, a test of the flow, and a package.json. Files that already exist are kept, never overwritten
 * (each one is named). Exit 0; 2 when DIR is a file.
 */
export const init: Command = async (argv) => {
  const parsed = parse('init', argv, COMMON, { min: 0, max: 1, names: 'DIR' });
  const dir = resolve(parsed.positionals[0] ?? '.');
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`init: ${dir} is not a folder`);
  await mkdir(dir, { recursive: true });
  const written: string[] = [];
  const kept: string[] = [];
  const place = async (name: string, write: (target: string) => Promise<void>): Promise<void> => {
    const target = join(dir, name);
    if (existsSync(target)) return void kept.push(name);
    await mkdir(join(target, '..'), { recursive: true });
    await write(target);
    written.push(name);
  };
  for (const name of templateFiles(TEMPLATE)) {
    await place(name === 'gitignore' ? '.gitignore' : name, (target) =>
      copyFile(join(TEMPLATE, name), target),
    );
  }
  await place('package.json', (target) => writeFile(target, packageJson(dir)));
  await place('tokens.yaml', async (target) => {
    await writeFile(target, tokensYaml(), { mode: 0o600 });
    await chmod(target, 0o600);
  });
  process.stderr.write(report(dir, written, kept));
  return 0;
};

/** Every file of the template, relative to it (`.gitignore` ships as `gitignore`: npm drops dot-files named so). */
function templateFiles(root: string, under = ''): string[] {
  const names: string[] = [];
  for (const entry of readdirSync(join(root, under), { withFileTypes: true })) {
    const name = under === '' ? entry.name : `${under}/${entry.name}`;
    if (entry.isDirectory()) names.push(...templateFiles(root, name));
    else names.push(name);
  }
  return names.sort();
}

function packageJson(dir: string): string {
  const ours = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
  };
  const deps = ours.dependencies;
  const name =
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'my-agent';
  const manifest = {
    name,
    private: true,
    type: 'module',
    scripts: {
      start: 'agent-runtime run flow.yaml --input "Add a task: water the plants"',
      validate: 'agent-runtime validate flow.yaml',
      serve: 'agent-runtime serve --flows . --tokens tokens.yaml',
      test: 'node --test',
    },
    dependencies: {
      [ours.name]: `^${ours.version}`,
      '@modelcontextprotocol/server': deps['@modelcontextprotocol/server'] ?? 'latest',
      zod: deps.zod ?? 'latest',
    },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

function tokensYaml(): string {
  const token = (): string => randomBytes(24).toString('base64url');
  return [
    '# Bearer tokens for `agent-runtime serve --tokens tokens.yaml` (made by `init`; keep this file private).',
    '# Roles: viewer reads, operator starts registered flows and approves, admin may do everything.',
    `- { token: ${token()}, role: admin, name: admin }`,
    `- { token: ${token()}, role: operator, name: operator }`,
    `- { token: ${token()}, role: viewer, name: viewer }`,
    '',
  ].join('\n');
}

function report(dir: string, written: string[], kept: string[]): string {
  const near = relative(process.cwd(), dir);
  const where = near === '' ? '.' : near.startsWith('..') ? dir : near;
  const lines = [`agent-runtime: starter written to ${where}: ${written.join(', ') || 'nothing new'}`];
  if (kept.length > 0) lines.push(`  kept as they were (not overwritten): ${kept.join(', ')}`);
  lines.push('next:');
  if (where !== '.') lines.push(`  cd ${where}`);
  if (!existsSync(join(dir, 'node_modules'))) lines.push('  npm install');
  lines.push(
    '  npx agent-runtime run flow.yaml --input "Add a task: water the plants"   # stops at the approval',
  );
  const test = kept.includes('package.json') ? 'node --test' : 'npm test';
  lines.push(`  ${test.padEnd(72)}# the flow’s test`);
  return `${lines.join('\n')}\n`;
}
