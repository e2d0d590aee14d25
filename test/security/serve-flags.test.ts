import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { runServe } from '../../src/cli/serve.js';
import { quietLogger, tempDir } from '../server/helpers.js';
import { QUICK_TURNS } from './helpers.js';

/** The security flags of `serve`: --scripted-models, --allow-stdio, --allow-mcp-host, --max-streams-per-token. */

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

async function post(url: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('serve security flags', () => {
  it('passes --scripted-models, --allow-stdio and --allow-mcp-host to the request policy', async () => {
    const scripts = await tempDir({ 'quick.yaml': QUICK_TURNS });
    const h = io();
    const done = runServe(
      [
        '--port',
        '0',
        '--db',
        'memory',
        '--scripted-models',
        scripts,
        '--allow-stdio',
        'node',
        '--allow-stdio',
        'python3',
        '--allow-mcp-host',
        'mcp.example.com',
        '--allow-stdio-env',
        'REGION',
      ],
      h.io,
    );
    const url = await h.printed;
    const flow = (mcpServers: object) => ({
      id: 'f',
      locale: 'en',
      model: 'scripted:quick.yaml',
      mcpServers,
      nodes: [{ id: 'main' }],
    });
    expect(
      (
        await post(
          url,
          '/v1/flows',
          flow({ a: { command: 'python3' }, b: { url: 'https://mcp.example.com/x' } }),
        )
      ).status,
    ).toBe(201);
    expect((await post(url, '/v1/flows', flow({ a: { command: 'bash' } }))).status).toBe(400);
    const withEnv = (env: Record<string, string>) => flow({ a: { command: 'python3', env } });
    expect((await post(url, '/v1/flows', withEnv({ REGION: 'eu' }))).status).toBe(201);
    expect((await post(url, '/v1/flows', withEnv({ REGION: 'eu', OTHER: 'x' }))).status).toBe(400);
    expect((await post(url, '/v1/flows', flow({ b: { url: 'https://other.example.com/x' } }))).status).toBe(
      400,
    );
    const outside = await post(url, '/v1/runs', {
      flow: flow({}),
      input: 'x',
      model: `scripted:${join(scripts, '..', 'x.yaml')}`,
    });
    expect(outside.status).toBe(400);
    h.stop();
    expect(await done).toBe(0);
  });

  it('refuses a --scripted-models that is not a folder, a bad --max-streams-per-token and loader hooks for --allow-stdio-env (exit 2)', async () => {
    const dir = await tempDir({ 'file.yaml': 'x: 1\n' });
    for (const [argv, message] of [
      [['--scripted-models', join(dir, 'missing')], /--scripted-models .* is not a folder/],
      [['--scripted-models', join(dir, 'file.yaml')], /is not a folder/],
      [['--max-streams-per-token', '0'], /--max-streams-per-token must be a positive number/],
      [['--max-streams-per-token', 'many'], /--max-streams-per-token/],
      [['--allow-stdio-env', 'NODE_OPTIONS'], /--allow-stdio-env NODE_OPTIONS: .* cannot be allowed/],
      [['--allow-stdio-env', 'ld_preload'], /cannot be allowed/],
      [['--allow-stdio-env', 'HTTPS_PROXY'], /cannot be allowed/],
      [['--allow-stdio-env', 'A-B'], /--allow-stdio-env takes a variable name/],
    ] as const) {
      const error = await runServe(['--port', '0', '--db', 'memory', ...argv], io().io).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
