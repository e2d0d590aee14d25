import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, World, ensureBuilt, finish, turnsYaml, type Summary } from './helpers/cli.js';

/** The guards, tools and flow of docs/interceptors.md, as files a user would write. */
const FIXTURES = join(REPO_ROOT, 'test/fixtures/interceptors');
const GUARDS = join(FIXTURES, 'guards.mjs');
const TOOLS = join(FIXTURES, 'tools.mjs');
const FLOW = join(FIXTURES, 'flow.yaml');

const refund = (amount: number) => ({ calls: [{ tool: 'refund', args: { amount } }] });

describe('cli: --guards and --tools', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('run and approve: the guard rejects refund 250 (the tool never runs), refund 50 runs after its approval', async () => {
    const log = join(w.dir, 'refunds.log');
    w.write(
      'turns.yaml',
      turnsYaml([
        { calls: [{ tool: 'customer_get', args: { id: 'c-13' } }] },
        refund(250),
        refund(50),
        { calls: [{ tool: 'builtin_node_approval', args: { tool: 'refund', summary: 'refund 50' } }] },
        refund(50),
        finish,
      ]),
    );
    const extend = ['--guards', GUARDS, '--tools', TOOLS];
    const env = { env: { REFUND_LOG: log } };
    const run = await w.cli(
      ['run', FLOW, '--input', 'refund me', '--model', 'scripted:turns.yaml', ...extend, '--json'],
      env,
    );
    expect(run.code, run.stderr).toBe(3);
    const suspended = run.json as Summary;
    expect(suspended.suspension?.kind).toBe('APPROVAL');
    expect(existsSync(log)).toBe(false);

    const approved = await w.cli(['approve', suspended.runId, ...extend, '--json'], env);
    expect(approved.code, approved.stderr).toBe(0);
    expect((approved.json as Summary).status).toBe('completed');
    expect(readFileSync(log, 'utf8')).toBe('50\n');

    const events = await (await w.db()).events(suspended.runId);
    const invoked = events.filter((e) => e.type === 'tool.invoked');
    expect(invoked.map((e) => [e.tool, e.outcome, e.errorCode, e.executed])).toEqual([
      ['customer_get', 'FAILED', 'CUSTOMER_BLOCKED', true],
      ['refund', 'REJECTED', 'REFUND_OVER_LIMIT', false],
      ['refund', 'DEFERRED', 'APPROVAL_REQUIRED', false],
      ['builtin_node_approval', 'SUCCESS', null, false],
      ['refund', 'SUCCESS', null, true],
      ['builtin_node_finish', 'SUCCESS', null, false],
    ]);
    expect(invoked[1]?.message).toBe(
      'the refund of 250 is over the limit of 100. Next: refund at most 100, or ask the user for a manager approval.',
    );
    expect(invoked[0]?.message).toContain('customer c-13 is blocked for refunds');
  });

  it('without --tools the flow’s local tools are unknown: exit 2 before any run, as validate says', async () => {
    w.write('turns.yaml', turnsYaml([finish]));
    const result = await w.cli(['run', FLOW, '--input', 'x', '--model', 'scripted:turns.yaml']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/refund/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it.each([
    ['a missing file', ['--guards', 'nope.mjs'], '--guards nope.mjs: no such file'],
    ['a module exporting no guards', ['--guards', 'empty.mjs'], 'the module exports no guards'],
    [
      'a guard made without defineGuard',
      ['--guards', 'plain.mjs'],
      'export limit is not a guard made with defineGuard',
    ],
    [
      'a module that throws',
      ['--guards', 'throws.mjs'],
      'the module did not load: defineGuard: bad: code LOW',
    ],
    [
      'two guards of one name',
      ['--guards', GUARDS, '--guards', 'again.mjs'],
      'two guards are named "refund-limit"',
    ],
    [
      'a tool made without defineTool',
      ['--tools', 'tool.mjs'],
      'export refund is not a tool made with defineTool',
    ],
    ['a flow file as a module', ['--tools', FLOW], '--tools'],
  ])('%s is exit 2 with a clear message, no stack', async (_, flags, message) => {
    w.write('turns.yaml', turnsYaml([finish]));
    w.write('empty.mjs', 'export const limit = 100;\n');
    w.write('tool.mjs', "export const refund = { name: 'refund', execute: () => 1 };\n");
    w.write('plain.mjs', "export const limit = { name: 'limit', codes: {}, before: () => undefined };\n");
    w.write(
      'throws.mjs',
      `import { defineGuard } from ${JSON.stringify(join(REPO_ROOT, 'dist/src/index.js'))};\n` +
        "export default defineGuard({ name: 'bad', codes: { LOW: { number: 5, outcome: 'REJECTED' } }, before: () => null });\n",
    );
    w.write('again.mjs', `export { refundLimit as again } from ${JSON.stringify(GUARDS)};\n`);
    const args = ['run', FLOW, '--input', 'x', '--model', 'scripted:turns.yaml', '--tools', TOOLS, ...flags];
    const result = await w.cli(args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect((await (await w.db()).listRuns()).length).toBe(0);
  });
});
