import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadFlow, type Runtime } from '../../src/index.js';
import type { StoredEvent } from '../../src/store/store.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { recordingModel, sqliteUrl } from '../runtime/helpers.js';

/** The official reference server: `get-resource-links` returns resource links it can read. */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const TEXT_2 = 'demo://resource/dynamic/text/2';

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

describe('builtin_resource_read (resource links, server-everything)', () => {
  it('is offered once a result linked a resource, reads it as evidence, and refuses an unlinked uri', async () => {
    const runtime = createRuntime({ store: sqliteUrl(), logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow({
      id: 'links',
      locale: 'en',
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
      nodes: [{ id: 'look', tools: ['get-resource-links'] }],
    });
    const model = recordingModel(
      { calls: [{ tool: 'get-resource-links', args: { count: 2 } }] },
      { calls: [{ tool: 'builtin_resource_read', args: { uri: 'file:///etc/passwd' } }] },
      { calls: [{ tool: 'builtin_resource_read', args: { uri: TEXT_2 } }] },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
    );
    const summary = await runtime.start(flow, { input: { text: 'go' }, model });
    expect(summary.status).toBe('completed');
    const offered = model.requests.map((r) => r.tools.some((t) => t.name === 'builtin_resource_read'));
    expect(offered).toEqual([false, true, true, true]);

    const events: StoredEvent[] = [];
    for await (const e of runtime.events(summary.runId, { follow: false })) events.push(e);
    const reads = events.filter((e) => e.type === 'tool.invoked' && e.tool === 'builtin_resource_read');
    expect(reads[0]).toMatchObject({ outcome: 'REJECTED', errorCode: 'RESOURCE_NOT_LINKED' });
    expect(String(reads[0]?.message)).toContain(TEXT_2);
    expect(reads[1]).toMatchObject({ outcome: 'SUCCESS', evidenceId: 'ev_2' });

    const evidence = await runtime.evidence(summary.runId);
    expect(evidence[1]).toMatchObject({ id: 'ev_2', tool: 'builtin_resource_read', args: { uri: TEXT_2 } });
    const payload = evidence[1]?.payload as { uri: string; contents: { resource: { text?: string } }[] };
    expect(payload.uri).toBe(TEXT_2);
    expect(payload.contents[0]?.resource.text).toMatch(/^Resource 2: This is a plaintext resource/);
  }, 30_000);
});
