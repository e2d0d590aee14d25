import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './cli.js';
import { SCENARIO_TIMEOUT_MS, useSandbox } from './scenario.js';
import { providerSetup } from '../providers/play.js';
import { startStrictFake, type StrictFake } from '../../src/testing/fake-model/server.js';
import type { Turn } from '../../src/testing/fake-model/wire.js';
import { startServer, TOKENS } from '../server/helpers.js';

/**
 * Issue 29 "Done when": two `run --thread T1` CLI processes against the official filesystem MCP server
 * and a strict OpenAI-compatible stand-in. The first answers; the second starts with the first message
 * and reply, writes to the path said only in the first message (`source: user`), suspends for approval
 * and completes after `approve`; the HTTP API lists both messages and both replies of the thread.
 */

const FS_SERVER = join(REPO_ROOT, 'node_modules/.bin/mcp-server-filesystem');
const fakes: StrictFake[] = [];
afterAll(async () => {
  for (const fake of fakes.splice(0)) await fake.close();
});
const sandbox = useSandbox();

function helpdeskFlow(dir: string, work: string): string {
  const file = join(dir, 'flow.yaml');
  writeFileSync(
    file,
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
  return file;
}

const call = (id: string, name: string, args: unknown): Turn => ({
  calls: [{ id, name, args: JSON.stringify(args) }],
  usage: { input: 10, output: 5 },
});

describe('threads: the assistant remembers (CLI, filesystem MCP server, strict provider)', () => {
  it(
    'run --thread T1 answers; the second message writes where the first said, after approval',
    async () => {
      const box = sandbox();
      const work = join(box.dir, 'work');
      mkdirSync(work);
      writeFileSync(join(work, 'tickets.txt'), 'printer ticket #12: owner Dana Li\n');
      const notes = join(work, 'owner.txt');
      const first = `Who owns the printer ticket? Notes go to ${notes}`;
      const turns: Turn[] = [
        call('c1', 'read_text_file', { path: join(work, 'tickets.txt') }),
        { text: 'Dana Li owns the printer ticket.', usage: { input: 10, output: 5 } },
        call('c3', 'write_file', { path: notes, content: 'Dana Li' }),
        call('c4', 'builtin_node_approval', { tool: 'write_file', summary: `Write Dana Li to ${notes}` }),
        call('c5', 'write_file', { path: notes, content: 'Dana Li' }),
        { text: `Written: Dana Li is in ${notes}.`, usage: { input: 10, output: 5 } },
      ];
      const fake = await startStrictFake('qwen', (i) => turns[i] ?? { text: 'no more turns' });
      fakes.push(fake);
      const { model, env } = providerSetup('qwen', fake.url, fake.key, false);
      box.env = env;
      const flow = helpdeskFlow(box.dir, work);

      const one = await box.cli(['run', flow, '--thread', 'T1', '--input', first, '--model', model]);
      expect(one.code, one.stderr).toBe(0);
      expect(one.summary).toMatchObject({ reply: 'Dana Li owns the printer ticket.', threadId: 'T1' });

      const two = await box.cli([
        'run',
        flow,
        '--thread',
        'T1',
        '--input',
        'Write the owner down now',
        '--model',
        model,
      ]);
      expect(two.code, two.stderr).toBe(3);
      const pending = two.summary?.suspension?.pending as { userProvenance?: Record<string, string> };
      expect(pending.userProvenance).toEqual({ path: first });
      // The second run's first request carries the first message and its reply before the new one.
      const messages = (fake.requests[2]?.body.messages ?? []) as { role: string; content: unknown }[];
      expect(messages.filter((m) => m.role !== 'system').slice(0, 3)).toMatchObject([
        { role: 'user', content: first },
        { role: 'assistant', content: 'Dana Li owns the printer ticket.' },
        { role: 'user', content: 'Write the owner down now' },
      ]);

      const busy = await box.cli(['run', flow, '--thread', 'T1', '--input', 'hello?', '--model', model]);
      expect(busy.code, busy.stderr).toBe(4);
      expect(busy.stderr).toContain('waits for an approval');

      const runId = two.summary?.runId as string;
      const done = await box.approve(runId);
      expect(done.code, done.stderr).toBe(0);
      expect(done.summary).toMatchObject({ status: 'completed', reply: `Written: Dana Li is in ${notes}.` });
      expect(readFileSync(notes, 'utf8')).toBe('Dana Li');
      expect(fake.refusals()).toEqual([]);

      const api = await startServer({ runtime: { store: `sqlite:${box.db}`, logger: false } });
      try {
        const res = await api.call('GET', '/v1/threads/T1', { token: TOKENS.viewer });
        expect(res.status).toBe(200);
        const thread = (await res.json()) as { messages: { role: string; kind: string; text: string }[] };
        const said = thread.messages.filter((m) => m.kind === 'input' || m.kind === 'reply');
        expect(said.map((m) => [m.role, m.text])).toEqual([
          ['user', first],
          ['assistant', 'Dana Li owns the printer ticket.'],
          ['user', 'Write the owner down now'],
          ['assistant', `Written: Dana Li is in ${notes}.`],
        ]);
      } finally {
        await api.stop();
      }
    },
    SCENARIO_TIMEOUT_MS * 2,
  );
});
