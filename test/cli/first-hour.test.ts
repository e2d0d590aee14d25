import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMMAND_HELP } from '../../src/cli/usage.js';
import { REPO_ROOT, World, ensureBuilt, finish, siteFlow, turnsYaml } from './helpers/cli.js';

/**
 * What a new user meets in the first hour, the CLI as a subprocess: `--version`, help for every
 * command, "did you mean" for a mistyped command or option, a clear refusal of `--db` under a missing
 * folder, `run` refusing what `validate` refuses before anything is stored, and progress and log lines
 * on stderr in the order things happened.
 */
describe('cli: the first hour', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('--version prints the package version on stdout', async () => {
    const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    const r = await w.cli(['--version'], { db: false });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${version}\n`);
  });

  it('every command has its own --help (exit 0), and `help COMMAND` prints it too', async () => {
    for (const command of Object.keys(COMMAND_HELP)) {
      const r = await w.cli([command, '--help'], { db: false });
      expect(r.code, command).toBe(0);
      expect(r.stderr.trim(), command).toBe((COMMAND_HELP[command] as string).trim());
      expect(r.stderr, command).toContain(`agent-runtime ${command}`);
    }
    const help = await w.cli(['help', 'run'], { db: false });
    expect(help.code).toBe(0);
    expect(help.stderr).toContain('--input-json');
    // One process a command (about 25 of them), one after another: a busy machine needs more than the default.
  }, 120_000);

  it('a mistyped command or option exits 2 and says what was meant', async () => {
    const command = await w.cli(['stauts', 'run_x'], { db: false });
    expect(command.code).toBe(2);
    expect(command.stderr).toContain('unknown command "stauts" (did you mean "status"?)');
    w.write('flow.yaml', 'id: x\nnodes: [{ id: a }]\n');
    const option = await w.cli(['run', 'flow.yaml', '--inptu', 'x']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('run: unknown option --inptu (did you mean "--input"?)');
    const other = await w.cli(['runs', '--stauts', 'failed']);
    expect(other.stderr).toContain('(did you mean "--status"?)');
  });

  it('--db sqlite: under a missing folder exits 2 and creates nothing; the default folder is created', async () => {
    const missing = join(w.dir, 'no-such-folder', 'runtime.db');
    const r = await w.cli(['runs', '--db', `sqlite:${missing}`], { db: false });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`the folder ${join(w.dir, 'no-such-folder')} does not exist`);
    expect(existsSync(join(w.dir, 'no-such-folder'))).toBe(false);
    const env = await w.cli(['runs'], { db: false, env: { AGENT_RUNTIME_DB: `sqlite:${missing}` } });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('AGENT_RUNTIME_DB');
    const byDefault = await w.cli(['runs'], { db: false });
    expect(byDefault.code, byDefault.stderr).toBe(0);
    expect(existsSync(join(w.dir, '.agent-runtime', 'runtime.db'))).toBe(true);
  });

  it('run on a flow naming a tool no server exports: exit 2, the lines validate prints, no run stored', async () => {
    const file = w.write('flow.yaml', siteFlow(w.dataDir).replace('slow_query]', 'space_lst]'));
    w.write('turns.yaml', turnsYaml([finish]));
    const validate = await w.cli(['validate', file], { db: false });
    expect(validate.code).toBe(2);
    const problem = validate.stderr.split('\n')[0] as string;
    expect(problem).toContain('no server exports a tool "space_lst" (did you mean "space_list"?)');
    const run = await w.cli(['run', file, '--input', 'x', '--model', 'scripted:turns.yaml']);
    expect(run.code).toBe(2);
    // The problem line validate prints, without its closing count line.
    expect(run.stderr.trim()).toBe(problem);
    expect(await (await w.db()).listRuns()).toEqual([]);
  });

  it('run with a model that cannot be resolved: exit 2, no run stored', async () => {
    const file = w.write('flow.yaml', siteFlow(w.dataDir));
    const r = await w.cli(['run', file, '--input', 'x', '--model', 'openai:gpt-4.1'], {
      env: { OPENAI_API_KEY: undefined },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('OPENAI_API_KEY is not set');
    const unknown = await w.cli(['run', file, '--input', 'x', '--model', 'nosuch:model']);
    expect(unknown.code).toBe(2);
    expect(await (await w.db()).listRuns()).toEqual([]);
  });

  it('progress and log lines keep their order: each TOOL invoked line follows its call, before the next round', async () => {
    const file = w.write('flow.yaml', siteFlow(w.dataDir));
    w.write(
      'turns.yaml',
      turnsYaml([
        { calls: [{ tool: 'space_list', args: {} }] },
        { calls: [{ tool: 'space_list', args: { page: 2 } }] },
        finish,
      ]),
    );
    const r = await w.cli(['run', file, '--input', 'x', '--model', 'scripted:turns.yaml']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n');
    const at = (pattern: RegExp, from = 0) => lines.findIndex((l, i) => i >= from && pattern.test(l));
    const round1 = at(/^ {2}round 1$/);
    const call1 = at(/SUCCESS space_list \{\}/);
    const log1 = at(/^INFO TOOL invoked tool=space_list/);
    const round2 = at(/^ {2}round 2$/);
    const log2 = at(/^INFO TOOL invoked tool=space_list/, log1 + 1);
    const round3 = at(/^ {2}round 3$/);
    expect(round1).toBeGreaterThanOrEqual(0);
    expect([round1 < call1, call1 < log1, log1 < round2, round2 < log2, log2 < round3]).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
  });
});
