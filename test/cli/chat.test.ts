import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, NODE } from '../acceptance/build.js';
import type { Turn } from '../../src/testing/fake-model/wire.js';
import { providerSetup } from '../providers/play.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';
import { REPO_ROOT, World, cliEnv, ensureBuilt, runCli } from './helpers/cli.js';

/**
 * `agent-runtime chat` in a real pseudo-terminal (util-linux `script`), against the official
 * filesystem MCP server and a strict OpenAI stand-in that streams (it refuses what the real service
 * refuses): two messages in a thread, the second's write approved inline; Ctrl-C at an approval
 * leaves the thread, and a second `chat --thread` asks that approval again and finishes the run.
 */

const SCRIPT = '/usr/bin/script';
const FS_SERVER = join(REPO_ROOT, 'node_modules/.bin/mcp-server-filesystem');

/**
 * Runs the CLI in a pseudo-terminal; each `[prompt, keys]` is typed once its prompt appeared after
 * the previous one (a person does not type ahead of the question).
 */
function inTerminal(
  w: World,
  args: string[],
  env: Record<string, string>,
  answers: [prompt: string, keys: string][],
): Promise<{ code: number; output: string }> {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = [NODE, CLI, ...args, '--db', w.dbUrl].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
      cwd: w.dir,
      env: cliEnv(env),
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
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      resolve({ code: code ?? -1, output: output.replace(/\r\n/g, '\n') });
    });
  });
}

function helpdesk(w: World, work: string): string {
  return w.write(
    'helpdesk.yaml',
    [
      'id: helpdesk',
      'locale: en',
      'mcpServers:',
      `  fs: { command: ${JSON.stringify(FS_SERVER)}, args: [${JSON.stringify(work)}], connectTimeoutMs: 60000 }`,
      'tools:',
      '  write_file:',
      '    write: true',
      '    params:',
      '      path: { source: user }',
      'nodes:',
      '  - id: talk',
      '    answer: text',
      '    instructions: Answer questions about the tickets; write notes when asked.',
      '    tools: [read_text_file, write_file]',
      '',
    ].join('\n'),
  );
}

const call = (id: string, name: string, args: unknown): Turn => ({
  calls: [{ id, name, args: JSON.stringify(args) }],
  usage: { input: 10, output: 5 },
});

const fakes: StrictFake[] = [];
afterAll(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});

describe.skipIf(!existsSync(SCRIPT))('cli: chat in a terminal', () => {
  beforeAll(() => ensureBuilt(), 300_000);
  let w: World;
  beforeEach(() => {
    w = new World();
  });
  afterEach(async () => {
    await w.dispose();
  });

  it('two messages in a thread; Ctrl-C at the approval leaves it; chat --thread asks again and finishes', async () => {
    const work = join(w.dir, 'work');
    mkdirSync(work);
    const tickets = join(work, 'tickets.txt');
    writeFileSync(tickets, 'printer ticket #12: owner Dana Li\n');
    const notes = join(work, 'owner.txt');
    const turns: Turn[] = [
      call('c1', 'read_text_file', { path: tickets }),
      { text: 'Dana Li owns the printer ticket.', usage: { input: 10, output: 5 } },
      call('c3', 'write_file', { path: notes, content: 'Dana Li' }),
      call('c4', 'builtin_node_approval', { tool: 'write_file', summary: 'Write Dana Li down' }),
      call('c5', 'write_file', { path: notes, content: 'Dana Li' }),
      { text: `Written: Dana Li is in ${notes}.`, usage: { input: 10, output: 5 } },
    ];
    const fake = await startStrictFake('openai', (i) => turns[i] ?? { text: 'no more turns' });
    fakes.push(fake);
    const { model, env } = providerSetup('openai', fake.url, fake.key, true);
    const flow = helpdesk(w, work);
    const first = `Who owns the printer ticket? Notes go to ${notes}`;

    const one = await inTerminal(w, ['chat', flow, '--thread', 'T1', '--model', model], env, [
      ['you> ', `${first}\n`],
      ['you> ', 'Write the owner down now\n'],
      ['Approve? [y/N] ', '\x03'],
    ]);
    expect(one.code, one.output).toBe(130);
    expect(one.output).toContain('chat with flow helpdesk in thread T1');
    expect(one.output).toMatch(/⚙ read_text_file \{"path":"[^"]+tickets\.txt"\} → SUCCESS \[ev_1\]/);
    expect(one.output).toContain('assistant> Dana Li owns the printer ticket.');
    expect(one.output).toContain('tool: write_file');
    expect(one.output).toContain(`said by the user: {"path":${JSON.stringify(first)}}`);
    expect(one.output).toContain('left thread T1; continue with:');
    expect(one.output).toContain('chat ');
    expect(existsSync(notes)).toBe(false);

    const two = await inTerminal(w, ['chat', flow, '--thread', 'T1', '--model', model], env, [
      ['Approve? [y/N] ', 'y\n'],
      ['you> ', '/exit\n'],
    ]);
    expect(two.code, two.output).toBe(0);
    expect(two.output).toContain('you> Write the owner down now');
    expect(two.output).toMatch(/⚙ write_file \{"path":"[^"]+owner\.txt","content":"Dana Li"\} → SUCCESS/);
    expect(two.output).toContain(`assistant> Written: Dana Li is in ${notes}.`);
    expect(readFileSync(notes, 'utf8')).toBe('Dana Li');

    const store = await w.db();
    const runs = await store.listRuns();
    expect(runs.map((r) => r.status)).toEqual(['completed', 'completed']);
    const writes = (await Promise.all(runs.map((r) => store.events(r.runId))))
      .flat()
      .filter((e) => e.type === 'tool.invoked' && e.tool === 'write_file' && e.executed === true);
    expect(writes).toHaveLength(1);
    // The model streamed (the stand-in checks the rest of each request).
    expect(fake.requests.every((r) => r.stream)).toBe(true);
    expect(fake.refusals()).toEqual([]);
  }, 120_000);

  it('without a terminal: exit 2 and a message saying what to use instead', async () => {
    const flow = w.write('flow.yaml', ['id: plain', 'locale: en', 'nodes:', '  - id: a'].join('\n'));
    const r = await runCli(['chat', flow, '--db', w.dbUrl], { cwd: w.dir, env: {} });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('chat: needs a terminal');
    expect(r.stderr).toContain('run FLOW --thread ID --input TEXT');
  });
});
