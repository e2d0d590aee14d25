import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { siteFlowDir, SITE_INPUT } from '../helpers/flow-tools.js';
import { sqliteUrl } from '../runtime/helpers.js';
import { startServer, TOKENS, type TestServer } from './helpers.js';

/**
 * `/mcp`'s prompts and resources (docs/mcp.md, "Prompts and resources"), with the official SDK's
 * client: a prompt per flow, and the caller's runs as `agent-runtime://runs/{runId}` — listed and
 * read within the caller's tenant only (a viewer may read), unknown to another tenant.
 */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setup(): Promise<TestServer> {
  const site = siteFlowDir();
  open.push({ close: () => Promise.resolve(site.remove()) });
  const api = await startServer({ flowsDir: site.dir, runtime: { store: sqliteUrl() } });
  open.push({ close: () => api.stop() });
  return api;
}

async function connect(api: TestServer, token: string): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push({ close: () => client.close() });
  return client;
}

describe('/mcp: prompts and resources', () => {
  it('offers a prompt per flow that tells the model to call its tool', async () => {
    const api = await setup();
    const client = await connect(api, TOKENS.viewer);
    expect(client.getServerCapabilities()).toMatchObject({ prompts: {}, resources: {} });
    const { prompts } = await client.listPrompts();
    expect(prompts).toEqual([
      expect.objectContaining({
        name: 'acceptance-site',
        title: 'Run acceptance-site',
        arguments: [expect.objectContaining({ name: 'text', required: true })],
      }),
    ]);
    const prompt = await client.getPrompt({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    const text = (prompt.messages[0]?.content as { text: string }).text;
    expect(text).toContain('Call the tool acceptance-site with these arguments:');
    expect(text).toContain(JSON.stringify({ text: SITE_INPUT }));
    await expect(client.getPrompt({ name: 'acceptance-site', arguments: {} })).rejects.toThrow(
      'prompt acceptance-site needs the argument(s) text',
    );
    await expect(client.getPrompt({ name: 'nope' })).rejects.toThrow('unknown prompt "nope"');
  }, 60_000);

  it("lists and reads the caller's runs within its tenant only", async () => {
    const api = await setup();
    const { resourceTemplates } = await (await connect(api, TOKENS.viewer)).listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['agent-runtime://runs/{runId}']);

    const alice = await connect(api, TOKENS.tenantA);
    const call = await alice.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    const { runId } = call.structuredContent as { runId: string };
    const uri = `agent-runtime://runs/${runId}`;

    // A viewer of the same tenant lists and reads it.
    const ann = await connect(api, TOKENS.viewerA);
    const { resources } = await ann.listResources();
    expect(resources).toEqual([expect.objectContaining({ uri, mimeType: 'application/json' })]);
    const read = await ann.readResource({ uri });
    const content = read.contents[0] as { text: string; mimeType: string };
    expect(content.mimeType).toBe('application/json');
    expect(JSON.parse(content.text)).toMatchObject({
      runId,
      status: 'suspended',
      suspension: { kind: 'APPROVAL' },
    });

    // Another tenant neither lists nor reads it.
    const bob = await connect(api, TOKENS.tenantB);
    expect((await bob.listResources()).resources).toEqual([]);
    await expect(bob.readResource({ uri })).rejects.toThrow(`unknown run "${runId}"`);
    await expect(bob.readResource({ uri: 'https://example.com/x' })).rejects.toThrow(
      'the resources are agent-runtime://runs/{runId}',
    );
  }, 60_000);
});
