import { randomBytes } from 'node:crypto';
import { constants, existsSync, lstatSync, readFileSync, readdirSync, statSync, type Stats } from 'node:fs';
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { COMMON, UsageError, parse } from './args.js';
import type { Command } from './commands.js';
import { packageRoot } from './usage.js';

/** The starter project `init` copies, shipped in the package's `templates/starter`. */
const template = (): string => join(packageRoot().dir, 'templates', 'starter');

/**
 * `init [DIR]` (default: the current folder): writes a starter project — a flow with one read and one
 * gated write tool on a small MCP server of its own, a scripted-model file, a README, a tokens file for
 * `serve`, a test of the flow, and a package.json. Files that already exist are kept, never overwritten
 * (each one is named); an existing package.json gets the scripts and dependencies it lacks (named too).
 * Exit 0; 2 when DIR is a file, or when one of those files (or a folder on the way) is a symbolic link.
 */
export const init: Command = async (argv) => {
  const parsed = parse('init', argv, COMMON, { min: 0, max: 1, names: 'DIR' });
  const dir = resolve(parsed.positionals[0] ?? '.');
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`init: ${dir} is not a folder`);
  await mkdir(dir, { recursive: true });
  const files = templateFiles(template());
  refuseLinks(dir, [...files.map(targetName), 'package.json', 'tokens.yaml']);
  const written: string[] = [];
  const kept: string[] = [];
  const place = async (name: string, write: (target: string) => Promise<void>): Promise<void> => {
    const target = join(dir, name);
    if (existsSync(target)) return void kept.push(name);
    await mkdir(join(target, '..'), { recursive: true });
    await write(target);
    written.push(name);
  };
  // Created exclusively (O_EXCL): a link that appeared since the check is refused, never written through.
  for (const name of files) {
    await place(targetName(name), (target) =>
      copyFile(join(template(), name), target, constants.COPYFILE_EXCL),
    );
  }
  const manifestPath = join(dir, 'package.json');
  const existing = existsSync(manifestPath);
  await place('package.json', (target) =>
    writeFile(target, `${JSON.stringify(starterManifest(dir), null, 2)}\n`, { flag: 'wx' }),
  );
  const completed = existing ? await completeManifest(manifestPath, starterManifest(dir)) : null;
  await place('tokens.yaml', async (target) => {
    await writeFile(target, tokensYaml(), { mode: 0o600, flag: 'wx' });
    await chmod(target, 0o600);
  });
  process.stderr.write(report(dir, written, kept, completed));
  return 0;
};

/** The name a template file is written under (`gitignore` → `.gitignore`). */
function targetName(name: string): string {
  return name === 'gitignore' ? '.gitignore' : name;
}

/**
 * Refuses (UsageError, exit 2, nothing written) when a file `init` would write or complete, or a
 * folder on the way to one, is a symbolic link — dangling or not, wherever it points: writing through
 * it would put the starter's files (or complete a package.json) outside DIR. DIR itself may be a link.
 */
function refuseLinks(dir: string, names: readonly string[]): void {
  const links = new Set<string>();
  for (const name of names) {
    const parts = name.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const relativePath = parts.slice(0, i).join('/');
      const stat = lstatOrNull(join(dir, relativePath));
      if (stat === null) break;
      if (stat.isSymbolicLink()) {
        links.add(relativePath);
        break;
      }
    }
  }
  if (links.size === 0) return;
  throw new UsageError(
    `init: ${[...links].sort().join(', ')} in ${dir} ${links.size === 1 ? 'is a symbolic link' : 'are symbolic links'}; init never writes through one (nothing was written): remove ${links.size === 1 ? 'it' : 'them'} or choose another folder`,
  );
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

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

/** The package.json of the starter: its scripts and the packages its flow, server and test need. */
interface Manifest {
  name?: string;
  private?: boolean;
  type?: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
}

