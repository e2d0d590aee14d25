import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EvalResultsSchema } from '../../src/eval/results.js';
import { runEval } from '../../src/eval/run-eval.js';
import { EvalSuiteError, loadSuiteFile } from '../../src/eval/suite.js';
import { EvalProject, writerTurns } from './fixtures.js';

describe('eval: runEval over the filesystem MCP server', () => {
  let p: EvalProject;
  beforeEach(() => {
    p = new EvalProject();
  });
  afterEach(() => p.dispose());

  it('runs each case repeat times, scores pass^k, checks end state and writes results and report', async () => {
    p.flow();
    p.write('writer.yaml', writerTurns(p.note('a.txt'), 'hello', 'wrote a.txt'));
    const suite = p.write('suite.yaml', {
      name: 'notes <suite>',
      flow: './flow.yaml',
      model: 'scripted:./writer.yaml',
      repeat: 2,
      prices: { 'scripted:./writer.yaml': { input: 1, output: 2 } },
      cases: [
        {
          id: 'holds',
          input: 'write hello to a.txt',
          approvals: { when: "tool = 'write_file' and args.content = 'hello'" },
          expect: {
            status: 'completed',
            reply: { contains: 'a.txt' },
            trace: { noWriteWithoutApproval: true, maxRounds: 4, neverCalled: ['edit_file'] },
          },
          verify: [
            {
              tool: 'read_text_file',
              args: { path: p.note('a.txt') },
              expect: { jsonata: "content = 'hello'" },
            },
          ],
        },
        {
          id: 'wrong',
          input: 'write hello to a.txt',
          approvals: 'approve',
          expect: { status: 'completed', reply: 'something else <b>' },
        },
      ],
    });
    const out = join(p.dir, 'out');
    const results = await runEval(suite, { out });
    expect(results.passed).toBe(false);
    const [holds, wrong] = results.cells;
    expect(holds).toMatchObject({ case: 'holds', trials: 2, passed: 2, passAll: true, passRate: 1 });
    expect(holds?.totals.rounds).toBe(8);
    expect(holds?.totals.byCode).toEqual({});
    expect(wrong).toMatchObject({ case: 'wrong', trials: 2, passed: 0, passAll: false, passRate: 0 });
    expect(wrong?.failures[0]?.problems).toEqual(['reply: expected "something else <b>", got "wrote a.txt"']);
    const trace = wrong?.failures[0]?.trace as string;
    expect(readFileSync(join(out, trace), 'utf8')).toContain('"type":"run.completed"');
    expect(EvalResultsSchema.parse(JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')))).toBeTruthy();
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('<svg');
    expect(html).toContain('notes &lt;suite&gt;');
    expect(html).not.toContain('<b>');
    expect(html).not.toMatch(/<script|<link|<img|src=|url\(/);
    expect(existsSync(join(out, 'traces'))).toBe(true);
  }, 90_000);

  it('a verify expectation that does not hold fails the case (end state, not the model word)', async () => {
    p.flow();
    p.write('writer.yaml', writerTurns(p.note('b.txt'), 'hello', 'wrote b.txt'));
    const suite = p.write('suite.yaml', {
      flow: './flow.yaml',
      model: 'scripted:./writer.yaml',
      cases: [
        {
          id: 'end-state',
          input: 'write hello to b.txt',
          setup: [{ tool: 'write_file', args: { path: p.note('b.txt'), content: 'old' } }],
          verify: [
            {
              tool: 'read_text_file',
              args: { path: p.note('b.txt') },
              expect: { jsonata: "content = 'bye'" },
            },
          ],
        },
      ],
    });
    const results = await runEval(suite);
    expect(results.cells[0]?.failures[0]?.problems).toEqual([
      'verify read_text_file: jsonata "content = \'bye\'" is false',
    ]);
  }, 60_000);

  it("{reply} in a verify call's arguments is the run's reply", async () => {
    p.flow();
    // The model replies with the name of the file it wrote; the verify call reads the file so named.
    p.write('writer.yaml', writerTurns(p.note('c.txt'), 'hello', 'c.txt'));
    const suite = p.write('suite.yaml', {
      flow: './flow.yaml',
      model: 'scripted:./writer.yaml',
      cases: [
        {
          id: 'reply',
          input: 'write hello to c.txt',
          verify: [
            {
              tool: 'read_text_file',
              args: { path: p.note('{reply}') },
              expect: { jsonata: "content = 'hello'" },
            },
          ],
        },
      ],
    });
    const results = await runEval(suite);
    expect(results.cells[0]?.failures).toEqual([]);
    expect(results.cells[0]?.passed).toBe(1);
  }, 60_000);

  it('refuses a bad suite naming the key', () => {
    p.flow();
    const bad = p.write('bad.yaml', {
      flow: './flow.yaml',
      cases: [{ id: 'x', expect: { statuz: 'completed' } }],
    });
    expect(() => loadSuiteFile(bad)).toThrow(EvalSuiteError);
    expect(() => loadSuiteFile(bad)).toThrow(/cases\.0\.expect: unknown key statuz/);
    const expr = p.write('expr.yaml', {
      flow: './flow.yaml',
      cases: [{ id: 'x', approvals: { when: '(((' } }],
    });
    expect(() => loadSuiteFile(expr)).toThrow(/cases\.0\.approvals\.when: not a JSONata expression/);
  });
});
