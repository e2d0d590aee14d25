import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEval } from '../../src/eval/run-eval.js';
import { defineBuiltin } from '../../src/tools/builtin/user.js';
import { EvalProject } from './fixtures.js';

/** `runEval(suite, { builtins })`: the application's builtins in every trial (docs/builtins.md). */
describe('eval: builtins of the application', () => {
  let p: EvalProject;
  beforeEach(() => {
    p = new EvalProject();
  });
  afterEach(() => p.dispose());

  it('gives them to every trial (without them the node has no such tool)', async () => {
    let calls = 0;
    const noteAdd = defineBuiltin({
      name: 'note_add',
      description: { 'zh-CN': '记一条备注', en: 'Adds a note' },
      input: { properties: { text: { type: 'string' } }, required: ['text'] },
      execute: (call) => (calls++, call.ok(`noted ${String(call.args.text)}`)),
    });
    p.write('flow.yaml', {
      id: 'notes',
      version: 1,
      locale: 'en',
      nodes: [{ id: 'write', instructions: 'Note it.', tools: ['note_add'] }],
    });
    p.write('turns.yaml', {
      turns: [
        { calls: [{ tool: 'note_add', args: { text: 'hi' } }] },
        { calls: [{ tool: 'builtin_node_finish', args: { summary: 'noted hi' } }] },
      ],
    });
    const suite = p.write('suite.yaml', {
      name: 'notes',
      flow: './flow.yaml',
      model: 'scripted:./turns.yaml',
      repeat: 2,
      cases: [{ id: 'note', input: 'note hi', expect: { status: 'completed', reply: 'noted hi' } }],
    });
    const results = await runEval(suite, { out: null, builtins: [noteAdd] });
    expect(results.cells[0]).toMatchObject({ case: 'note', trials: 2, passed: 2 });
    expect(results.cells[0]?.totals.byCode).toEqual({});
    expect(calls).toBe(2);
    // Without them the node has no such tool: each trial's call of it is refused (CATALOG_DENIED).
    const without = await runEval(suite, { out: null });
    expect(without.cells[0]?.totals.byCode).toEqual({ CATALOG_DENIED: { count: 2, recovered: 0 } });
    expect(calls).toBe(2);
  });
});
