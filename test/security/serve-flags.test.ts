import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args.js';
import { runServe } from '../../src/cli/serve.js';
import { quietLogger, tempDir } from '../server/helpers.js';
import { alive, ENV_SERVER, PROBE_TURNS, probeIn, until } from '../helpers/env-probe.js';
import { QUICK_TURNS } from './helpers.js';

/**
 * The security flags of `serve`: --scripted-models, --allow-stdio, --allow-mcp-host, --max-streams-per-token,
 * --max-mcp-connections, --mcp-idle-ms.
 */

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

  it('passes --max-mcp-connections and --mcp-idle-ms to the runtime', async () => {
    const scripts = await tempDir({ 'probe.yaml': PROBE_TURNS });
    const h = io();
    const done = runServe(
      [
        ...['--port', '0', '--db', 'memory', '--scripted-models', scripts, '--allow-stdio', 'node'],
        ...['--max-mcp-connections', '1', '--mcp-idle-ms', '300', '--allow-stdio-env', 'TAG'],
      ],
      h.io,
    );
    const url = await h.printed;
    const probe = async (tag: string): Promise<number> => {
      const started = await post(url, '/v1/runs', {
        input: 'x',
        model: 'scripted:probe.yaml',
        flow: {
          id: 'probe',
          locale: 'en',
          mcpServers: { p: { command: 'node', args: [ENV_SERVER], env: { TAG: tag } } },
          nodes: [{ id: 'main', tools: ['env_probe'] }],
        },
      });
      expect(started.status).toBe(201);
      const { runId } = (await started.json()) as { runId: string };
      // The stream of a run ends after its last event.
      const events = await (await fetch(`${url}/v1/runs/${runId}/events`)).text();
      return probeIn(events, runId).pid;
    };
    const first = await probe('one');
    const second = await probe('two');
    expect(alive(first)).toBe(false); // closed to make room: the limit is 1
    expect(alive(second)).toBe(true);
    expect(await until(() => !alive(second), 10_000)).toBe(true); // idle for 300 ms
    h.stop();
    expect(await done).toBe(0);
  }, 60_000);

  it('refuses a --scripted-models that is not a folder, bad numbers of the limit flags and loader hooks for --allow-stdio-env (exit 2)', async () => {
    const dir = await tempDir({ 'file.yaml': 'x: 1\n' });
    for (const [argv, message] of [
      [['--scripted-models', join(dir, 'missing')], /--scripted-models .* is not a folder/],
      [['--scripted-models', join(dir, 'file.yaml')], /is not a folder/],
      [['--max-streams-per-token', '0'], /--max-streams-per-token must be a positive number/],
      [['--max-streams-per-token', 'many'], /--max-streams-per-token/],
      [['--max-mcp-connections', '0'], /--max-mcp-connections must be a positive number/],
      [['--max-mcp-connections', '-3'], /--max-mcp-connections/],
      [['--mcp-idle-ms', '5m'], /--mcp-idle-ms must be a number of milliseconds, not "5m"/],
      [['--mcp-idle-ms', '-1'], /--mcp-idle-ms/],
      [['--allow-stdio-env', 'NODE_OPTIONS'], /--allow-stdio-env NODE_OPTIONS: .* cannot be allowed/],
      [['--allow-stdio-env', 'ld_preload'], /cannot be allowed/],
      ...['HGRCPATH', 'GNUPGHOME', 'COR_PROFILER', 'WINEDLLOVERRIDES', 'PUPPETEER_EXECUTABLE_PATH'].map(
        (name) =>
          [
            ['--allow-stdio-env', name],
            new RegExp(`--allow-stdio-env ${name}: .* cannot be allowed`),
          ] as const,
      ),
      [['--allow-stdio-env', 'HTTPS_PROXY'], /cannot be allowed/],
      [['--allow-stdio-env', 'A-B'], /--allow-stdio-env takes a variable name/],
      [
        ['--allow-stdio-env', 'ELIXIR_ERL_OPTIONS'],
        /--allow-stdio-env ELIXIR_ERL_OPTIONS: .* cannot be allowed/,
      ],
      [['--allow-stdio-env', 'MIX_HOME'], /--allow-stdio-env MIX_HOME: .* cannot be allowed/],
      [['--allow-stdio-env', 'HEX_HOME'], /--allow-stdio-env HEX_HOME: .* cannot be allowed/],
      [['--allow-stdio-env', 'SBT_OPTS'], /--allow-stdio-env SBT_OPTS: .* cannot be allowed/],
      [
        ['--allow-stdio-env', 'ELECTRON_RUN_AS_NODE'],
        /--allow-stdio-env ELECTRON_RUN_AS_NODE: .* cannot be allowed/,
      ],
      [['--allow-stdio-env', 'R_PROFILE'], /--allow-stdio-env R_PROFILE: .* cannot be allowed/],
      [['--allow-stdio-env', 'R_PROFILE_USER'], /--allow-stdio-env R_PROFILE_USER: .* cannot be allowed/],
      [['--allow-stdio-env', 'R_ENVIRON'], /--allow-stdio-env R_ENVIRON: .* cannot be allowed/],
      [['--allow-stdio-env', 'R_ENVIRON_USER'], /--allow-stdio-env R_ENVIRON_USER: .* cannot be allowed/],
      [['--allow-stdio-env', 'R_LIBS'], /--allow-stdio-env R_LIBS: .* cannot be allowed/],
      [['--allow-stdio-env', 'R_LIBS_USER'], /--allow-stdio-env R_LIBS_USER: .* cannot be allowed/],
      [['--allow-stdio-env', 'R_LIBS_SITE'], /--allow-stdio-env R_LIBS_SITE: .* cannot be allowed/],
      [['--allow-stdio-env', 'R_HOME'], /--allow-stdio-env R_HOME: .* cannot be allowed/],
      [['--allow-stdio-env', 'TCLLIBPATH'], /--allow-stdio-env TCLLIBPATH: .* cannot be allowed/],
      [['--allow-stdio-env', 'TCL_LIBRARY'], /--allow-stdio-env TCL_LIBRARY: .* cannot be allowed/],
      [['--allow-stdio-env', 'JULIA_LOAD_PATH'], /--allow-stdio-env JULIA_LOAD_PATH: .* cannot be allowed/],
      [['--allow-stdio-env', 'BROWSER'], /--allow-stdio-env BROWSER: .* cannot be allowed/],
      [['--allow-stdio-env', 'SYSTEMD_PAGER'], /--allow-stdio-env SYSTEMD_PAGER: .* cannot be allowed/],
      [['--allow-stdio-env', 'MANPAGER'], /--allow-stdio-env MANPAGER: .* cannot be allowed/],
      [['--allow-stdio-env', 'WGETRC'], /--allow-stdio-env WGETRC: .* cannot be allowed/],
      [['--allow-stdio-env', 'PSQLRC'], /--allow-stdio-env PSQLRC: .* cannot be allowed/],
      [['--allow-stdio-env', 'CURL_HOME'], /--allow-stdio-env CURL_HOME: .* cannot be allowed/],
      [['--allow-stdio-env', 'DOCKER_HOST'], /--allow-stdio-env DOCKER_HOST: .* cannot be allowed/],
      [['--allow-stdio-env', 'KUBECONFIG'], /--allow-stdio-env KUBECONFIG: .* cannot be allowed/],
      [['--allow-stdio-env', 'SUDO_ASKPASS'], /--allow-stdio-env SUDO_ASKPASS: .* cannot be allowed/],
      [['--allow-stdio-env', 'GHC_ENVIRONMENT'], /--allow-stdio-env GHC_ENVIRONMENT: .* cannot be allowed/],
      [['--allow-stdio-env', 'NIX_PATH'], /--allow-stdio-env NIX_PATH: .* cannot be allowed/],
      [['--allow-stdio-env', 'CXXFLAGS'], /--allow-stdio-env CXXFLAGS: .* cannot be allowed/],
      [['--allow-stdio-env', 'CPPFLAGS'], /--allow-stdio-env CPPFLAGS: .* cannot be allowed/],
      [['--allow-stdio-env', 'JAVA_OPTS'], /--allow-stdio-env JAVA_OPTS: .* cannot be allowed/],
      [['--allow-stdio-env', 'ANT_OPTS'], /--allow-stdio-env ANT_OPTS: .* cannot be allowed/],
      [['--allow-stdio-env', 'CATALINA_OPTS'], /--allow-stdio-env CATALINA_OPTS: .* cannot be allowed/],
      [['--allow-stdio-env', 'JVM_OPTS'], /--allow-stdio-env JVM_OPTS: .* cannot be allowed/],
      [['--allow-stdio-env', 'foo_opts'], /--allow-stdio-env foo_opts: .* cannot be allowed/],
      [['--allow-stdio-env', 'HTTP_OPTIONS'], /--allow-stdio-env HTTP_OPTIONS: .* cannot be allowed/],
    ] as const) {
      const error = await runServe(['--port', '0', '--db', 'memory', ...argv], io().io).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toMatch(message);
    }
  });
});
