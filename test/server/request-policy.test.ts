import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FlowSchema, isStdioServer, type Flow } from '../../src/domain/flow.js';
import { ApiError } from '../../src/server/errors.js';
import {
  STRICT_POLICY,
  endpointOf,
  hookedEnvKey,
  requestModel,
  vetRequestFlow,
  type RequestPolicy,
} from '../../src/server/request-policy.js';

/**
 * What a request may make the server do (docs/security.md): the model it names and the flow it sends,
 * checked against `serve`'s allow-lists without a server. test/server/request-reach.test.ts covers
 * `allowHosts` and the OAuth token file.
 */

function apiError(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

function policy(patch: Partial<RequestPolicy> = {}): RequestPolicy {
  return { ...STRICT_POLICY, ...patch };
}

function flow(extra: Record<string, unknown> = {}): Flow {
  return FlowSchema.parse({ id: 'f', locale: 'en', nodes: [{ id: 'main' }], ...extra });
}

/** The problems vetRequestFlow lists, or [] when it lets the flow through. */
function problems(f: Flow, p: RequestPolicy): readonly string[] {
  try {
    vetRequestFlow(f, p);
    return [];
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect(error.status).toBe(400);
    expect(error.code).toBe('FLOW_INVALID');
    expect(error.message).toBe('the flow is not allowed here');
    return error.problems ?? [];
  }
}

describe('STRICT_POLICY', () => {
  it('allows nothing', () => {
    expect(STRICT_POLICY.scriptedModels).toBeNull();
    for (const list of [
      STRICT_POLICY.allowStdio,
      STRICT_POLICY.allowMcpHosts,
      STRICT_POLICY.allowEnv,
      STRICT_POLICY.allowStdioEnv,
    ])
      expect(list.size).toBe(0);
  });
});

describe('requestModel', () => {
  let dir: string;
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), 'scripted-models-')));
    mkdirSync(join(dir, 'sub'));
    writeFileSync(join(dir, 'turns.json'), '{"turns":[]}');
    writeFileSync(join(dir, 'sub', 'more.json'), '{"turns":[]}');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a provider model is kept as given', () => {
    expect(requestModel('openai:gpt-4.1', STRICT_POLICY)).toBe('openai:gpt-4.1');
    expect(requestModel('anthropic:claude:with:colons', STRICT_POLICY)).toBe('anthropic:claude:with:colons');
  });

  it('a name not of the form provider:model is a 400 naming where it was given', () => {
    for (const spec of ['gpt-4.1', ':gpt', 'openai:']) {
      const error = apiError(() => requestModel(spec, STRICT_POLICY, 'body.model'));
      expect(error.status).toBe(400);
      expect(error.code).toBe('BAD_REQUEST');
      expect(error.message).toBe(
        `body.model: model ${JSON.stringify(spec)} is not of the form <provider>:<model id> (e.g. openai:gpt-4.1, scripted:turns.yaml)`,
      );
    }
  });

  it('a scripted model is refused without --scripted-models, saying how to allow it', () => {
    const error = apiError(() => requestModel('scripted:turns.json', STRICT_POLICY));
    expect(error.message).toBe(
      'model: scripted models are not accepted from requests; name a provider model (e.g. openai:gpt-4.1), or start the server with --scripted-models DIR',
    );
  });

  it('a scripted model inside the folder: its real path, a relative name resolved against the folder', () => {
    const p = policy({ scriptedModels: dir });
    expect(requestModel('scripted:turns.json', p)).toBe(`scripted:${join(dir, 'turns.json')}`);
    expect(requestModel('scripted:sub/more.json', p)).toBe(`scripted:${join(dir, 'sub', 'more.json')}`);
    expect(requestModel(`scripted:${join(dir, 'turns.json')}`, p)).toBe(
      `scripted:${join(dir, 'turns.json')}`,
    );
  });

  it('a scripted model outside the folder, or not there, is refused without reading anything', () => {
    const p = policy({ scriptedModels: join(dir, 'sub') });
    expect(apiError(() => requestModel('scripted:../turns.json', p)).message).toBe(
      'model: scripted model "../turns.json" is outside the --scripted-models folder',
    );
    expect(apiError(() => requestModel('scripted:/etc/passwd', p)).message).toBe(
      'model: scripted model "/etc/passwd" is outside the --scripted-models folder',
    );
    expect(apiError(() => requestModel('scripted:missing.json', p)).message).toBe(
      'model: scripted model "missing.json" is not a file in the --scripted-models folder',
    );
  });
});

