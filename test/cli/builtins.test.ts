import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, World, ensureBuilt, finish, siteFlow, turnsYaml, type Summary } from './helpers/cli.js';

/** A builtin of one's own (docs/builtins.md) on the command line: given by a `--tools` module. */
const NOTE = join(REPO_ROOT, 'test/fixtures/builtins/note.mjs');
const FLOW = join(REPO_ROOT, 'test/fixtures/builtins/flow.yaml');
const SPACE_LIST = join(REPO_ROOT, 'test/fixtures/builtins/space-list.mjs');

describe('cli: builtins from --tools', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('validate knows the builtin with --tools, and names --tools without it', async () => {
    const valid = await w.cli(['validate', FLOW, '--tools', NOTE], { db: false });
    expect(valid.code, valid.stderr).toBe(0);
    const without = await w.cli(['validate', FLOW], { db: false });
    expect(without.code).toBe(2);
    expect(without.stderr).toContain('no server exports a tool "note_add"');
    expect(without.stderr).toContain('a builtin (defineBuiltin) is given with --tools MODULE');
  });

  it('run: the builtin answers its calls (REJECTED with its own code, then SUCCESS) and the run completes', async () => {
    w.write(
      'turns.yaml',
      turnsYaml([
        { calls: [{ tool: 'note_add', args: { text: ' ' } }] },
        { calls: [{ tool: 'note_add', args: { text: 'called back' } }] },
        finish,
      ]),
    );
    const run = await w.cli([
      'run',
      FLOW,
      '--input',
      'note it',
      '--model',
      'scripted:turns.yaml',
      '--tools',
      NOTE,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const summary = run.json as Summary;
    expect(summary.status).toBe('completed');
    const events = await (await w.db()).events(summary.runId);
    const invoked = events.filter((e) => e.type === 'tool.invoked');
    expect(invoked.map((e) => [e.tool, e.outcome, e.errorCode])).toEqual([
      ['note_add', 'REJECTED', 'NOTE_EMPTY'],
      ['note_add', 'SUCCESS', null],
      ['builtin_node_finish', 'SUCCESS', null],
    ]);
    // Without the module the run is refused before anything is stored.
    const refused = await w.cli(['run', FLOW, '--input', 'x', '--model', 'scripted:turns.yaml']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('no server exports a tool "note_add"');
  });

  it('a builtin named like a tool of the flow’s server: validate and run refuse it before anything is stored', async () => {
    const flow = w.write('flow.yaml', siteFlow(w.dataDir));
    const validate = await w.cli(['validate', flow, '--tools', SPACE_LIST], { db: false });
    expect(validate.code).toBe(2);
    expect(validate.stderr).toMatch(
      /mcpServers\.cloud: builtin space_list \(--tools\) has the name of a tool of server cloud; expected another name for the builtin, or an alias for the tool/,
    );
    w.write('turns.yaml', turnsYaml([finish]));
    const run = await w.cli([
      'run',
      flow,
      '--input',
      'x',
      '--model',
      'scripted:turns.yaml',
      '--tools',
      SPACE_LIST,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('builtin space_list (--tools) has the name of a tool of server cloud');
    expect((await (await w.db()).listRuns()).length).toBe(0);
  });
});
