import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../acceptance/build.js';
import {
  World,
  approval,
  cliEnv,
  create,
  ensureBuilt,
  finish,
  siteFlow,
  turnsYaml,
  type Summary,
} from './helpers/cli.js';

/** Runs a printed `agent-runtime …` command exactly as printed, through a POSIX shell, in `cwd`. */
function runPrinted(command: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const shell = command.replace(/^(npx )?agent-runtime /, `'${NODE}' '${CLI}' `);
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', shell], { cwd, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The commands printed after "continue with:" (the main one and the one in "(or: …)"). */
function printedCommands(stderr: string): string[] {
  const line = stderr.split('\n').find((l) => l.startsWith('continue with: '));
  if (!line) throw new Error(`no "continue with" line in:\n${stderr}`);
  const [main, alternative] = line.slice('continue with: '.length).split(/\s+\(or: /);
  return [main as string, ...(alternative ? [alternative.replace(/\)$/, '')] : [])].map((c) => c.trim());
}

describe('cli: evidence, result previews, continue hints, runs header', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  async function suspended(): Promise<{ runId: string; stderr: string }> {
    const flow = w.write('flow.yaml', siteFlow(w.dataDir));
    w.write(
      'turns.yaml',
      turnsYaml([
        { calls: [{ tool: 'space_list', args: {} }] },
        create('官网'),
        approval,
        create('官网'),
        finish,
      ]),
    );
    const r = await w.cli(['run', flow, '--input', '创建 官网', '--model', 'scripted:turns.yaml']);
    expect(r.code, r.stderr).toBe(3);
    const runId = /^run (run_\w+): suspended$/m.exec(r.stderr)?.[1];
    expect(runId).toBeDefined();
    return { runId: runId as string, stderr: r.stderr };
  }

  it('prints a "continue with" command that works as printed (it carries --db), and a result preview per call', async () => {
    const { runId, stderr } = await suspended();
    expect(stderr).toMatch(/✔ SUCCESS space_list \{\} \[ev_1\]\n\s+→ \{"code":0,"message":"ok","data":\[/);
    const [approve, reject] = printedCommands(stderr);
    // No agent-runtime on PATH (as after a project's local install): the npx form, which works there.
    expect(approve).toBe(`npx agent-runtime approve ${runId} --db ${w.dbUrl}`);
    expect(reject).toBe(`npx agent-runtime reject ${runId} --db ${w.dbUrl} --comment TEXT`);
    const done = await runPrinted(approve as string, w.dir);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stderr).toMatch(new RegExp(`run ${runId}: completed`));
  });

  it('prints the answer hint with --db, and none when --db names the default store', async () => {
    const flow = w.write('flow.yaml', siteFlow(w.dataDir));
    w.write(
      'turns.yaml',
      turnsYaml([{ calls: [{ tool: 'builtin_node_follow_up', args: { question: 'Which name?' } }] }, finish]),
    );
    const asked = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml']);
    expect(asked.code).toBe(3);
    const [answer] = printedCommands(asked.stderr);
    expect(answer).toMatch(new RegExp(`^npx agent-runtime answer run_\\w+ TEXT --db ${w.dbUrl}$`));
    const done = await runPrinted((answer as string).replace(' TEXT ', " '官网' "), w.dir);
    expect(done.code, done.stderr).toBe(0);

    // With agent-runtime on PATH (a global install) the plain form.
    const bin = join(w.dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'agent-runtime'), '#!/bin/sh\n', { mode: 0o755 });
    const plain = await w.cli(['run', flow, '--input', 'x', '--model', 'scripted:turns.yaml'], {
      db: false,
      env: { AGENT_RUNTIME_DB: w.dbUrl, PATH: `${bin}${delimiter}${cliEnv().PATH ?? ''}` },
    });
    expect(plain.code).toBe(3);
    const [again] = printedCommands(plain.stderr);
    expect(again).toMatch(/^agent-runtime answer run_\w+ TEXT$/);
  });

  it('evidence lists the records and shows one in full; --json; an unknown id exits 2 naming the ones there are', async () => {
    const { runId } = await suspended();
    const list = await w.cli(['evidence', runId]);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TOOL\s+OUTCOME\s+NODE\s+TIME\s+ARGS\s+PAYLOAD$/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^ev_1\s+space_list\s+SUCCESS\s+create\s+\S+Z\s+\{\}\s+\{"code":0/);

    const one = await w.cli(['evidence', runId, 'ev_1']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^evidence ev_1\ntool: +space_list\noutcome: +SUCCESS\n/);
    const payload = JSON.parse(one.stdout.slice(one.stdout.indexOf('payload:\n') + 9)) as unknown;

    const json = await w.cli(['evidence', runId, '--json']);
    const records = json.json as { id: string; payload: unknown }[];
    expect(records.map((r) => r.id)).toEqual(['ev_1']);
    expect(records[0]?.payload).toEqual(payload);
    const record = await w.cli(['evidence', runId, 'ev_1', '--json']);
    expect(record.json).toEqual(records[0]);

    const missing = await w.cli(['evidence', runId, 'ev_7']);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim()).toBe(
      `agent-runtime: evidence: run ${runId} has no evidence ev_7 (it has ev_1)`,
    );
    const unknownRun = await w.cli(['evidence', 'run_nope']);
    expect(unknownRun.code).toBe(2);
    expect(unknownRun.stderr).toMatch(/unknown run id run_nope/);
  });

  it('trace previews each result on one line; runs has a header row', async () => {
    const { runId } = await suspended();
    const trace = await w.cli(['trace', runId]);
    expect(trace.stderr).toMatch(/SUCCESS space_list \{\} \[ev_1\]\n\s+→ \{"code":0/);
    expect(trace.stderr).toMatch(/DEFERRED web_site_create[^\n]*APPROVAL_REQUIRED\n[^\n]*\n(?!\s+→)/);
    const json = await w.cli(['trace', runId, '--json']);
    const invoked = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((e) => e.type === 'tool.invoked');
    expect(invoked[0]).toMatchObject({ tool: 'space_list', result: { code: 0, data: expect.any(Array) } });
    const runs = await w.cli(['runs']);
    const rows = runs.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^RUN_ID\s+STATUS\s+FLOW\s+UPDATED\s+PARENT$/);
    expect(rows[1]).toMatch(new RegExp(`^${runId}\\s+suspended\\s+site\\s+\\S+Z$`));
    expect(((await w.cli(['runs', '--json'])).json as Summary[]).length).toBe(1);
  });
});