function starterManifest(dir: string): Manifest {
  const ours = JSON.parse(readFileSync(join(packageRoot().dir, 'package.json'), 'utf8')) as {
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
  return {
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
}

/** The `test` script `npm init` writes: a placeholder that fails, not a script of the user's. */
const NPM_PLACEHOLDER_TEST = 'echo "Error: no test specified" && exit 1';

/** What `init` added to a package.json that was already there. */
interface Completion {
  scripts: string[];
  dependencies: string[];
  /** Why the file was left alone (it is not a JSON object), or null. */
  unreadable: string | null;
}

/**
 * Adds to an existing package.json (e.g. one `npm init` made) the starter's scripts and dependencies it
 * lacks, so the README's `npm test` and `npm start` work; never changes one the user has (npm's failing
 * `test` placeholder excepted). Keeps the file's indentation.
 */
async function completeManifest(path: string, starter: Manifest): Promise<Completion> {
  const text = readFileSync(path, 'utf8');
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    return { scripts: [], dependencies: [], unreadable: 'it is not valid JSON' };
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    return { scripts: [], dependencies: [], unreadable: 'it is not a JSON object' };
  const target = manifest as Record<string, unknown>;
  const scripts = addMissing(
    target,
    'scripts',
    starter.scripts,
    (key, value) => key === 'test' && value === NPM_PLACEHOLDER_TEST,
  );
  const dependencies = addMissing(target, 'dependencies', starter.dependencies, () => false, [
    'devDependencies',
  ]);
  if (scripts.length + dependencies.length > 0) {
    const indent = /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? 2;
    await writeFile(path, `${JSON.stringify(target, null, indent)}\n`);
  }
  return { scripts, dependencies, unreadable: null };
}

/**
 * Adds each entry of `wanted` missing from `target[field]` (or, for packages, from any of `alsoIn`);
 * replaces one only when `replaceable` says it is a placeholder. Returns the names added.
 */
function addMissing(
  target: Record<string, unknown>,
  field: string,
  wanted: Record<string, string>,
  replaceable: (key: string, value: unknown) => boolean,
  alsoIn: string[] = [],
): string[] {
  const current = target[field];
  if (current !== undefined && (typeof current !== 'object' || current === null || Array.isArray(current)))
    return [];
  const entries = (current ?? {}) as Record<string, unknown>;
  const elsewhere = alsoIn.map((name) => target[name]).filter((v) => typeof v === 'object' && v !== null);
  const added: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    const present = key in entries || elsewhere.some((other) => key in other);
    if (present && !replaceable(key, entries[key])) continue;
    entries[key] = value;
    added.push(key);
  }
  if (added.length > 0) target[field] = entries;
  return added;
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

function report(dir: string, written: string[], kept: string[], completed: Completion | null): string {
  const near = relative(process.cwd(), dir);
  const where = near === '' ? '.' : near.startsWith('..') ? dir : near;
  const lines = [`agent-runtime: starter written to ${where}: ${written.join(', ') || 'nothing new'}`];
  if (kept.length > 0) lines.push(`  kept as they were (not overwritten): ${kept.join(', ')}`);
  if (completed?.unreadable)
    lines.push(
      `  package.json left alone (${completed.unreadable}): add the scripts and dependencies yourself`,
    );
  if (completed && completed.scripts.length > 0)
    lines.push(`  added to package.json: scripts ${completed.scripts.join(', ')}`);
  if (completed && completed.dependencies.length > 0)
    lines.push(`  added to package.json: dependencies ${completed.dependencies.join(', ')}`);
  lines.push('next:');
  if (where !== '.') lines.push(`  cd ${where}`);
  const installNeeded =
    !existsSync(join(dir, 'node_modules')) ||
    written.includes('package.json') ||
    (completed?.dependencies.length ?? 0) > 0;
  if (installNeeded) lines.push('  npm install');
  lines.push(
    '  npx agent-runtime run flow.yaml --input "Add a task: water the plants"   # stops at the approval',
  );
  const npmTest = !completed || completed.scripts.includes('test');
  const test = npmTest ? 'npm test' : 'node --test';
  lines.push(`  ${test.padEnd(72)}# the flow’s test`);
  return `${lines.join('\n')}\n`;
}
