import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EvalResultsSchema } from '../../src/eval/results.js';
import { REPO_ROOT, World, ensureBuilt, finish, turnsYaml } from './helpers/cli.js';

/** The guards, tools and flow of docs/interceptors.md, as files a user would write. */
const FIXTURES = join(REPO_ROOT, 'test/fixtures/interceptors');
const GUARDS = join(FIXTURES, 'guards.mjs');
const TOOLS = join(FIXTURES, 'tools.mjs');
const FLOW = join(FIXTURES, 'flow.yaml');

const refund = (amount: number) => ({ calls: [{ tool: 'refund', args: { amount } }] });

/**
 * One extension surface: `eval`, `validate` and `chat` take `--tools` / `--guards` modules as `run`
 * does, eval checks the flow's tools before its first trial, and the former ablation spelling is
 * refused naming the new one. The CLI as a subprocess, the fixtures' real modules.
 */
describe('cli: --tools and --guards beyond run', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
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
    w.write(
      'suite.yaml',
      [
        `flow: ${JSON.stringify(FLOW)}`,
        'model: scripted:./turns.yaml',
        'cases:',
        '  - id: refund',
        '    input: refund me',
        '    expect: { status: completed, trace: { noWriteWithoutApproval: true } }',
        '    verify:',
        '      - { tool: customer_get, args: { id: c-1 }, expect: { jsonata: "blocked = false" } }',
        '',
      ].join('\n'),
    );
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('eval --tools --guards: the local tools run, the guard refuses refund 250, the case passes', async () => {
    const log = join(w.dir, 'refunds.log');
    const r = await w.cli(['eval', 'suite.yaml', '--tools', TOOLS, '--guards', GUARDS, '--out', 'out'], {
      db: false,
      env: { REFUND_LOG: log },
    });
    expect(r.stderr).toContain('PASS  1/1  refund');
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(log, 'utf8')).toBe('50\n');
    const results = EvalResultsSchema.parse(
      JSON.parse(readFileSync(join(w.dir, 'out/results.json'), 'utf8')),
    );
    const codes = results.cells[0]?.totals.byCode ?? {};
    expect(Object.keys(codes).sort()).toEqual(['CUSTOMER_BLOCKED', 'REFUND_OVER_LIMIT']);
  }, 120_000);

  it('a person’s expected rejection is counted as declined: no stall, no unrecovered APPROVAL_DENIED', async () => {
    w.write(
      'declined.yaml',
      turnsYaml([
        refund(50),
        { calls: [{ tool: 'builtin_node_approval', args: { tool: 'refund', summary: 'refund 50' } }] },
        { text: 'Understood, no refund then.' },
        { calls: [{ tool: 'builtin_node_finish', args: { summary: 'no refund' } }] },
      ]),
    );
    w.write(
      'reject.yaml',
      [
        `flow: ${JSON.stringify(FLOW)}`,
        'model: scripted:./declined.yaml',
        'cases:',
        '  - { id: declined, input: refund me, approvals: reject, expect: { status: completed } }',
        '',
      ].join('\n'),
    );
    const log = join(w.dir, 'refunds.log');
    const r = await w.cli(['eval', 'reject.yaml', '--tools', TOOLS, '--guards', GUARDS, '--out', 'out'], {
      db: false,
      env: { REFUND_LOG: log },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(log)).toBe(false);
    const results = EvalResultsSchema.parse(
      JSON.parse(readFileSync(join(w.dir, 'out/results.json'), 'utf8')),
    );
    const metrics = results.cells[0]?.runs[0]?.metrics;
    expect(metrics).toMatchObject({ declined: 1, stalls: 0, rejected: 0 });
    expect(metrics?.byCode).toEqual({});
    // The trace has the round without calls after the refusal and the refusal itself.
    const trace = readFileSync(join(w.dir, 'out', results.cells[0]?.runs[0]?.trace as string), 'utf8');
    expect(trace).toContain('"type":"react.stall"');
    expect(trace).toContain('"errorCode":"APPROVAL_DENIED"');
  }, 120_000);

  it('eval without --tools: exit 2 before any trial, naming the tool and --tools', async () => {
    const r = await w.cli(['eval', 'suite.yaml', '--out', 'out'], { db: false });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('no server exports a tool "customer_get"');
    expect(r.stderr).toContain('--tools MODULE');
    expect(r.stderr).not.toContain('pass  ');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it.each([
    [['--guards', 'off'], 'eval: --guards off is now --variant guards-off'],
    [['--guards', 'on'], 'eval: --guards on is now --variant full'],
    [['--observations', 'plain'], 'eval: --observations is now --variant observations-plain'],
    [['--variant', 'plain'], 'eval: --variant must be one of full, observations-plain, guards-off'],
    [
      ['--varaint', 'full'],
      'eval: unknown option --varaint (did you mean "--variant"?); --help lists the options',
    ],
  ])(
    'eval %j: exit 2 with the house message',
    async (flags, message) => {
      const r = await w.cli(['eval', 'suite.yaml', ...flags], { db: false });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toContain('To specify a positional argument');
    },
    60_000,
  );

  it('validate takes --tools (and --guards): the flow of local tools is valid with them, not without', async () => {
    const without = await w.cli(['validate', FLOW], { db: false });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain(
      'a local tool (defineTool) or a builtin (defineBuiltin) is given with --tools MODULE',
    );
    const withTools = await w.cli(['validate', FLOW, '--tools', TOOLS, '--guards', GUARDS], { db: false });
    expect(withTools.stderr).toContain('valid');
    expect(withTools.code, withTools.stderr).toBe(0);
  }, 60_000);

  it('chat takes --tools and --guards (a bad module is a usage error; without a terminal it says so)', async () => {
    const bad = await w.cli(['chat', FLOW, '--tools', 'nope.mjs']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--tools nope.mjs: no such file');
    const good = await w.cli(['chat', FLOW, '--tools', TOOLS, '--guards', GUARDS]);
    expect(good.code).toBe(2);
    expect(good.stderr).toContain('chat: needs a terminal');
  }, 60_000);
});
