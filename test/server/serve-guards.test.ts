import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/serve.js';
import { UsageError } from '../../src/cli/args.js';
import { openStore } from '../../src/store/open.js';
import { REPO_ROOT, ensureBuilt } from '../acceptance/build.js';
import { TOKENS, TOKEN_LIST, quietLogger, tempDir } from './helpers.js';

/** `serve --guards MODULE --tools MODULE`: the modules of docs/interceptors.md (they import the built package). */
const FIXTURES = join(REPO_ROOT, 'test/fixtures/interceptors');

function io() {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let url!: (value: string) => void;
  const printed = new Promise<string>((resolve) => (url = resolve));
  return {
    stop,
    printed,
    io: { out: (text: string) => url(text.trim()), stopped: () => stopped, logger: quietLogger },
  };
}

const TURNS = `turns:
  - { calls: [{ tool: refund, args: { amount: 250 } }] }
  - { calls: [{ tool: customer_get, args: { id: c-13 } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

describe('agent-runtime serve --guards --tools', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('runs started over HTTP go through the guards: refund 250 is REJECTED and never runs', async () => {
    const dir = await tempDir({ 'turns.yaml': TURNS, 'tokens.json': JSON.stringify(TOKEN_LIST) });
    const flow = readFileSync(join(FIXTURES, 'flow.yaml'), 'utf8');
    writeFileSync(join(dir, 'flow.yaml'), `${flow}model: scripted:./turns.yaml\n`);
    const log = join(dir, 'refunds.log');
    process.env.REFUND_LOG = log;
    const db = `sqlite:${join(dir, 'serve.db')}`;
    const h = io();
    const done = runServe(
      [
        '--port',
        '0',
        '--flows',
        dir,
        '--tokens',
        join(dir, 'tokens.json'),
        '--db',
        db,
        '--guards',
        join(FIXTURES, 'guards.mjs'),
        '--tools',
        join(FIXTURES, 'tools.mjs'),
      ],
      h.io,
    );
    const url = await h.printed;
    const headers = { authorization: `Bearer ${TOKENS.operator}`, 'content-type': 'application/json' };
    const started = await fetch(`${url}/v1/runs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ flowId: 'refunds', input: { text: 'refund me' } }),
    });
    expect(started.status, await started.clone().text()).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const deadline = Date.now() + 20_000;
    let status = 'running';
    while (status === 'running' && Date.now() < deadline) {
      const res = await fetch(`${url}/v1/runs/${runId}`, { headers });
      status = ((await res.json()) as { status: string }).status;
      if (status === 'running') await new Promise((r) => setImmediate(r));
    }
    expect(status).toBe('completed');
    h.stop();
    expect(await done).toBe(0);
    delete process.env.REFUND_LOG;
    const store = await openStore(db);
    const invoked = (await store.events(runId)).filter((e) => e.type === 'tool.invoked');
    await store.close();
    expect(invoked.map((e) => [e.tool, e.outcome, e.errorCode])).toEqual([
      ['refund', 'REJECTED', 'REFUND_OVER_LIMIT'],
      ['customer_get', 'FAILED', 'CUSTOMER_BLOCKED'],
      ['builtin_node_finish', 'SUCCESS', null],
    ]);
    expect(existsSync(log)).toBe(false);
  });

  it('a guards module that exports no guards is a usage error (exit 2)', async () => {
    const dir = await tempDir({ 'none.mjs': 'export const x = 1;\n' });
    const error = await runServe(['--port', '0', '--guards', join(dir, 'none.mjs')], io().io).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/exports no guards/);
  });
});
