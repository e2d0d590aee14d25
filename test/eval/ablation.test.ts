import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEval } from '../../src/eval/run-eval.js';
import { checkSuite } from '../../src/eval/suite.js';
import { EvalProject } from './fixtures.js';
import { standIn, type StandInPlan } from './stand-ins.js';

/** Typed observations against the plain error text, with a model that reads next steps and one that does not. */
describe('eval: ablation tells a next-step follower from a model that ignores them', () => {
  let p: EvalProject;
  beforeEach(() => {
    p = new EvalProject();
  });
  afterEach(() => p.dispose());

  function plan(path: string): StandInPlan {
    return {
      steps: [{ tool: 'write_file', args: { path, content: 'hello' } }],
      helpers: { builtin_node_approval: { tool: 'write_file', summary: `write ${path}` } },
      summary: 'wrote the note',
    };
  }

  it('the follower passes with typed observations and fails with plain errors; the ignorer fails both', async () => {
    p.flow();
    const path = p.note('n.txt');
    const suite = checkSuite(
      {
        flow: './flow.yaml',
        cases: [
          {
            id: 'note',
            input: 'write hello to n.txt',
            expect: { status: 'completed' },
            verify: [{ tool: 'read_text_file', args: { path }, expect: { jsonata: "content = 'hello'" } }],
          },
        ],
      },
      'inline',
      p.dir,
    );
    const out = join(p.dir, 'out');
    const results = await runEval(suite, {
      models: [
        { name: 'follower', model: standIn('follower', plan(path), true) },
        { name: 'ignorer', model: standIn('ignorer', plan(path), false) },
      ],
      variants: ['full', 'observations-plain'],
      repeat: 2,
      concurrency: 2,
      out,
    });
    const cell = (model: string, variant: string) =>
      results.cells.find((c) => c.model === model && c.variant === variant);
    expect(cell('follower', 'full')).toMatchObject({ passed: 2, passAll: true });
    expect(cell('follower', 'observations-plain')).toMatchObject({ passed: 0, passAll: false });
    expect(cell('ignorer', 'full')).toMatchObject({ passed: 0, passAll: false });
    expect(cell('ignorer', 'observations-plain')).toMatchObject({ passed: 0, passAll: false });
    expect(cell('follower', 'observations-plain')?.failures[0]?.problems[0]).toMatch(
      /^status: expected completed, got failed/,
    );
    expect(cell('follower', 'full')?.tokens.totalTokens).toBe(2 * 4 * 110);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('follower · full');
    expect(html).toContain('follower · observations-plain');
    // The plain variant's model saw only the generic text; the trace keeps the typed observation.
    const trace = readFileSync(
      join(out, cell('follower', 'observations-plain')?.failures[0]?.trace as string),
      'utf8',
    );
    expect(trace).toContain('"errorCode":"APPROVAL_REQUIRED"');
  }, 120_000);

  it('guards off skips provenance checks and the fingerprint breaker, the write gate stays', async () => {
    p.flow({ tools: { write_file: { write: true, params: { path: { source: 'user' } } } } });
    const path = p.note('said-nowhere.txt');
    const suite = checkSuite(
      {
        flow: './flow.yaml',
        cases: [{ id: 'note', input: 'write a note', expect: { status: 'completed' } }],
      },
      'inline',
      p.dir,
    );
    const results = await runEval(suite, {
      models: [{ name: 'follower', model: standIn('follower', plan(path), true) }],
      variants: ['full', 'guards-off'],
    });
    const on = results.cells.find((c) => c.variant === 'full');
    const off = results.cells.find((c) => c.variant === 'guards-off');
    expect(on?.totals.byCode.PARAM_PROVENANCE_ASK_FIRST?.count).toBeGreaterThan(0);
    expect(on?.passAll).toBe(false);
    expect(off?.totals.byCode).toEqual({});
    expect(off?.passAll).toBe(true);
    expect(off?.runs[0]?.metrics.unapprovedWrites).toBe(0);
  }, 120_000);
});
