import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServe } from '../../src/cli/serve.js';
import { UsageError } from '../../src/cli/args.js';
import { FLOW_FILES } from './fixtures.js';
import { TOKENS, TOKEN_LIST, quietLogger, tempDir } from './helpers.js';

/** The `serve` command: flags, token file, flows folder, the URL on stdout, shutdown on signal. */

function io() {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  let url!: (value: string) => void;
  const printed = new Promise<string>((resolve) => {
    url = resolve;
  });
  return {
    stop,
    printed,
    io: { out: (text: string) => url(text.trim()), stopped: () => stopped, logger: quietLogger },
  };
}

describe('agent-runtime serve', () => {
  it('serves the flows of --flows with the tokens of --tokens and the store of --db, until told to stop', async () => {
    const dir = await tempDir({ ...FLOW_FILES, 'tokens.json': JSON.stringify(TOKEN_LIST) });
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
        `sqlite:${join(dir, 'serve.db')}`,
      ],
      h.io,
    );
    const url = await h.printed;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/v1/flows`)).status).toBe(401);
    const flows = (await (
      await fetch(`${url}/v1/flows`, { headers: { authorization: `Bearer ${TOKENS.viewer}` } })
    ).json()) as { flowId: string }[];
    expect(flows.map((f) => f.flowId)).toEqual(['ask', 'quick', 'slow', 'tickets']);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    h.stop();
    expect(await done).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it('refuses bad flags, a bad token file, a missing flows folder, and a public host without tokens (exit 2)', async () => {
    const dir = await tempDir({ 'tokens.yaml': '- { token: short, role: admin, name: x }\n' });
    const refuse = async (argv: string[], message: RegExp) => {
      const h = io();
      const error = await runServe(argv, h.io).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    };
    const saved = process.env.AGENT_RUNTIME_TOKENS;
    delete process.env.AGENT_RUNTIME_TOKENS;
    try {
      await refuse(['--port', 'http'], /--port must be a number/);
      await refuse(['--tokens', join(dir, 'tokens.yaml')], /16 characters/);
      await refuse(['--flows', join(dir, 'nope'), '--port', '0'], /is not a folder/);
      await refuse(['--host', '0.0.0.0'], /refusing --host 0\.0\.0\.0 without tokens/);
      await refuse(['extra'], /unexpected argument/);
      await refuse(['--watch', '--port', '0'], /--watch needs --flows DIR/);
      await refuse(
        ['--public-url', 'ftp://agents.example', '--port', '0'],
        /--public-url "ftp:\/\/agents\.example" is not an http\(s\) URL/,
      );
      await refuse(
        ['--public-url', 'https://agents.example/?x=1', '--port', '0'],
        /without query or fragment/,
      );
    } finally {
      if (saved !== undefined) process.env.AGENT_RUNTIME_TOKENS = saved;
    }
  });
});
