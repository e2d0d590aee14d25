import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, loadFlow, type Runtime } from '../../src/index.js';
import type { StoredEvent } from '../../src/store/store.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { call, recordingModel, sqliteUrl } from '../runtime/helpers.js';

/**
 * `notifications/tools/list_changed` within one run (docs/mcp.md, "Sessions and tool list changes"):
 * a real stdio server adds a tool while a call runs and says so; the model is offered the new tool
 * from its next turn and calls it in the same run.
 */

const LIVE = join(REPO_ROOT, 'test/mcp/fixtures/live-server.mjs');

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

describe('a tool added through list_changed', () => {
  it('is offered to the model from its next turn and callable in the same run', async () => {
    const runtime = createRuntime({ store: sqliteUrl(), logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow({
      id: 'grows',
      locale: 'en',
      mcpServers: { live: { command: process.execPath, args: [LIVE] } },
      tools: { grow: { write: false }, added: { write: false } },
      nodes: [{ id: 'work', tools: ['grow', 'added'] }],
    });
    const model = recordingModel(
      { calls: [call.tool('grow')] },
      { calls: [call.tool('added')] },
      { calls: [call.finish()] },
    );
    const summary = await runtime.start(flow, { input: { text: 'grow, then use the new tool' }, model });
    expect(summary.status).toBe('completed');
    const offered = model.requests.map((r) => r.tools.map((t) => t.name));
    expect(offered[0]).toContain('grow');
    expect(offered[0]).not.toContain('added');
    expect(offered[1]).toContain('added');
    const events: StoredEvent[] = [];
    for await (const event of runtime.events(summary.runId, { follow: false })) events.push(event);
    const added = events.find((e) => e.type === 'tool.invoked' && e.tool === 'added');
    expect(added).toMatchObject({ outcome: 'SUCCESS', executed: true, result: 'the added tool ran' });
  }, 30_000);
});
