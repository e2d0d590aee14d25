import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SERVE_OPTIONS, SERVE_USAGE } from '../../src/cli/serve-usage.js';
import { World, ensureBuilt } from './helpers/cli.js';

/** `serve --help` documents every option `serve` accepts (a new flag without a usage line fails here). */
describe('cli: serve --help', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('names every option the parser accepts, and nothing it does not', async () => {
    const help = await w.cli(['serve', '--help'], { db: false });
    expect(help.code).toBe(0);
    expect(help.stderr.trim()).toBe(SERVE_USAGE);
    for (const [name, option] of Object.entries(SERVE_OPTIONS)) {
      const spelled = option.short ? `-${option.short}, --${name}` : `--${name}`;
      expect(help.stderr, name).toMatch(new RegExp(`^ +${spelled}\\b`, 'm'));
    }
    const documented = [...help.stderr.matchAll(/^ +(?:-\w, )?--([a-z-]+)/gm)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(SERVE_OPTIONS).sort());
  });

  it('the general usage points to it', async () => {
    const usage = await w.cli(['--help'], { db: false });
    expect(usage.stderr).toMatch(/serve --help: every option/);
  });
});
