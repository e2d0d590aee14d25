import { Client } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { siteFlowDir, SITE_INPUT, SITE_REPLY, type SiteFlowDir } from '../helpers/flow-tools.js';
import { sqliteUrl } from '../runtime/helpers.js';
import { startServer, TOKENS, type TestServer } from './helpers.js';

/**
 * `/mcp` under `serve` (docs/mcp.md, "Serving flows as MCP tools"): the official SDK's client, over
 * Streamable HTTP with the API's bearer tokens, calls a flow with a gated write. Without elicitation
 * the call answers with the suspended run and its console URL; the write is approved through the
 * HTTP API as the console does, and run_status returns the reply. A client that takes elicitation,
 * with an operator's token, approves in the call itself. The demo server executes the write once.
 */

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function setup(): Promise<{ api: TestServer; site: SiteFlowDir }> {
  const site = siteFlowDir();
  open.push({ close: () => Promise.resolve(site.remove()) });
  const api = await startServer({ flowsDir: site.dir, runtime: { store: sqliteUrl() } });
  open.push({ close: () => api.stop() });
  return { api, site };
}

interface ClientOptions {
  elicit?: (message: string) => { action: 'accept' | 'decline' | 'cancel'; content?: Record<string, string> };
}

async function connect(api: TestServer, token: string, options: ClientOptions = {}): Promise<Client> {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    { capabilities: options.elicit ? { elicitation: { form: {} } } : {} },
  );
  const { elicit } = options;
  if (elicit)
    client.setRequestHandler('elicitation/create', (request) => {
      const params = request.params as { message: string };
      return Promise.resolve(elicit(params.message));
    });
  const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push({ close: () => client.close() });
  return client;
}

describe('/mcp: flows as MCP tools over Streamable HTTP', () => {
  it('lists each flow with its schemas and annotations, and run_status', async () => {
    const { api } = await setup();
    const client = await connect(api, TOKENS.viewer);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['acceptance-site', 'run_status']);
    const site = tools.find((t) => t.name === 'acceptance-site');
    expect(site?.inputSchema).toMatchObject({ type: 'object', required: ['text'] });
    expect(site?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(site?.outputSchema).toMatchObject({
      type: 'object',
      required: ['status', 'runId'],
      properties: { outputs: { properties: { create: { required: ['siteId'] } } } },
    });
  }, 60_000);

  it('without elicitation: suspended with the console URL; approved over the API; run_status gives the reply', async () => {
    const { api, site } = await setup();
    const client = await connect(api, TOKENS.operator);
    const first = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(first.isError).toBeFalsy();
    const suspended = first.structuredContent as {
      status: string;
      runId: string;
      pending: { tool: string; id: string };
    };
    expect(suspended).toMatchObject({ status: 'suspended', pending: { tool: 'web_site_create' } });
    const text = (first.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain(`waiting for approval of web_site_create at ${api.url}/runs/${suspended.runId}`);
    expect(site.writes()).toEqual([]);

    // A viewer's client cannot start a flow (as POST /v1/runs) …
    const viewer = await connect(api, TOKENS.viewer, {
      elicit: () => ({ action: 'accept', content: { decision: 'approve' } }),
    });
    const refused = await viewer.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('needs operator');
    // … nor approve through run_status, even when it takes elicitation: it only reads.
    const asViewer = await viewer.callTool({ name: 'run_status', arguments: { runId: suspended.runId } });
    expect(asViewer.structuredContent).toMatchObject({ status: 'suspended' });
    // Another tenant does not see the run at all.
    const other = await connect(api, TOKENS.tenantB);
    const hidden = await other.callTool({ name: 'run_status', arguments: { runId: suspended.runId } });
    expect(hidden.isError).toBe(true);
    expect(site.writes()).toEqual([]);

    // The console approves through the HTTP API.
    const approved = await api.call('POST', `/v1/runs/${suspended.runId}/approval`, {
      token: TOKENS.operator,
      json: { decision: 'approve', expect: suspended.pending.id },
    });
    expect(approved.status).toBe(200);
    const done = await client.callTool({
      name: 'run_status',
      arguments: { runId: suspended.runId, waitSeconds: 60 },
    });
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({
      status: 'completed',
      runId: suspended.runId,
      reply: SITE_REPLY,
      outputs: { create: { siteId: 'site_1' } },
    });
    expect((done.content as { text: string }[])[0]?.text).toBe(SITE_REPLY);
    expect(site.writes().map((w) => w.tool)).toEqual(['web_site_create']);
  }, 90_000);

  it("an operator's client that takes elicitation approves in the call and gets the reply", async () => {
    const { api, site } = await setup();
    const asked: string[] = [];
    const client = await connect(api, TOKENS.operator, {
      elicit: (message) => {
        asked.push(message);
        return { action: 'accept', content: { decision: 'approve', comment: 'ok' } };
      },
    });
    const result = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(result.isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('web_site_create');
    const done = result.structuredContent as { status: string; runId: string; reply: string };
    expect(done).toMatchObject({ status: 'completed', reply: SITE_REPLY });
    expect(site.writes().map((w) => w.tool)).toEqual(['web_site_create']);
    // The decision is recorded as the token's.
    const events = await api.call('GET', `/v1/runs/${done.runId}/events?follow=false`, {
      token: TOKENS.operator,
    });
    expect(await events.text()).toContain('olivia');
  }, 90_000);

  it('a rejection by elicitation leaves the write undone', async () => {
    const { api, site } = await setup();
    const client = await connect(api, TOKENS.operator, {
      elicit: () => ({ action: 'accept', content: { decision: 'reject' } }),
    });
    const result = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(result.structuredContent).not.toMatchObject({ status: 'suspended' });
    expect(site.writes()).toEqual([]);
  }, 90_000);

  it('refuses /mcp without a token, and bad arguments are a tool error', async () => {
    const { api } = await setup();
    const response = await api.call('POST', '/mcp', {
      json: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
    });
    expect(response.status).toBe(401);
    const client = await connect(api, TOKENS.operator);
    const bad = await client.callTool({ name: 'acceptance-site', arguments: { text: 42 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toContain('input schema');
  }, 60_000);
});
