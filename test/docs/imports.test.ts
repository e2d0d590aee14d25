import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = join(root, 'scripts/check-imports.mjs');

function check(...args: string[]): { status: number | null; out: string } {
  const result = spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

let tree: string | undefined;
afterEach(() => {
  if (tree) rmSync(tree, { recursive: true, force: true });
  tree = undefined;
});

/** A throw-away tree with `files` (path under src/ → source) to run the check on. */
function fixture(files: Record<string, string>): string {
  tree = mkdtempSync(join(tmpdir(), 'check-imports-'));
  for (const [path, text] of Object.entries(files)) {
    const file = join(tree, 'src', path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return tree;
}

/** The rows of the docs/design.md table "Which folder may import which", as folder → allowed folders. */
function documentedRules(): Record<string, string[]> {
  const text = readFileSync(join(root, 'docs/design.md'), 'utf8');
  const section = text.split('### Which folder may import which')[1]?.split('\n## ')[0] ?? '';
  const rules: Record<string, string[]> = {};
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const folder = /^`([^`]+?)\/?`/.exec(cells[1] ?? '')?.[1];
    if (!folder || cells[2] === undefined) continue;
    rules[folder] = [...(cells[2] ?? '').matchAll(/`([^`]+?)\/?`/g)].map((m) => m[1] ?? '').sort();
  }
  return rules;
}

describe('scripts/check-imports.mjs', () => {
  it('passes on the repository', () => {
    const { status, out } = check();
    expect(out).toContain('no cycle, folder rules respected');
    expect(status).toBe(0);
  });

  it('reports an import a folder rule forbids, and lets an allowed one through', () => {
    const dir = fixture({
      'engine/driver.ts': "import { save } from '../store/store.js';\nexport const drive = save;\n",
      'store/store.ts': "import type { Engine } from '../engine/engine.js';\nexport const save = 1;\n",
      'engine/engine.ts': 'export type Engine = number;\n',
    });
    const { status, out } = check(dir);
    expect(status).toBe(1);
    expect(out).toContain('src/store/store.ts imports src/engine/engine.ts: store/ may not import engine/');
    expect(out).not.toContain('src/engine/driver.ts imports');
  });

  it('reports a cycle and a folder without a rule', () => {
    const dir = fixture({
      'records/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'records/b.ts': "import { a } from './a.js';\nexport const b = a;\n",
      'plugins/p.ts': 'export const p = 1;\n',
    });
    const { status, out } = check(dir);
    expect(status).toBe(1);
    expect(out).toContain('import cycle of 2 files: src/records/a.ts, src/records/b.ts');
    expect(out).toContain('src/plugins/ has no folder rule');
  });

  it('enforces the rules docs/design.md lists, and no other', () => {
    const { status, out } = check('--rules');
    expect(status).toBe(0);
    const rules = JSON.parse(out) as Record<string, string[]>;
    const sorted = Object.fromEntries(Object.entries(rules).map(([k, v]) => [k, [...v].sort()]));
    expect(documentedRules()).toEqual(sorted);
  });
});