describe('vetRequestFlow: stdio servers', () => {
  const stdio = (server: Record<string, unknown>) =>
    flow({ mcpServers: { tools: { command: 'mcp-tools', ...server } } });

  it('a command not given with --allow-stdio is refused', () => {
    expect(problems(stdio({}), STRICT_POLICY)).toEqual([
      'mcpServers.tools: command "mcp-tools" is not allowed for flows sent over HTTP; the server admits only commands given with --allow-stdio',
    ]);
  });

  it('an allowed command passes and is set to start with a minimal environment', () => {
    const f = stdio({ args: ['--quiet'] });
    expect(problems(f, policy({ allowStdio: new Set(['mcp-tools']) }))).toEqual([]);
    const server = f.mcpServers.tools;
    expect(server && isStdioServer(server) ? server.inheritEnv : 'not stdio').toBe(false);
    expect(f.sandboxExpressions).toBe(true);
  });

  it('the command must match exactly', () => {
    expect(
      problems(stdio({ command: '/usr/bin/mcp-tools' }), policy({ allowStdio: new Set(['mcp-tools']) })),
    ).toHaveLength(1);
  });

  it('refuses cwd, inheritEnv true and env keys not given with --allow-stdio-env, each its own problem', () => {
    const f = stdio({
      cwd: '/tmp',
      inheritEnv: true,
      env: { LOG_LEVEL: 'debug', NODE_OPTIONS: '--require x' },
    });
    const p = policy({ allowStdio: new Set(['mcp-tools']), allowStdioEnv: new Set(['LOG_LEVEL']) });
    expect(problems(f, p)).toEqual([
      "mcpServers.tools.cwd: flows sent over HTTP may not set the working folder of a server (it is the server's flows folder)",
      "mcpServers.tools.inheritEnv: flows sent over HTTP may not pass the server's environment to a command (they always run with a minimal one)",
      'mcpServers.tools.env: "NODE_OPTIONS" may not be set by flows sent over HTTP; the server admits only variables given with --allow-stdio-env',
    ]);
  });

  it('inheritEnv false is accepted as it is', () => {
    expect(problems(stdio({ inheritEnv: false }), policy({ allowStdio: new Set(['mcp-tools']) }))).toEqual(
      [],
    );
  });

  it('a refused flow is left as it was', () => {
    const f = stdio({});
    problems(f, STRICT_POLICY);
    const server = f.mcpServers.tools;
    expect(server && isStdioServer(server) ? server.inheritEnv : 'not stdio').toBeUndefined();
    expect(f.sandboxExpressions).toBeUndefined();
  });

  it('a ${VAR} in env is held to --allow-env', () => {
    const f = stdio({ env: { TOKEN: '${SECRET}' } });
    const p = policy({ allowStdio: new Set(['mcp-tools']), allowStdioEnv: new Set(['TOKEN']) });
    expect(problems(f, p)).toEqual([
      "mcpServers.tools.env.TOKEN: references the server's environment variable SECRET as ${SECRET}; flows sent over HTTP may reference only variables given with --allow-env",
    ]);
    expect(problems(stdio({ env: { TOKEN: '${SECRET}' } }), { ...p, allowEnv: new Set(['SECRET']) })).toEqual(
      [],
    );
  });
});

describe('vetRequestFlow: HTTP servers', () => {
  const http = (url: string, extra: Record<string, unknown> = {}) =>
    flow({ mcpServers: { wiki: { url, ...extra } } });

  it('a host not given with --allow-mcp-host is refused with its host and port', () => {
    expect(problems(http('https://mcp.example.com/mcp'), STRICT_POLICY)).toEqual([
      'mcpServers.wiki: host "mcp.example.com:443" is not allowed for flows sent over HTTP; the server admits only hosts (HOST, or HOST:PORT) given with --allow-mcp-host',
    ]);
  });

  it('a host allows any port; host:port only that one, the scheme’s default included', () => {
    const byHost = policy({ allowMcpHosts: new Set(['mcp.example.com']) });
    expect(problems(http('http://MCP.example.com:8080/mcp'), byHost)).toEqual([]);
    const byPort = policy({ allowMcpHosts: new Set(['mcp.example.com:443']) });
    expect(problems(http('https://mcp.example.com/mcp'), byPort)).toEqual([]);
    expect(problems(http('http://mcp.example.com/mcp'), byPort)).toHaveLength(1);
  });

  it('a URL that is not http or https is refused as such', () => {
    expect(problems(http('ftp://mcp.example.com/mcp'), STRICT_POLICY)).toEqual([
      'mcpServers.wiki: "ftp://mcp.example.com/mcp" is not an http or https URL',
    ]);
  });

  it('a ${VAR} in headers is held to --allow-env', () => {
    const p = policy({ allowMcpHosts: new Set(['mcp.example.com']) });
    expect(
      problems(http('https://mcp.example.com/mcp', { headers: { Authorization: 'Bearer ${API_KEY}' } }), p),
    ).toEqual([
      "mcpServers.wiki.headers.Authorization: references the server's environment variable API_KEY as ${API_KEY}; flows sent over HTTP may reference only variables given with --allow-env",
    ]);
  });
});

