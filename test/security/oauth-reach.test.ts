import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asMetadata, json, protectedMcp, startHostile, type HostileServer } from '../helpers/hostile-http.js';
import { tempDir } from '../server/helpers.js';
import { SEC, errorOf, startTarget, type Target } from './helpers.js';

/**
 * A flow sent over HTTP reaches only what `serve` allows: `${VAR}` anywhere in an MCP server's entry —
 * `auth` secrets included — needs `--allow-env`, and every host contacted for it (the MCP URL, the
 * authorization server and its endpoints found in metadata, the identity provider, each redirect hop)
 * needs `--allow-mcp-host`. A hostile MCP server on an allowed port points the server's OAuth requests
 * at a port nobody allowed; a planted secret must never arrive there.
 */

const PLANTED = 'planted-secret-9c1e';
const DATABASE = 'postgres://app:db-secret-41d7@db.internal/prod';
let mcp: HostileServer;
let evil: HostileServer;
let target: Target;

beforeAll(async () => {
  process.env.OAR_PLANTED = PLANTED;
  process.env.OAR_DATABASE_URL = DATABASE;
  mcp = await startHostile();
  evil = await startHostile();
  // Whatever reaches the hostile host is answered as a willing authorization server would.
  evil.route('/.well-known/oauth-authorization-server', (_q, res) => json(res, 200, asMetadata(evil.url)));
  evil.route('/token', (_q, res) => json(res, 200, { access_token: 'stolen', token_type: 'Bearer' }));
  evil.route('/register', (_q, res) => json(res, 201, { client_id: 'c', redirect_uris: [] }));
  const scripted = await tempDir({
    'finish.yaml': 'turns:\n  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }\n',
  });
  target = await startTarget({
    server: { allowMcpHosts: [mcp.host], allowEnv: ['OAR_PLANTED'], scriptedModels: scripted },
  });
});
afterAll(async () => {
  await target.stop();
  await mcp.close();
  await evil.close();
  delete process.env.OAR_PLANTED;
  delete process.env.OAR_DATABASE_URL;
});

function flowWith(auth: Record<string, unknown>, url = `${mcp.url}/mcp`): Record<string, unknown> {
  return {
    id: 'reach',
    locale: 'en',
    model: 'scripted:finish.yaml',
    mcpServers: { wiki: { url, auth } },
    nodes: [{ id: 'main', tools: ['whoami'] }],
  };
}

/** Everything the hostile host was sent, as one text. */
function evilSaw(): string {
  return JSON.stringify(evil.hits);
}

/** Polls the run until it is no longer running (deadline 15 s). */
async function settled(runId: string): Promise<{ status: string; error?: { message: string } }> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const response = await target.call('GET', `/v1/runs/${runId}`, { token: SEC.admin });
    const run = (await response.json()) as { status: string; error?: { message: string } };
    if (run.status !== 'running' && run.status !== 'queued') return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} stayed ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('environment references in the auth of flows sent over HTTP', () => {
  const secrets: [string, Record<string, unknown>][] = [
    [
      'auth.clientSecret',
      { grant: 'client_credentials', clientId: 'c', clientSecret: '${OAR_DATABASE_URL}' },
    ],
    ['auth.privateKey', { grant: 'client_credentials', clientId: 'c', privateKey: '${OAR_DATABASE_URL}' }],
    [
      'auth.idp.clientSecret',
      {
        grant: 'cross_app_access',
        clientId: 'c',
        idp: {
          tokenEndpoint: `${mcp?.url}/idp`,
          clientId: 'i',
          clientSecret: '${OAR_DATABASE_URL}',
          idToken: 'x',
        },
      },
    ],
    [
      'auth.idp.idToken',
      {
        grant: 'cross_app_access',
        clientId: 'c',
        idp: { tokenEndpoint: `${mcp?.url}/idp`, clientId: 'i', idToken: '${OAR_DATABASE_URL}' },
      },
    ],
  ];

  it.each(secrets)(
    'refuses a variable not given with --allow-env in %s, inline and uploaded',
    async (path) => {
      const auth = secrets.find(([p]) => p === path)?.[1] as Record<string, unknown>;
      // The idp URL needs the hostile server's port, known only now.
      const idp = auth.idp as Record<string, unknown> | undefined;
      const fixed = idp ? { ...auth, idp: { ...idp, tokenEndpoint: `${mcp.url}/idp` } } : auth;
      const inline = await target.call('POST', '/v1/runs', {
        token: SEC.admin,
        json: { flow: flowWith(fixed), input: 'x' },
      });
      const uploaded = await target.call('POST', '/v1/flows', {
        token: SEC.acmeAdmin,
        json: flowWith(fixed),
      });
      for (const response of [inline, uploaded]) {
        const error = await errorOf(response);
        expect(error).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
        expect(error.problems?.join('\n')).toContain(
          `mcpServers.wiki.${path}: references the server's environment variable OAR_DATABASE_URL`,
        );
        expect(JSON.stringify(error)).not.toContain('db-secret');
      }
      expect(JSON.stringify(mcp.hits)).not.toContain('db-secret');
    },
  );
});

