import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { World, ensureBuilt } from './helpers/cli.js';

/** `validate` warns about a write beside untrusted-text tools without contracts on its recipients. */
describe('cli: validate warnings about untrusted text', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  const mailFlow = (to: string) =>
    [
      'id: mail',
      'locale: en',
      'tools:',
      '  read_inbox: { write: false, trust: untrusted }',
      '  send_email:',
      '    write: true',
      '    params:',
      `      recipients: ${to}`,
      '      body: { source: evidence, from: [read_inbox], match: contains }',
      'nodes:',
      '  - id: work',
      '    tools: [read_inbox, send_email]',
      '',
    ].join('\n');

  it('a recipient that may come from untrusted text: a warning with its place, and the flow is still valid (exit 0)', async () => {
    w.write('flow.yaml', mailFlow('{ source: evidence, from: [read_inbox] }'));
    const r = await w.cli(['validate', '--offline', 'flow.yaml'], { db: false });
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(
      /^warning: \S*flow\.yaml:12:\d+ nodes\[0\]\.tools\[1\]: write tool "send_email" shares node "work" with "read_inbox", whose results are untrusted text, and its recipient-like parameter recipients has no contract keeping untrusted text out/,
    );
    expect(lines.at(-1)).toBe('flow.yaml: valid');
    expect(lines).toHaveLength(2);
  });

  it('untrusted: refuse (or source: user) on the recipient: no warning; --json lists warnings', async () => {
    w.write('flow.yaml', mailFlow('{ source: evidence, from: [read_inbox], untrusted: refuse }'));
    const r = await w.cli(['validate', '--offline', '--json', 'flow.yaml'], { db: false });
    expect(r.code).toBe(0);
    expect(r.stderr.trim()).toBe('flow.yaml: valid');
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: true, problems: [], warnings: [] });
    w.write('user.yaml', mailFlow('{ source: user }'));
    const u = await w.cli(['validate', '--offline', 'user.yaml'], { db: false });
    expect(u.stderr.trim()).toBe('user.yaml: valid');
  });
});