describe('vetRequestFlow: the rest of the flow', () => {
  it('refuses model providers, naming each', () => {
    const f = flow({
      providers: { qwen: { type: 'openai-compatible', baseURL: 'https://dashscope.example/v1' } },
    });
    expect(problems(f, STRICT_POLICY)).toEqual([
      'providers.qwen: flows sent over HTTP may not declare model providers; declare them in a flow of --flows DIR or with AGENT_RUNTIME_PROVIDER_<NAME>_BASE_URL on the server',
    ]);
  });

  it('holds the flow’s model to requestModel', () => {
    expect(problems(flow({ model: 'scripted:turns.json' }), STRICT_POLICY)).toEqual([
      'model: scripted models are not accepted from requests; name a provider model (e.g. openai:gpt-4.1), or start the server with --scripted-models DIR',
    ]);
    expect(problems(flow({ model: 'openai:gpt-4.1' }), STRICT_POLICY)).toEqual([]);
  });

  it('refuses sandboxExpressions false, and sets it true on a flow that passes', () => {
    expect(problems(flow({ sandboxExpressions: false }), STRICT_POLICY)).toEqual([
      'sandboxExpressions: flows sent over HTTP always have their expressions evaluated in the sandbox',
    ]);
    const f = flow();
    expect(problems(f, STRICT_POLICY)).toEqual([]);
    expect(f.sandboxExpressions).toBe(true);
  });

  it('lists every problem at once, servers first', () => {
    const f = flow({
      model: 'scripted:x.json',
      sandboxExpressions: false,
      mcpServers: { a: { command: 'a' }, b: { url: 'https://b.example/mcp' } },
    });
    const found = problems(f, STRICT_POLICY);
    expect(found.map((p) => p.split(':')[0])).toEqual([
      'mcpServers.a',
      'mcpServers.b',
      'model',
      'sandboxExpressions',
    ]);
  });
});

describe('hookedEnvKey', () => {
  it.each([
    'LD_PRELOAD',
    'NODE_OPTIONS',
    'PYTHONPATH',
    'BASH_ENV',
    'PATH',
    'HOME',
    'JAVA_TOOL_OPTIONS',
    'GIT_SSH_COMMAND',
    'DYLD_INSERT_LIBRARIES',
    'KUBECONFIG',
    'HTTPS_PROXY',
  ])('%s is hooked', (key) => expect(hookedEnvKey(key)).toBe(true));

  it('by suffix: any *_OPTS, *_OPTIONS, *_PAGER, *_ASKPASS or *_PROXY', () => {
    for (const key of ['MY_APP_OPTS', 'FOO_OPTIONS', 'SYSTEMD_PAGER', 'SUDO_ASKPASS', 'corp_proxy'])
      expect(hookedEnvKey(key), key).toBe(true);
  });

  it('case-insensitively', () => {
    for (const key of ['ld_preload', 'Node_Options', 'path', 'pythonhome'])
      expect(hookedEnvKey(key), key).toBe(true);
  });

  it('any name that is not a plain identifier', () => {
    for (const key of ['', '1ABC', 'A-B', 'A B', 'A=B', 'LOG.LEVEL', 'É'])
      expect(hookedEnvKey(key), JSON.stringify(key)).toBe(true);
  });

  it('plain application variables are not', () => {
    for (const key of ['LOG_LEVEL', 'API_BASE', 'TIMEZONE', 'WIKI_SPACE', '_PRIVATE', 'OPTS', 'PAGE_SIZE'])
      expect(hookedEnvKey(key), key).toBe(false);
  });
});

describe('endpointOf', () => {
  it('host in lower case and host:port with the scheme’s default port', () => {
    expect(endpointOf('https://Example.COM/x')).toEqual({ host: 'example.com', hostPort: 'example.com:443' });
    expect(endpointOf('http://example.com/x')).toEqual({ host: 'example.com', hostPort: 'example.com:80' });
    expect(endpointOf('http://example.com:8080')).toEqual({
      host: 'example.com',
      hostPort: 'example.com:8080',
    });
    expect(endpointOf('http://[::1]:3000/mcp')).toEqual({ host: '[::1]', hostPort: '[::1]:3000' });
  });

  it('null for other schemes and for what is not a URL', () => {
    for (const url of ['ftp://example.com', 'file:///etc/passwd', 'example.com', ''])
      expect(endpointOf(url), url).toBeNull();
  });
});
