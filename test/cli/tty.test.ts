import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../acceptance/build.js';
import { World, cliEnv, ensureBuilt, finish, turnsYaml } from './helpers/cli.js';

const SCRIPT = '/usr/bin/script';

/** Runs the CLI inside a pseudo-terminal (util-linux `script`), typing `keys` into it. */
function inTerminal(w: World, args: string[], keys: string): Promise<{ code: number; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [NODE, CLI, ...args, '--db', w.dbUrl].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
      cwd: w.dir,
      env: cliEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stdin.end(keys);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, output });
    });
  });
}

/** SPEC §10: in a terminal without --json, approvals and follow-ups are asked inline. */
describe.skipIf(!existsSync(SCRIPT))('cli: interactive use in a terminal', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  const question = {
    calls: [
      { tool: 'builtin_node_follow_up', args: { question: 'Which colour?', options: ['red', 'blue'] } },
    ],
  };

  it('asks the follow-up inline (an option by number) and drives the run to its end', async () => {
    w.write('flow.yaml', ['id: plain', 'locale: en', 'nodes:', '  - id: a'].join('\n'));
    w.write('turns.yaml', turnsYaml([question, finish]));
    const r = await inTerminal(
      w,
      ['run', 'flow.yaml', '--input', 'x', '--model', 'scripted:turns.yaml'],
      '2\n',
    );
    expect(r.code).toBe(0);
    expect(r.output).toContain('Question: Which colour?');
    expect(r.output).toContain('2. blue');
    expect(r.output).toMatch(/run run_\w+: completed/);
    const [run] = await (await w.db()).listRuns();
    const events = await (await w.db()).events(run?.runId as string);
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({ kind: 'FOLLOW_UP', answer: 'blue' });
  });

  it('with --json it never asks: exit 3 and the summary on stdout', async () => {
    w.write('flow.yaml', ['id: plain', 'locale: en', 'nodes:', '  - id: a'].join('\n'));
    w.write('turns.yaml', turnsYaml([question, finish]));
    const r = await inTerminal(
      w,
      ['run', 'flow.yaml', '--input', 'x', '--model', 'scripted:turns.yaml', '--json'],
      '2\n',
    );
    expect(r.code).toBe(3);
    expect(r.output).not.toContain('Answer:');
    const [run] = await (await w.db()).listRuns();
    expect(run?.status).toBe('suspended');
  });
});
