import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, NODE, ensureBuilt } from '../acceptance/build.js';
import {
  expectSiteApprovedInCall,
  siteFlowDir,
  SITE_INPUT,
  SITE_REPLY,
  type SiteFlowDir,
} from '../helpers/flow-tools.js';
import { sqliteUrl } from '../runtime/helpers.js';
import { startServer, TOKENS } from '../server/helpers.js';

/**
 * `agent-runtime mcp serve --flows DIR` (docs/mcp.md, "Serving flows as MCP tools"): the built CLI as
 * a stdio MCP server, driven by the official SDK's client. A flow with a gated write suspends for a
 * client without elicitation, is approved through the HTTP API of a `serve` on the same store (as
 * the console does) and run_status returns the reply; a client that takes elicitation approves in
 * the call (over stdio the local user is the operator).
 */

beforeAll(() => ensureBuilt(), 240_000);

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

function setup(): { site: SiteFlowDir; db: string } {
  const site = siteFlowDir();
  open.push({ close: () => Promise.resolve(site.remove()) });
  return { site, db: sqliteUrl() };
}

async function connect(
  site: SiteFlowDir,
  db: string,
  elicit?: (message: string) => Record<string, string>,
  modern: false | 'auto' | 'manual' = false,
): Promise<Client> {
  const client = new Client(
    { name: 'test-client', version: '1.0.0' },
    {
      capabilities: elicit || modern === 'manual' ? { elicitation: { form: {} } } : {},
      // The 2026-07-28 revision (no server-to-client requests: the question comes as input_required).
      ...(modern ? { versionNegotiation: { mode: 'auto' as const } } : {}),
      // Manual rounds: the client hands input_required back instead of answering it.
      ...(modern === 'manual' ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  if (elicit)
    client.setRequestHandler('elicitation/create', (request) =>
      Promise.resolve({
        action: 'accept' as const,
        content: elicit((request.params as { message: string }).message),
      }),
    );
  const transport = new StdioClientTransport({
    command: NODE,
    args: [CLI, 'mcp', 'serve', '--flows', site.dir, '--db', db, '--console-url', 'http://console.test'],
    stderr: 'ignore',
  });
  await client.connect(transport);
  open.push({ close: () => client.close() });
  return client;
}

describe('mcp serve --flows DIR (stdio)', () => {
  it('offers a prompt per flow and its runs as resources, with caching hints on 2026-07-28', async () => {
    const { site, db } = setup();
    const client = await connect(site, db, undefined, 'auto');
    const prompts = await client.listPrompts();
    expect(prompts.prompts.map((p) => p.name)).toEqual(['acceptance-site']);
    const call = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    const { runId } = call.structuredContent as { runId: string };
    const listed = await client.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual([`agent-runtime://runs/${runId}`]);
    expect(listed).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    const read = await client.readResource({ uri: `agent-runtime://runs/${runId}` });
    expect(read).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({
      runId,
      status: 'suspended',
    });
    const templates = await client.listResourceTemplates();
    expect(templates).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'private' });
  }, 90_000);

  it('suspends without elicitation; approved over the HTTP API, run_status returns the reply', async () => {
    const { site, db } = setup();
    const client = await connect(site, db);
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === 'acceptance-site');
    expect(tool?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });

    const first = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(first.isError).toBeFalsy();
    const suspended = first.structuredContent as { runId: string; pending: { id: string } };
    expect(first.structuredContent).toMatchObject({
      status: 'suspended',
      pending: { tool: 'web_site_create' },
      consoleUrl: `http://console.test/runs/${suspended.runId}`,
    });
    expect(site.writes()).toEqual([]);

    // The console of a `serve` on the same store approves.
    const api = await startServer({ runtime: { store: db } });
    open.push({ close: () => api.stop() });
    const approved = await api.call('POST', `/v1/runs/${suspended.runId}/approval`, {
      token: TOKENS.operator,
      json: { decision: 'approve', expect: suspended.pending.id },
    });
    expect(approved.status).toBe(200);

    const done = await client.callTool({
      name: 'run_status',
      arguments: { runId: suspended.runId, waitSeconds: 60 },
    });
    expect(done.structuredContent).toMatchObject({
      status: 'completed',
      reply: SITE_REPLY,
      outputs: { create: { siteId: 'site_1' } },
    });
    expect(site.writes().map((w) => w.tool)).toEqual(['web_site_create']);
  }, 120_000);

  it('a client that takes elicitation approves in the call and gets the reply', async () => {
    const { site, db } = setup();
    const asked: string[] = [];
    const client = await connect(site, db, (message) => {
      asked.push(message);
      return { decision: 'approve' };
    });
    await expectSiteApprovedInCall(client, asked, site);
  }, 120_000);

  it('a 2026-07-28 client that takes elicitation is asked through input_required and gets the reply', async () => {
    const { site, db } = setup();
    const asked: string[] = [];
    const client = await connect(
      site,
      db,
      (message) => {
        asked.push(message);
        return { decision: 'approve' };
      },
      'auto',
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await expectSiteApprovedInCall(client, asked, site);
  }, 120_000);

  it('a 2026-07-28 client without elicitation gets the suspended run', async () => {
    const { site, db } = setup();
    const client = await connect(site, db, undefined, 'auto');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const first = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(first.structuredContent).toMatchObject({
      status: 'suspended',
      pending: { tool: 'web_site_create' },
    });
    expect(site.writes()).toEqual([]);
  }, 120_000);

  it('refuses a tampered or replayed request state over stdio; the real answer approves once', async () => {
    const { site, db } = setup();
    const client = await connect(site, db, undefined, 'manual');
    const manual = (params: Record<string, unknown>) =>
      client.callTool(params as Parameters<Client['callTool']>[0], { allowInputRequired: true }) as Promise<
        Record<string, unknown>
      >;
    const call = { name: 'acceptance-site', arguments: { text: SITE_INPUT } };
    const first = await manual(call);
    expect(first.resultType).toBe('input_required');
    const state = first.requestState as string;
    const key = Object.keys(first.inputRequests as object)[0] ?? '';
    const approve = { [key]: { action: 'accept', content: { decision: 'approve' } } };
    await expect(manual({ ...call, inputResponses: approve, requestState: `${state}x` })).rejects.toThrow(
      /Invalid or expired requestState/,
    );
    expect(site.writes()).toEqual([]);
    const done = await manual({ ...call, inputResponses: approve, requestState: state });
    expect(done.structuredContent).toMatchObject({ status: 'completed', reply: SITE_REPLY });
    const replayed = await manual({ ...call, inputResponses: approve, requestState: state });
    expect(replayed.isError).toBe(true);
    expect(JSON.stringify(replayed.content)).toContain('already given');
    expect(site.writes().map((w) => w.tool)).toEqual(['web_site_create']);
  }, 120_000);

  it('without --flows it is a usage error (exit 2)', () => {
    const r = spawnSync(NODE, [CLI, 'mcp', 'serve'], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('give --flows DIR');
    const bad = spawnSync(NODE, [CLI, 'mcp', 'serve', '--flows', '.', '--console-url', 'ftp://x'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--console-url');
  }, 60_000);
});