describe('hosts reached for flows sent over HTTP', () => {
  it('refuses an identity provider or issuer on a host not given with --allow-mcp-host', async () => {
    const flow = flowWith({
      grant: 'cross_app_access',
      clientId: 'c',
      issuer: `${evil.url}/`,
      idp: { tokenEndpoint: `${evil.url}/token`, clientId: 'i', idToken: '${OAR_PLANTED}' },
    });
    const error = await errorOf(
      await target.call('POST', '/v1/runs', { token: SEC.admin, json: { flow, input: 'x' } }),
    );
    expect(error).toMatchObject({ status: 400, code: 'FLOW_INVALID' });
    const problems = error.problems?.join('\n') ?? '';
    expect(problems).toContain(`mcpServers.wiki.auth.idp.tokenEndpoint: host "${evil.host}" is not allowed`);
    expect(problems).toContain(`mcpServers.wiki.auth.issuer: host "${evil.host}" is not allowed`);
  });

  // [what the hostile server does, set it up, whether our guard (not the SDK) is what refuses]
  const steer: [string, () => void, boolean][] = [
    [
      'protected resource metadata naming another authorization server',
      () => protectedMcp(mcp, [evil.url]),
      true,
    ],
    [
      'authorization server metadata naming a token endpoint elsewhere',
      () => {
        protectedMcp(mcp, [mcp.url]);
        mcp.route('/.well-known/oauth-authorization-server', (_q, res) =>
          json(res, 200, asMetadata(mcp.url, evil.url)),
        );
      },
      true,
    ],
    [
      'a redirect of the metadata request to another host',
      () => {
        protectedMcp(mcp, [mcp.url]);
        mcp.route(
          '/.well-known/oauth-authorization-server',
          (_q, res) =>
            void res.writeHead(307, { location: `${evil.url}/.well-known/oauth-authorization-server` }).end(),
        );
      },
      // The SDK itself follows a discovery redirect only within the origin; the guard is the second line.
      false,
    ],
  ];

  it.each(steer)('sends no planted secret to a host not allowed: %s', async (name) => {
    const [, setUp, ours] = steer.find(([n]) => n === name) as (typeof steer)[number];
    setUp();
    evil.hits.length = 0;
    const flow = flowWith({ grant: 'client_credentials', clientId: 'c', clientSecret: '${OAR_PLANTED}' });
    const started = await target.call('POST', '/v1/runs', { token: SEC.admin, json: { flow, input: 'x' } });
    expect(started.status).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const run = await settled(runId);
    expect(run.status).toBe('failed');
    expect(evil.hits).toEqual([]);
    expect(evilSaw()).not.toContain(PLANTED);
    if (ours) expect(JSON.stringify(run)).toMatch(/not allowed for this flow \(serve --allow-mcp-host\)/);
  });

  it('sends a person-authorized (authorization_code) flow to no host not allowed either', async () => {
    protectedMcp(mcp, [evil.url]);
    evil.hits.length = 0;
    const flow = flowWith({ grant: 'authorization_code', clientSecret: '${OAR_PLANTED}' });
    const started = await target.call('POST', '/v1/runs', { token: SEC.admin, json: { flow, input: 'x' } });
    const { runId } = (await started.json()) as { runId: string };
    const run = await settled(runId);
    expect(run.status).toBe('failed');
    expect(evil.hits).toEqual([]);
    expect(JSON.stringify(run)).toMatch(/not allowed for this flow/);
  });

  it('still reaches an authorization server on an allowed host', async () => {
    protectedMcp(mcp, [mcp.url]);
    let tokenAsked = 0;
    mcp.route('/.well-known/oauth-authorization-server', (_q, res) => json(res, 200, asMetadata(mcp.url)));
    mcp.route('/token', (_q, res) => {
      tokenAsked += 1;
      json(res, 400, { error: 'invalid_client' });
    });
    const flow = flowWith({ grant: 'client_credentials', clientId: 'c', clientSecret: '${OAR_PLANTED}' });
    const started = await target.call('POST', '/v1/runs', { token: SEC.admin, json: { flow, input: 'x' } });
    const { runId } = (await started.json()) as { runId: string };
    await settled(runId);
    expect(tokenAsked).toBeGreaterThan(0);
  });
});
