import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { siteFlowDir, SITE_INPUT, SITE_REPLY } from '../helpers/flow-tools.js';
import { sqliteUrl } from '../runtime/helpers.js';
import { startServer, TOKENS, type TestServer } from './helpers.js';

/**
 * `/mcp` speaks the 2026-07-28 revision too (docs/mcp.md, "Serving flows as MCP tools"): the official
 * SDK's client negotiating it (`server/discover`, no session) lists and calls flows. A request of that
 * revision cannot be asked anything back, so a held write answers with the suspended run and its
 * console URL even to a client that declares elicitation with an operator's token; the write is
 * approved over the API and `run_status` gives the reply.
 */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function modernClient(api: TestServer, token: string): Promise<Client> {
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'auto' } },
  );
  // Never asked: an answer here would approve the write.
  client.setRequestHandler('elicitation/create', () =>
    Promise.resolve({ action: 'accept', content: { decision: 'approve' } }),
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push({ close: () => client.close() });
  return client;
}

describe('/mcp over the 2026-07-28 revision', () => {
  it('lists and calls a flow; a held write waits for the console, then run_status gives the reply', async () => {
    const site = siteFlowDir();
    open.push({ close: () => Promise.resolve(site.remove()) });
    const api = await startServer({ flowsDir: site.dir, runtime: { store: sqliteUrl() } });
    open.push({ close: () => api.stop() });
    const client = await modernClient(api, TOKENS.operator);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['acceptance-site', 'run_status']);
    const first = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(first.isError).toBeFalsy();
    const suspended = first.structuredContent as { status: string; runId: string; pending: { id: string } };
    expect(suspended).toMatchObject({ status: 'suspended', pending: { tool: 'web_site_create' } });
    const text = (first.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain(`waiting for approval of web_site_create at ${api.url}/runs/${suspended.runId}`);
    expect(site.writes()).toEqual([]);

    const approved = await api.call('POST', `/v1/runs/${suspended.runId}/approval`, {
      token: TOKENS.operator,
      json: { decision: 'approve', expect: suspended.pending.id },
    });
    expect(approved.status).toBe(200);
    const done = await client.callTool({
      name: 'run_status',
      arguments: { runId: suspended.runId, waitSeconds: 60 },
    });
    expect(done.structuredContent).toMatchObject({ status: 'completed', reply: SITE_REPLY });
    expect(site.writes().map((w) => w.tool)).toEqual(['web_site_create']);
  }, 90_000);

  it("refuses a viewer's call to start a flow, as the 2025 revisions do", async () => {
    const site = siteFlowDir();
    open.push({ close: () => Promise.resolve(site.remove()) });
    const api = await startServer({ flowsDir: site.dir, runtime: { store: sqliteUrl() } });
    open.push({ close: () => api.stop() });
    const viewer = await modernClient(api, TOKENS.viewer);
    const refused = await viewer.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('needs operator');
    expect(site.writes()).toEqual([]);
  }, 60_000);
});
