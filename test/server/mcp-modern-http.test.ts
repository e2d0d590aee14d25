import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type ElicitResult } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectSiteApprovedInCall,
  siteFlowDir,
  SITE_INPUT,
  SITE_REPLY,
  type SiteFlowDir,
} from '../helpers/flow-tools.js';
import { sqliteUrl } from '../runtime/helpers.js';
import { startServer, TOKENS, type TestServer } from './helpers.js';

/**
 * `/mcp` speaks the 2026-07-28 revision too (docs/mcp.md, "Serving flows as MCP tools"): the official
 * SDK's client negotiating it (`server/discover`, no session) lists and calls flows. A request of that
 * revision cannot be asked anything back by a server-to-client request: a held write is asked in-band
 * (`input_required`, answered by the client's elicitation handler and the retried call) of a client
 * that declared elicitation and whose token may approve; any other caller gets the suspended run and
 * its console URL. The request state is signed and answered once: tampered or replayed, it decides
 * nothing.
 */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

interface ModernOptions {
  /** The client's elicitation handler (absent: the client declares no elicitation). */
  elicit?: (message: string, requestedSchema: unknown) => ElicitResult;
  /** Manual input_required rounds (the client hands them back instead of answering). */
  manual?: boolean;
}

async function modernClient(api: TestServer, token: string, options: ModernOptions = {}): Promise<Client> {
  const client = new Client(
    { name: 'modern-client', version: '1.0.0' },
    {
      capabilities: options.elicit || options.manual ? { elicitation: { form: {} } } : {},
      versionNegotiation: { mode: 'auto' },
      ...(options.manual ? { inputRequired: { autoFulfill: false } } : {}),
    },
  );
  const elicit = options.elicit;
  if (elicit)
    client.setRequestHandler('elicitation/create', (request) =>
      Promise.resolve(
        elicit(
          (request.params as { message: string }).message,
          (request.params as { requestedSchema?: unknown }).requestedSchema,
        ),
      ),
    );
  const transport = new StreamableHTTPClientTransport(new URL(`${api.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  open.push({ close: () => client.close() });
  return client;
}

async function siteServer(): Promise<{ site: SiteFlowDir; api: TestServer }> {
  const site = siteFlowDir();
  open.push({ close: () => Promise.resolve(site.remove()) });
  const api = await startServer({ flowsDir: site.dir, runtime: { store: sqliteUrl() } });
  open.push({ close: () => api.stop() });
  return { site, api };
}

/** A manual round's `input_required` result (what the SDK hands back with allowInputRequired). */
interface Asked {
  resultType: 'input_required';
  inputRequests: Record<string, { method: string; params: { message: string } }>;
  requestState: string;
}

async function callManual(client: Client, params: Record<string, unknown>): Promise<unknown> {
  return client.callTool(params as Parameters<Client['callTool']>[0], { allowInputRequired: true });
}

describe('/mcp over the 2026-07-28 revision', () => {
  it('asks an operator client that takes elicitation for the approval in-band and returns the reply', async () => {
    const { site, api } = await siteServer();
    const asked: string[] = [];
    const client = await modernClient(api, TOKENS.operator, {
      elicit: (message) => {
        asked.push(message);
        return { action: 'accept', content: { decision: 'approve', comment: 'ok' } };
      },
    });
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['acceptance-site', 'run_status']);

    await expectSiteApprovedInCall(client, asked, site);
  }, 90_000);

  it('asks a follow-up question with its options through input_required and goes on with the answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-modern-ask-'));
    open.push({ close: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })) });
    writeFileSync(
      join(dir, 'ask.yaml'),
      'id: ask\nversion: 1\nlocale: en\nmodel: scripted:./turns.yaml\nnodes:\n  - id: main\n    instructions: Ask which printer.\n',
    );
    writeFileSync(
      join(dir, 'turns.yaml'),
      [
        'turns:',
        '  - calls: [{ tool: builtin_node_follow_up, args: { question: Which printer?, options: [office, lab] } }]',
        '  - calls: [{ tool: builtin_node_finish, args: { summary: printing } }]',
        '',
      ].join('\n'),
    );
    const api = await startServer({ flowsDir: dir, runtime: { store: sqliteUrl() } });
    open.push({ close: () => api.stop() });
    const forms: unknown[] = [];
    const client = await modernClient(api, TOKENS.operator, {
      elicit: (message, schema) => {
        forms.push({ message, schema });
        return { action: 'accept', content: { answer: 'lab' } };
      },
    });
    const result = await client.callTool({ name: 'ask', arguments: { text: 'print it' } });
    expect(forms).toEqual([
      {
        message: 'Which printer?',
        schema: expect.objectContaining({
          properties: { answer: { type: 'string', title: 'Answer', enum: ['office', 'lab'] } },
        }),
      },
    ]);
    expect(result.structuredContent).toMatchObject({ status: 'completed', reply: 'printing' });
  }, 90_000);

  it('a reject through input_required keeps the write from running', async () => {
    const { site, api } = await siteServer();
    const client = await modernClient(api, TOKENS.operator, {
      elicit: () => ({ action: 'accept', content: { decision: 'reject', comment: 'no' } }),
    });
    const result = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    // The decision was applied: the run went on past the gate (its script has no turn after a reject).
    expect((result.structuredContent as { status: string }).status).not.toBe('suspended');
    expect(site.writes()).toEqual([]);
  }, 90_000);

  it('without elicitation a held write waits for the console, then run_status gives the reply', async () => {
    const { site, api } = await siteServer();
    const client = await modernClient(api, TOKENS.operator);
    const first = await client.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(first.isError).toBeFalsy();
    const suspended = first.structuredContent as { status: string; runId: string; pending: { id: string } };
    expect(suspended).toMatchObject({ status: 'suspended', pending: { tool: 'web_site_create' } });
    const text = (first.content as { text: string }[])[0]?.text ?? '';
    expect(text).toContain(`waiting for approval of web_site_create at ${api.url}/runs/${suspended.runId}`);
    expect(site.writes()).toEqual([]);

    // A viewer whose client takes elicitation is not asked: it may not approve.
    const viewerAsked: string[] = [];
    const viewer = await modernClient(api, TOKENS.viewer, {
      elicit: (message) => {
        viewerAsked.push(message);
        return { action: 'accept', content: { decision: 'approve' } };
      },
    });
    const seen = await viewer.callTool({
      name: 'run_status',
      arguments: { runId: suspended.runId, waitSeconds: 0 },
    });
    expect(seen.structuredContent).toMatchObject({ status: 'suspended', runId: suspended.runId });
    expect(viewerAsked).toEqual([]);
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

  it('refuses a tampered, replayed or borrowed request state; only the real answer approves, once', async () => {
    const { site, api } = await siteServer();
    const client = await modernClient(api, TOKENS.operator, { manual: true });
    const call = { name: 'acceptance-site', arguments: { text: SITE_INPUT } };
    const first = (await callManual(client, call)) as Asked;
    expect(first.resultType).toBe('input_required');
    const [key, request] = Object.entries(first.inputRequests)[0] ?? [];
    expect(request?.method).toBe('elicitation/create');
    expect(request?.params.message).toContain('web_site_create');
    const approve = { [key ?? '']: { action: 'accept', content: { decision: 'approve' } } };

    // Tampered: refused by the signature check (a protocol error), nothing approved.
    const payload = first.requestState.split('.');
    const body = JSON.parse(Buffer.from(payload[1] ?? '', 'base64url').toString()) as {
      p: { runId: string };
    };
    body.p.runId = 'run_other';
    const forged = [payload[0], Buffer.from(JSON.stringify(body)).toString('base64url'), payload[2]].join(
      '.',
    );
    await expect(
      callManual(client, { ...call, inputResponses: approve, requestState: forged }),
    ).rejects.toThrow(/Invalid or expired requestState/);
    await expect(
      callManual(client, { ...call, inputResponses: approve, requestState: `${first.requestState}x` }),
    ).rejects.toThrow(/Invalid or expired requestState/);
    // Borrowed: another operator's token (another caller) and another tool.
    const other = await modernClient(api, TOKENS.admin, { manual: true });
    const borrowed = (await callManual(other, {
      ...call,
      inputResponses: approve,
      requestState: first.requestState,
    })) as {
      isError: boolean;
      content: { text: string }[];
    };
    expect(borrowed.isError).toBe(true);
    expect(borrowed.content[0]?.text).toContain('another caller');
    const elsewhere = (await callManual(client, {
      name: 'run_status',
      arguments: { runId: 'x' },
      inputResponses: approve,
      requestState: first.requestState,
    })) as { isError: boolean; content: { text: string }[] };
    expect(elsewhere.isError).toBe(true);
    expect(elsewhere.content[0]?.text).toContain('issued for tool "acceptance-site"');
    expect(site.writes()).toEqual([]);

    // The real answer approves; replaying it is refused and runs nothing twice.
    const done = (await callManual(client, {
      ...call,
      inputResponses: approve,
      requestState: first.requestState,
    })) as {
      structuredContent: unknown;
    };
    expect(done.structuredContent).toMatchObject({ status: 'completed', reply: SITE_REPLY });
    const replayed = (await callManual(client, {
      ...call,
      inputResponses: approve,
      requestState: first.requestState,
    })) as { isError: boolean; content: { text: string }[] };
    expect(replayed.isError).toBe(true);
    expect(replayed.content[0]?.text).toContain('already given');
    expect(site.writes().map((w) => w.tool)).toEqual(['web_site_create']);
  }, 90_000);

  it("refuses a viewer's call to start a flow, as the 2025 revisions do", async () => {
    const { site, api } = await siteServer();
    const viewer = await modernClient(api, TOKENS.viewer);
    const refused = await viewer.callTool({ name: 'acceptance-site', arguments: { text: SITE_INPUT } });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain('needs operator');
    expect(site.writes()).toEqual([]);
  }, 60_000);
});
