import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, FlowError, loadFlow, type Runtime } from '../../src/index.js';
import type { StoredEvent } from '../../src/store/store.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { recordingModel, sqliteUrl } from '../runtime/helpers.js';

/** The official reference server: static documents, two templates, a text and a blob one. */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TEXT_TEMPLATE = 'demo://resource/dynamic/text/{resourceId}';
const BLOB_7 = 'demo://resource/dynamic/blob/7';
const FEATURES = 'demo://resource/static/document/features.md';
/** A server without resources (test/fixtures/mcp/log-server.mjs). */
const LOG_SERVER = join(REPO_ROOT, 'test/fixtures/mcp/log-server.mjs');

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };

async function eventsOf(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const e of runtime.events(runId, { follow: false })) events.push(e);
  return events;
}

describe('node resources: builtin_resource_list and builtin_resource_read (server-everything)', () => {
  it('lists resources and templates as evidence, reads a listed one and one from a template', async () => {
    const runtime = createRuntime({ store: sqliteUrl(), logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow({
      id: 'browse',
      locale: 'en',
      mcpServers: { everything },
      nodes: [{ id: 'look', resources: ['everything'] }],
    });
    const model = recordingModel(
      { calls: [{ tool: 'builtin_resource_list', args: {} }] },
      { calls: [{ tool: 'builtin_resource_read', args: { uri: FEATURES } }] },
      { calls: [{ tool: 'builtin_resource_read', args: { uri: BLOB_7 } }] },
      { calls: [{ tool: 'builtin_resource_list', args: { server: 'crm' } }] },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
    );
    const summary = await runtime.start(flow, { input: { text: 'go' }, model });
    expect(summary.status).toBe('completed');
    // Both builtins are in the node's catalog from its first turn.
    const names = model.requests[0]?.tools.map((t) => t.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(['builtin_resource_list', 'builtin_resource_read']));

    const evidence = await runtime.evidence(summary.runId);
    const listing = evidence[0]?.payload as {
      servers: {
        server: string;
        resources: { uri: string; name: string; mimeType?: string }[];
        templates: { uriTemplate: string }[];
      }[];
    };
    expect(evidence[0]).toMatchObject({ id: 'ev_1', tool: 'builtin_resource_list', outcome: 'SUCCESS' });
    expect(listing.servers[0]?.server).toBe('everything');
    expect(listing.servers[0]?.resources.length).toBeGreaterThan(0);
    expect(listing.servers[0]?.resources).toContainEqual(
      expect.objectContaining({ uri: FEATURES, name: 'features.md', mimeType: 'text/markdown' }),
    );
    expect(listing.servers[0]?.templates.map((t) => t.uriTemplate)).toContain(TEXT_TEMPLATE);

    expect(evidence[1]).toMatchObject({ tool: 'builtin_resource_read', args: { uri: FEATURES } });
    const text = evidence[1]?.payload as { contents: { resource: { text?: string } }[] };
    expect(text.contents[0]?.resource.text).toContain('#');

    // A blob from a template: its size, never its base64.
    const blob = evidence[2]?.payload as { contents: { resource: Record<string, unknown> }[] };
    expect(evidence[2]).toMatchObject({ tool: 'builtin_resource_read', args: { uri: BLOB_7 } });
    expect(blob.contents[0]?.resource).toMatchObject({ uri: BLOB_7 });
    expect(blob.contents[0]?.resource.blob).toBeUndefined();
    expect(blob.contents[0]?.resource.bytes).toBeGreaterThan(0);

    const events = await eventsOf(runtime, summary.runId);
    const refused = events.find(
      (e) => e.type === 'tool.invoked' && (e.args as { server?: string } | undefined)?.server === 'crm',
    );
    expect(refused).toMatchObject({ outcome: 'REJECTED', errorCode: 'RESOURCE_SERVER_UNKNOWN' });
    expect(String(refused?.message)).toContain('everything');
  }, 30_000);
});

describe('node resources: several servers', () => {
  it('a read without `server` is refused with the node’s servers as the next step; with it, it is read', async () => {
    const runtime = createRuntime({ store: sqliteUrl(), logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow({
      id: 'browse',
      locale: 'en',
      mcpServers: { docs: everything, logs: { command: process.execPath, args: [LOG_SERVER] } },
      nodes: [{ id: 'look', resources: ['logs', 'docs'] }],
    });
    const model = recordingModel(
      { calls: [{ tool: 'builtin_resource_read', args: { uri: FEATURES } }] },
      { calls: [{ tool: 'builtin_resource_read', args: { uri: FEATURES, server: 'docs' } }] },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
    );
    const summary = await runtime.start(flow, { input: { text: 'go' }, model });
    expect(summary.status).toBe('completed');
    const reads = (await eventsOf(runtime, summary.runId)).filter((e) => e.type === 'tool.invoked');
    expect(reads[0]).toMatchObject({ outcome: 'REJECTED', errorCode: 'RESOURCE_SERVER_UNKNOWN' });
    expect(String(reads[0]?.message)).toContain('logs, docs');
    expect(reads[1]).toMatchObject({ outcome: 'SUCCESS', evidenceId: 'ev_1' });
    const evidence = await runtime.evidence(summary.runId);
    expect(evidence[0]).toMatchObject({ args: { uri: FEATURES, server: 'docs' } });
  }, 30_000);
});

describe('node resources at load', () => {
  it('refuses a server the flow does not declare, and one listed twice, naming the place', async () => {
    const bad = loadFlow({
      id: 'browse',
      locale: 'en',
      mcpServers: { everything },
      nodes: [{ id: 'look', resources: ['everythin', 'everything', 'everything'] }],
    });
    await expect(bad).rejects.toThrow(FlowError);
    const error = (await bad.then(
      () => undefined,
      (e: unknown) => e,
    )) as FlowError;
    expect(error.message).toContain(
      '"everythin" is not an MCP server of this flow (did you mean "everything"?)',
    );
    expect(error.message).toContain('nodes[0].resources[2]');
    expect(error.message).toContain('server "everything" is listed twice');
  });
});
