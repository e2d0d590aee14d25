import { spawn } from 'node:child_process';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../acceptance/build.js';
import { existsSync as exists, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  World,
  approval,
  cliEnv,
  create,
  ensureBuilt,
  fail,
  finish,
  siteFlow,
  turnsYaml,
} from './helpers/cli.js';

const SCRIPT = '/usr/bin/script';

/**
 * Runs the CLI inside a pseudo-terminal (util-linux `script`). `answers` are typed in order, each once
 * its prompt has appeared (typing ahead is not what a person does, and readline drops lines that
 * arrive before their question).
 */
function inTerminal(
  w: World,
  args: string[],
  answers: [prompt: string, keys: string][],
): Promise<{ code: number; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [NODE, CLI, ...args, '--db', w.dbUrl].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
      cwd: w.dir,
      env: cliEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let from = 0;
    const pending = [...answers];
    const onData = (chunk: string) => {
      output += chunk;
      const next = pending[0];
      if (!next) return;
      const at = output.indexOf(next[0], from);
      if (at < 0) return;
      from = at + next[0].length;
      pending.shift();
      child.stdin.write(next[1]);
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr.setEncoding('utf8').on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code: code ?? -1, output });
    });
  });
}

/** In a terminal without --json, approvals and follow-ups are asked inline. */
describe.skipIf(!exists(SCRIPT))('cli: interactive use in a terminal', () => {
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
      [['Answer:', '2\n']],
    );
    expect(r.code).toBe(0);
    expect(r.output).toContain('Question: Which colour?');
    expect(r.output).toContain('2. blue');
    expect(r.output).toMatch(/run run_\w+: completed/);
    const [run] = await (await w.db()).listRuns();
    const events = await (await w.db()).events(run?.runId as string);
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({ kind: 'FOLLOW_UP', answer: 'blue' });
  });

  it('asks an approval inline showing the exact call; "y" approves (with a comment), anything else declines', async () => {
    w.write('flow.yaml', siteFlow(w.dataDir));
    w.write('yes.yaml', turnsYaml([create('官网'), approval, create('官网'), finish]));
    const yes = await inTerminal(
      w,
      ['run', 'flow.yaml', '--input', '创建 官网', '--model', 'scripted:yes.yaml'],
      [
        ['Approve? [y/N]', 'y\n'],
        ['Comment (optional):', 'looks right\n'],
      ],
    );
    expect(yes.code).toBe(0);
    expect(yes.output).toContain('tool: web_site_create');
    expect(yes.output).toContain('"name": "官网"');
    expect(yes.output).toContain('Approve? [y/N]');
    const writes = readFileSync(join(w.dataDir, 'writes.jsonl'), 'utf8').trim().split('\n');
    expect(writes).toHaveLength(1);
    w.write('no.yaml', turnsYaml([create('官网2'), approval, fail('declined')]));
    const no = await inTerminal(
      w,
      ['run', 'flow.yaml', '--input', '创建 官网2', '--model', 'scripted:no.yaml'],
      [
        ['Approve? [y/N]', 'n\n'],
        ['Comment (optional):', '\n'],
      ],
    );
    expect(no.code).toBe(1);
    const runs = await (await w.db()).listRuns();
    const events = await (await w.db()).events(runs[0]?.runId as string);
    expect(events.find((e) => e.type === 'run.resumed')).toMatchObject({
      decision: 'rejected',
      comment: null,
    });
    const first = await (await w.db()).events(runs[1]?.runId as string);
    expect(first.find((e) => e.type === 'run.resumed')).toMatchObject({
      decision: 'approved',
      comment: 'looks right',
      who: 'tester',
    });
    expect(readFileSync(join(w.dataDir, 'writes.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('with --json it never asks: exit 3 and the summary on stdout', async () => {
    w.write('flow.yaml', ['id: plain', 'locale: en', 'nodes:', '  - id: a'].join('\n'));
    w.write('turns.yaml', turnsYaml([question, finish]));
    const r = await inTerminal(
      w,
      ['run', 'flow.yaml', '--input', 'x', '--model', 'scripted:turns.yaml', '--json'],
      [['Answer:', '2\n']],
    );
    expect(r.code).toBe(3);
    expect(r.output).not.toContain('Answer:');
    const [run] = await (await w.db()).listRuns();
    expect(run?.status).toBe('suspended');
  });
});
