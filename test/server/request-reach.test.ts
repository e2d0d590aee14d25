import { describe, expect, it } from 'vitest';
import { isStdioServer } from '../../src/domain/flow.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { ApiError } from '../../src/server/errors.js';
import { STRICT_POLICY, vetRequestFlow } from '../../src/server/request-policy.js';

/**
 * A flow sent over HTTP carries its confinement: `vetRequestFlow` sets each HTTP server's
 * `allowHosts` to the `--allow-mcp-host` list, replacing whatever the flow said, so that wherever the
 * run is executed every request made for the server is held to it.
 */

const policy: { -readonly [K in keyof typeof STRICT_POLICY]: (typeof STRICT_POLICY)[K] } = {
  ...STRICT_POLICY,
  allowMcpHosts: new Set(['mcp.example.com', '127.0.0.1:8931']),
};

async function vetted(server: Record<string, unknown>) {
  const loaded = await new FlowRegistry({ dir: null }).loadObject({
    id: 'reach',
    locale: 'en',
    model: 'openai:gpt-4.1',
    mcpServers: { wiki: server },
    nodes: [{ id: 'main' }],
  });
  vetRequestFlow(loaded.flow, policy);
  const entry = loaded.flow.mcpServers.wiki;
  if (!entry || isStdioServer(entry)) throw new Error('expected an HTTP server');
  return entry;
}

describe('vetRequestFlow and allowHosts', () => {
  it("sets allowHosts to the --allow-mcp-host list, replacing the flow's own", async () => {
    const entry = await vetted({ url: 'https://mcp.example.com/mcp', allowHosts: ['evil.example'] });
    expect(entry.allowHosts).toEqual(['127.0.0.1:8931', 'mcp.example.com']);
  });

  it('sets it on a server the flow gave none', async () => {
    const entry = await vetted({ url: 'http://127.0.0.1:8931/mcp' });
    expect(entry.allowHosts).toEqual(['127.0.0.1:8931', 'mcp.example.com']);
  });
});

describe('vetRequestFlow and the workload token of grant jwt_bearer', () => {
  /** The problems `vetRequestFlow` lists for the server entry, or [] when it passes. */
  async function problems(server: Record<string, unknown>): Promise<readonly string[]> {
    try {
      await vetted(server);
      return [];
    } catch (error) {
      if (error instanceof ApiError) return error.problems ?? [];
      throw error;
    }
  }

  const jwtBearer = { grant: 'jwt_bearer', clientId: 'workload' };

  it('refuses a token file: a flow sent over HTTP may not make the server read its files', async () => {
    const found = await problems({
      url: 'https://mcp.example.com/mcp',
      auth: { ...jwtBearer, assertionFile: '/var/run/secrets/tokens/mcp' },
    });
    expect(found).toEqual([
      'mcpServers.wiki.auth.assertionFile: flows sent over HTTP may not read files on the server; give the token as `assertion: ${VAR}` with a variable allowed by --allow-env',
    ]);
  });

  it('holds a token from the environment to --allow-env', async () => {
    const found = await problems({
      url: 'https://mcp.example.com/mcp',
      auth: { ...jwtBearer, assertion: '${WORKLOAD_JWT}' },
    });
    expect(found).toEqual([
      "mcpServers.wiki.auth.assertion: references the server's environment variable WORKLOAD_JWT as ${WORKLOAD_JWT}; flows sent over HTTP may reference only variables given with --allow-env",
    ]);
    policy.allowEnv = new Set(['WORKLOAD_JWT']);
    try {
      expect(
        await problems({
          url: 'https://mcp.example.com/mcp',
          auth: { ...jwtBearer, assertion: '${WORKLOAD_JWT}' },
        }),
      ).toEqual([]);
    } finally {
      policy.allowEnv = new Set();
    }
  });
});
