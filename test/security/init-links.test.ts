import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, ensureBuilt } from '../cli/helpers/cli.js';

/**
 * `init` never writes through a symbolic link: a dangling link named like a starter file (pointing
 * outside the folder), or a link standing for one of its folders, makes it exit 2 with nothing
 * written, here or where the link points.
 */
describe('security: init refuses to write through symbolic links', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  let outside: string;
  beforeEach(() => {
    w = new World();
    outside = mkdtempSync(join(tmpdir(), 'init-outside-'));
  });
  afterEach(async () => {
    await w.dispose();
    rmSync(outside, { recursive: true, force: true });
  });

  it.each([
    ['a dangling link for flow.yaml', 'flow.yaml', () => join(outside, 'planted.yaml')],
    ['a dangling link for tokens.yaml', 'tokens.yaml', () => join(outside, 'tokens.yaml')],
    ['a dangling link for package.json', 'package.json', () => join(outside, 'package.json')],
    ['a link for the mcp folder', 'mcp', () => outside],
  ])('%s: exit 2, nothing written anywhere', async (_name, link, target) => {
    const dir = join(w.dir, 'project');
    mkdirSync(dir);
    symlinkSync(target(), join(dir, link));
    const r = await w.cli(['init', dir], { db: false });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${link} in ${dir} is a symbolic link`);
    expect(r.stderr).toContain('nothing was written');
    expect(readdirSync(outside)).toEqual([]);
    expect(readdirSync(dir)).toEqual([link]);
  });

  it('a folder without links is written as before', async () => {
    const r = await w.cli(['init', join(w.dir, 'fresh')], { db: false });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(w.dir, 'fresh', 'flow.yaml'))).toBe(true);
    expect(r.stderr).toContain('npm install');
  });
});
