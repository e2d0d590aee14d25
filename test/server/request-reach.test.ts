import { describe, expect, it } from 'vitest';
import { isStdioServer } from '../../src/domain/flow.js';
import { FlowRegistry } from '../../src/server/flows.js';
import { STRICT_POLICY, vetRequestFlow } from '../../src/server/request-policy.js';

/**
 * A flow sent over HTTP carries its confinement: `vetRequestFlow` sets each HTTP server's
 * `allowHosts` to the `--allow-mcp-host` list, replacing whatever the flow said, so that wherever the
 * run is executed every request made for the server is held to it.
 */

const policy = { ...STRICT_POLICY, allowMcpHosts: new Set(['mcp.example.com', '127.0.0.1:8931']) };

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
