import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { UsageError } from '../../src/cli/args.js';
import { init } from '../../src/cli/init.js';

/**
 * `agent-runtime init [DIR]` (docs/cli.md, "init") called in this process: what it writes, what it
 * keeps, how it completes a package.json, and its refusals (a DIR that is a file, symbolic links, bad
 * arguments). test/cli/init.test.ts runs the starter end to end as subprocesses.
 */
const REPO = resolve(import.meta.dirname, '../..');
const TEMPLATE = join(REPO, 'templates', 'starter');
const OURS = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
};
const TEMPLATE_FILES = [
  'README.md',
  'flow.yaml',
  '.gitignore',
  'mcp/tasks-server.mjs',
  'test/flow.test.mjs',
  'turns.yaml',
];
const RUN_LINE =
  '  npx agent-runtime run flow.yaml --input "Add a task: water the plants"   # stops at the approval';

let stderr: string[];
let root: string;
beforeEach(() => {
  stderr = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
  root = mkdtempSync(join(tmpdir(), 'init-in-process-'));
});
afterEach(() => {
  vi.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

/** Every file and link under `dir` (relative, sorted), folders left out. */
function tree(dir: string, under = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(join(dir, under), { withFileTypes: true })
    .flatMap((entry) => {
      const name = under === '' ? entry.name : `${under}/${entry.name}`;
      return entry.isDirectory() ? tree(dir, name) : [name];
    })
    .sort();
}

async function refused(argv: string[]): Promise<UsageError> {
  const error = await init(argv).then(
    (code) => new Error(`exited ${code} instead of refusing`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UsageError);
  return error as UsageError;
}

const npmTestLine = (test: string) => `  ${test.padEnd(72)}# the flow’s test`;

describe('init in an empty folder', () => {
  it('creates DIR and writes the template, package.json and tokens.yaml, reporting each', async () => {
    const dir = join(root, 'a', 'My Agent!!');
    expect(await init([dir])).toBe(0);
    expect(tree(dir)).toEqual([...TEMPLATE_FILES, 'package.json', 'tokens.yaml'].sort());
    expect(stderr.join('')).toBe(
      [
        `agent-runtime: starter written to ${dir}: ${[...TEMPLATE_FILES, 'package.json', 'tokens.yaml'].join(', ')}`,
        'next:',
        `  cd ${dir}`,
        '  npm install',
        RUN_LINE,
        npmTestLine('npm test'),
        '',
      ].join('\n'),
    );
    for (const name of TEMPLATE_FILES) {
      const source = name === '.gitignore' ? 'gitignore' : name;
      expect(readFileSync(join(dir, name), 'utf8'), name).toBe(readFileSync(join(TEMPLATE, source), 'utf8'));
    }
  });

  it('writes a package.json named after the folder, with the starter’s scripts and dependencies', async () => {
    const dir = join(root, 'My Agent!!');
    await init([dir]);
    const text = readFileSync(join(dir, 'package.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.parse(text)).toEqual({
      name: 'my-agent',
      private: true,
      type: 'module',
      scripts: {
        start: 'agent-runtime run flow.yaml --input "Add a task: water the plants"',
        validate: 'agent-runtime validate flow.yaml',
        serve: 'agent-runtime serve --flows . --tokens tokens.yaml',
        test: 'node --test',
      },
      dependencies: {
        [OURS.name]: `^${OURS.version}`,
        '@modelcontextprotocol/server': OURS.dependencies['@modelcontextprotocol/server'],
        zod: OURS.dependencies.zod,
      },
    });
  });

  it('names the package my-agent when the folder name has no letter or digit', async () => {
    const dir = join(root, '__..__');
    await init([dir]);
    expect((JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string }).name).toBe(
      'my-agent',
    );
  });

  it('writes tokens.yaml 0600 with three distinct 32-character tokens, one per role', async () => {
    const dir = join(root, 'p');
    await init([dir]);
    expect(statSync(join(dir, 'tokens.yaml')).mode & 0o777).toBe(0o600);
    const text = readFileSync(join(dir, 'tokens.yaml'), 'utf8');
    expect(text.split('\n').filter((l) => l.startsWith('#'))).toHaveLength(2);
    const tokens = parseYaml(text) as { token: string; role: string; name: string }[];
    expect(tokens.map((t) => [t.role, t.name])).toEqual([
      ['admin', 'admin'],
      ['operator', 'operator'],
      ['viewer', 'viewer'],
    ]);
    for (const { token } of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Set(tokens.map((t) => t.token)).size).toBe(3);
    // Another init elsewhere draws other tokens.
    await init([join(root, 'q')]);
    expect(readFileSync(join(root, 'q', 'tokens.yaml'), 'utf8')).not.toBe(text);
  });
});

describe('init over an existing project', () => {
  it('a second run writes nothing new, keeps every file, and drops npm install once node_modules exists', async () => {
    const dir = join(root, 'p');
    await init([dir]);
    const before = Object.fromEntries(tree(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    mkdirSync(join(dir, 'node_modules'));
    stderr.length = 0;
    expect(await init([dir])).toBe(0);
    expect(Object.fromEntries(tree(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]))).toEqual(before);
    expect(stderr.join('')).toBe(
      [
        `agent-runtime: starter written to ${dir}: nothing new`,
        `  kept as they were (not overwritten): ${[...TEMPLATE_FILES, 'package.json', 'tokens.yaml'].join(', ')}`,
        'next:',
        `  cd ${dir}`,
        RUN_LINE,
        // The package.json is not one init completed with a test script: the test is run directly.
        npmTestLine('node --test'),
        '',
      ].join('\n'),
    );
  });

  it('leaves a package.json that is a JSON array alone, saying so', async () => {
    writeFileSync(join(root, 'package.json'), '[1, 2]\n');
    expect(await init([root])).toBe(0);
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe('[1, 2]\n');
    expect(stderr.join('')).toContain(
      '\n  package.json left alone (it is not a JSON object): add the scripts and dependencies yourself\n',
    );
    expect(stderr.join('')).not.toContain('added to package.json');
  });

  it('adds no script to a "scripts" that is not an object, but adds the dependencies; keeps tab indentation', async () => {
    writeFileSync(join(root, 'package.json'), '{\n\t"name": "mine",\n\t"scripts": "oops"\n}\n');
    await init([root]);
    const text = readFileSync(join(root, 'package.json'), 'utf8');
    expect(text.startsWith('{\n\t"name": "mine",\n\t"scripts": "oops",\n\t"dependencies": {\n\t\t')).toBe(
      true,
    );
    expect(JSON.parse(text)).toEqual({
      name: 'mine',
      scripts: 'oops',
      dependencies: {
        [OURS.name]: `^${OURS.version}`,
        '@modelcontextprotocol/server': OURS.dependencies['@modelcontextprotocol/server'],
        zod: OURS.dependencies.zod,
      },
    });
    const report = stderr.join('');
    expect(report).toContain(
      `\n  added to package.json: dependencies ${OURS.name}, @modelcontextprotocol/server, zod\n`,
    );
    expect(report).not.toContain('added to package.json: scripts');
    expect(report).toContain('\n  npm install\n');
  });

  it('keeps a dependency the user has at another version, and does not rewrite a complete file', async () => {
    const manifest = {
      name: 'mine',
      scripts: { start: 's', validate: 'v', serve: 'x', test: 't' },
      dependencies: { [OURS.name]: '0.0.1', '@modelcontextprotocol/server': '*', zod: '3' },
    };
    const text = JSON.stringify(manifest); // one line: rewriting it would change the bytes
    writeFileSync(join(root, 'package.json'), text);
    await init([root]);
    expect(readFileSync(join(root, 'package.json'), 'utf8')).toBe(text);
    expect(stderr.join('')).not.toContain('added to package.json');
  });
});

describe('init refusals', () => {
  it('refuses a DIR that is a file, writing nothing', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const error = await refused([file]);
    expect(error.message).toBe(`init: ${file} is not a folder`);
    expect(tree(root)).toEqual(['a-file']);
  });

  it('refuses a file it would write that is a symbolic link, dangling or not, writing nothing', async () => {
    const outside = join(root, 'outside.yaml');
    writeFileSync(outside, 'theirs\n');
    const dir = join(root, 'p');
    mkdirSync(dir);
    symlinkSync(outside, join(dir, 'flow.yaml'));
    const error = await refused([dir]);
    expect(error.message).toBe(
      `init: flow.yaml in ${dir} is a symbolic link; init never writes through one (nothing was written): remove it or choose another folder`,
    );
    expect(readFileSync(outside, 'utf8')).toBe('theirs\n');
    expect(tree(dir)).toEqual(['flow.yaml']);

    rmSync(join(dir, 'flow.yaml'));
    symlinkSync(join(root, 'missing.json'), join(dir, 'package.json'));
    expect((await refused([dir])).message).toMatch(/^init: package\.json in .* is a symbolic link;/);
    expect(existsSync(join(root, 'missing.json'))).toBe(false);
  });

  it('names every link, sorted, including a folder on the way (mcp/)', async () => {
    const dir = join(root, 'p');
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(dir);
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(dir, 'mcp'));
    symlinkSync(join(elsewhere, 'tokens'), join(dir, 'tokens.yaml'));
    symlinkSync(join(elsewhere, 'ignore'), join(dir, '.gitignore'));
    const error = await refused([dir]);
    expect(error.message).toBe(
      `init: .gitignore, mcp, tokens.yaml in ${dir} are symbolic links; init never writes through one (nothing was written): remove them or choose another folder`,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('writes into DIR when DIR itself is a link', async () => {
    const real = join(root, 'real');
    mkdirSync(real);
    symlinkSync(real, join(root, 'link'));
    expect(await init([join(root, 'link')])).toBe(0);
    expect(tree(real)).toContain('flow.yaml');
    expect(lstatSync(join(root, 'link')).isSymbolicLink()).toBe(true);
  });

  it('refuses a second folder and options it does not know', async () => {
    expect((await refused([join(root, 'a'), join(root, 'b')])).message).toBe(
      `init: unexpected argument ${JSON.stringify(join(root, 'b'))}`,
    );
    expect((await refused(['--force', root])).message).toMatch(
      /^init: unknown option --force.*; --help lists the options$/,
    );
    expect(tree(root)).toEqual([]);
  });
});
