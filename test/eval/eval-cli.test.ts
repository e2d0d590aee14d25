import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli } from '../cli/helpers/cli.js';
import { EvalResultsSchema } from '../../src/eval/results.js';
import { EvalProject, writerTurns } from './fixtures.js';

/** `agent-runtime eval` as a new user runs it: the filesystem MCP server, scripted models, the CLI as a subprocess. */
describe('cli: eval', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let p: EvalProject;
  beforeEach(() => {
    p = new EvalProject();
  });
  afterEach(() => p.dispose());

  it('two cases × two repeats, one expectation wrong: exit 1, 2/2 and 0/2, results.json and report.html', async () => {
    p.flow();
    p.write('writer.yaml', writerTurns(p.note('a.txt'), 'hello', 'wrote a.txt'));
    p.write('suite.yaml', {
      flow: './flow.yaml',
      model: 'scripted:./writer.yaml',
      repeat: 2,
      cases: [
        { id: 'holds', input: 'write hello to a.txt', expect: { status: 'completed', reply: 'wrote a.txt' } },
        { id: 'wrong', input: 'write hello to a.txt', expect: { status: 'failed' } },
      ],
    });
    const r = await runCli(['eval', 'suite.yaml', '--out', 'out', '--concurrency', '2'], { cwd: p.dir });
    expect(r.stderr).toMatch(/PASS {2}2\/2 {2}holds/);
    expect(r.stderr).toMatch(/FAIL {2}0\/2 {2}wrong/);
    expect(r.stderr).toContain('status: expected failed, got completed');
    expect(r.code).toBe(1);
    const results = EvalResultsSchema.parse(
      JSON.parse(readFileSync(join(p.dir, 'out/results.json'), 'utf8')),
    );
    expect(results.cells.map((c) => [c.case, c.passed, c.trials])).toEqual([
      ['holds', 2, 2],
      ['wrong', 0, 2],
    ]);
    const html = readFileSync(join(p.dir, 'out/report.html'), 'utf8');
    expect(html.match(/<svg/g)?.length).toBe(2);
    expect(existsSync(join(p.dir, 'out', results.cells[1]?.failures[0]?.trace as string))).toBe(true);
  }, 120_000);

  it('exit 0 when every case passed, --model overrides the suite', async () => {
    p.flow();
    p.write('writer.yaml', writerTurns(p.note('a.txt'), 'hello', 'wrote a.txt'));
    p.write('suite.yaml', {
      flow: './flow.yaml',
      model: 'scripted:./missing.yaml',
      cases: [{ id: 'holds', input: 'write hello', expect: { status: 'completed' } }],
    });
    const r = await runCli(['eval', 'suite.yaml', '--model', 'scripted:writer.yaml', '--out', 'o'], {
      cwd: p.dir,
    });
    expect(r.stderr).toContain('PASS  1/1  holds');
    expect(r.code).toBe(0);
  }, 60_000);

  it('a suite error exits 2 naming the bad key; a bad flag exits 2', async () => {
    p.flow();
    p.write('bad.yaml', { flow: './flow.yaml', repeats: 2, cases: [{ id: 'x' }] });
    const r = await runCli(['eval', 'bad.yaml'], { cwd: p.dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(top level): unknown key repeats');
    const flag = await runCli(['eval', 'bad.yaml', '--variant', 'terse'], { cwd: p.dir });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--variant must be one of full, observations-plain, guards-off');
    const help = await runCli(['eval', '--help'], { cwd: p.dir });
    expect(help.code).toBe(0);
    expect(help.stderr).toContain('--from-run');
  }, 60_000);
});
