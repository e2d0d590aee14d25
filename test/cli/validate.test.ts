import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, builtinFlow, ensureBuilt, siteFlow } from './helpers/cli.js';

/** `agent-runtime validate FLOW.yaml`: exit 0 when valid, 2 with every problem on stderr. */
describe('cli: validate', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('a valid flow: exit 0, "valid" on stderr, nothing on stdout', async () => {
    w.write('flow.yaml', builtinFlow());
    const r = await w.cli(['validate', 'flow.yaml'], { db: false });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe('flow.yaml: valid');
  });

  it('problems on stderr, one per line, naming the file, line, column and path; exit 2', async () => {
    w.write('bad.yaml', builtinFlow('    colour: red'));
    const r = await w.cli(['validate', 'bad.yaml'], { db: false });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^bad\.yaml: \d+ problems?$/);
    expect(lines.slice(0, -1)).toEqual([
      expect.stringMatching(/bad\.yaml:6:5 nodes\[0\]\.colour: unknown key "colour"/),
    ]);
  });

  it('semantic problems are all listed', async () => {
    w.write(
      'graph.yaml',
      [
        builtinFlow(),
        '  - id: b',
        '  - id: c',
        'edges:',
        '  - { from: a, to: nowhere }',
        "  - { from: a, to: b, when: 'status = = 1' }",
      ].join('\n'),
    );
    const r = await w.cli(['validate', 'graph.yaml'], { db: false });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1)).toBe('graph.yaml: 2 problems');
    expect(r.stderr).toContain('nowhere');
    expect(r.stderr).toMatch(/edges\[1\]\.when/);
  });

  it('connects to the flow servers: an unknown tool is a problem; --offline skips that check', async () => {
    w.write('site.yaml', siteFlow(w.dataDir));
    expect((await w.cli(['validate', 'site.yaml'], { db: false })).code).toBe(0);
    w.write('typo.yaml', siteFlow(w.dataDir).replace('slow_query]', 'slow_qery]'));
    const r = await w.cli(['validate', 'typo.yaml'], { db: false });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('slow_qery');
    expect((await w.cli(['validate', 'typo.yaml', '--offline'], { db: false })).code).toBe(0);
  });

  it('a missing file or an unknown flag exits 2', async () => {
    expect((await w.cli(['validate', 'missing.yaml'], { db: false })).code).toBe(2);
    const r = await w.cli(['validate', 'x.yaml', '--strict'], { db: false });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--strict');
  });
});
