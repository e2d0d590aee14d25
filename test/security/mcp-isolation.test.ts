import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_SERVER, PROBE_TURNS, probeOfRun, type Probe } from '../helpers/env-probe.js';
import { tempDir } from '../server/helpers.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * Three holes of the second hostile review: (1) MCP connections and tool catalogs were keyed by flow
 * id + version only, so another tenant's inline flow with the same ids reached the first one's
 * server; (2) stdio servers of flows sent over HTTP inherited the server's whole environment and
 * could be given NODE_OPTIONS, LD_PRELOAD, PATH or a `cwd`; (3) without `--flows`, such a flow's
 * delegates were any flow file under the server's working folder, trusted.
 */

const SECRET_NAME = 'SEC_ISOLATION_SERVER_SECRET';
let target: Target;
let bare: Target;

beforeAll(async () => {
  process.env[SECRET_NAME] = 'server-only-value';
  const scripts = await tempDir({ 'probe.yaml': PROBE_TURNS });
  const flowsDir = await tempDir({
    'trusted.yaml': [
      'id: trusted',
      'locale: en',
      `model: scripted:${join(scripts, 'probe.yaml')}`,
      `mcpServers: { p: { command: node, args: [${JSON.stringify(ENV_SERVER)}] } }`,
      'nodes: [{ id: main, tools: [env_probe] }]',
      '',
    ].join('\n'),
  });
  const server = { scriptedModels: scripts, allowStdio: ['node'], allowStdioEnv: ['TAG'] };
  target = await startTarget({ flowsDir, server });
  bare = await startTarget({ server });
}, 60_000);
afterAll(async () => {
  delete process.env[SECRET_NAME];
  await target.stop();
  await bare.stop();
});

function probeFlow(
  env: Record<string, string>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'same',
    version: 1,
    locale: 'en',
    model: 'scripted:probe.yaml',
    mcpServers: { p: { command: 'node', args: [ENV_SERVER], env, ...extra } },
    nodes: [{ id: 'main', tools: ['env_probe'] }],
  };
}

/** Starts a run (inline flow or registered id), waits for it to end, and returns what the probe saw. */
async function probe(token: string, body: Record<string, unknown>): Promise<Probe> {
  const started = await target.call('POST', '/v1/runs', { token, json: { input: 'x', ...body } });
  expect(started.status, await started.clone().text()).toBe(201);
  const { runId } = (await started.json()) as { runId: string };
  return probeOfRun(target.runtime, runId);
}

describe('MCP connections and catalogs of flows sent over HTTP', () => {
  it('are never shared across tenants, even for the same flow id, version and server config', async () => {
    const acme = await probe(SEC.acmeAdmin, { flow: probeFlow({ TAG: 'acme' }) });
    const beta = await probe(SEC.betaAdmin, { flow: probeFlow({ TAG: 'beta' }) });
    expect(acme.tag).toBe('acme');
    expect(beta.tag).toBe('beta');
    expect(beta.pid).not.toBe(acme.pid);
    // The very same config as acme's, from another tenant: its own process.
    const betaSame = await probe(SEC.betaAdmin, { flow: probeFlow({ TAG: 'acme' }) });
    expect(betaSame.pid).not.toBe(acme.pid);
    // Within one tenant the same flow version and server keep sharing one connection.
    const acmeAgain = await probe(SEC.acmeAdmin, { flow: probeFlow({ TAG: 'acme' }) });
    expect(acmeAgain.pid).toBe(acme.pid);
  });

  it('are not shared by two flows of one tenant that differ in their servers', async () => {
    const first = await probe(SEC.admin, { flow: probeFlow({ TAG: 'one' }) });
    const second = await probe(SEC.admin, { flow: probeFlow({ TAG: 'two' }) });
    expect([first.tag, second.tag]).toEqual(['one', 'two']);
    expect(second.pid).not.toBe(first.pid);
  });
});

describe('the environment of stdio servers of flows sent over HTTP', () => {
  it("is the minimal one plus the flow's env, never the server's variables", async () => {
    const seen = await probe(SEC.admin, { flow: probeFlow({ TAG: 'minimal' }) });
    expect(seen.keys).not.toContain(SECRET_NAME);
    const allowed = new Set(['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER', 'TAG']);
    expect(seen.keys.filter((key) => !allowed.has(key))).toEqual([]);
    const registered = await target.call('POST', '/v1/flows', {
      token: SEC.acmeAdmin,
      json: { ...probeFlow({ TAG: 'uploaded' }), id: 'uploaded' },
    });
    expect(registered.status).toBe(201);
    const uploaded = await probe(SEC.acmeOperator, { flowId: 'uploaded' });
    expect(uploaded.tag).toBe('uploaded');
    expect(uploaded.keys).not.toContain(SECRET_NAME);
  });

  it("keeps the whole environment for the operator's own flows (--flows DIR)", async () => {
    const seen = await probe(SEC.operator, { flowId: 'trusted' });
    expect(seen.keys).toContain(SECRET_NAME);
  });

  it('refuses every variable not given with --allow-stdio-env, a working folder and inheritEnv: true, naming each', async () => {
    const hooks = {
      NODE_OPTIONS: '--require /tmp/x.js',
      LD_PRELOAD: '/tmp/x.so',
      PATH: '/tmp',
      node_options: '--import /tmp/x.mjs',
      ERL_AFLAGS: '-eval os:cmd("id").',
      MAVEN_OPTS: '-javaagent:/tmp/x.jar',
      tag: 'lower-case is another name',
      'A=B': 'x',
      TAG: 'fine',
    };
    for (const t of [target, bare]) {
      const error = await errorOf(
        await t.call('POST', '/v1/runs', {
          token: SEC.admin,
          json: { input: 'x', flow: probeFlow(hooks, { cwd: '/', inheritEnv: true }) },
        }),
      );
      expect(error).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
      const problems = error.problems?.join('\n') ?? '';
      for (const key of Object.keys(hooks).filter((k) => k !== 'TAG'))
        expect(problems).toContain(`mcpServers.p.env: ${JSON.stringify(key)} may not be set`);
      expect(problems).not.toContain('"TAG"');
      expect(problems).toMatch(/mcpServers\.p\.cwd: /);
      expect(problems).toMatch(/mcpServers\.p\.inheritEnv: /);
    }
    const upload = await errorOf(
      await target.call('POST', '/v1/flows', {
        token: SEC.acmeAdmin,
        json: probeFlow({ NODE_OPTIONS: '-r x' }),
      }),
    );
    expect(upload).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
  });
});

describe('delegates of flows sent over HTTP', () => {
  const delegating = {
    id: 'parent',
    locale: 'en',
    model: 'openai:gpt-4.1',
    nodes: [{ id: 'main', delegates: ['trusted.yaml'] }],
  };

  it('are refused when the server has no --flows DIR (they would be any flow under its working folder)', async () => {
    for (const [method, path, json] of [
      ['POST', '/v1/runs', { input: 'x', flow: delegating }],
      ['POST', '/v1/flows', delegating],
    ] as const) {
      const error = await errorOf(await bare.call(method, path, { token: SEC.admin, json }));
      expect(error).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
      expect(error.problems?.join('\n')).toMatch(/delegates\[0\]: .*--flows DIR, and this server has none/);
    }
  });

  it('name flow files of --flows DIR when the server has one', async () => {
    const response = await target.call('POST', '/v1/flows', { token: SEC.admin, json: delegating });
    expect(response.status).toBe(201);
  });
});
