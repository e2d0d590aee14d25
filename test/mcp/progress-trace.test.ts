import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRuntime, defineTool, loadFlow, scriptedModel, type Runtime } from '../../src/index.js';
import type { StoredEvent } from '../../src/store/store.js';
import { PROGRESS_MAX_EVENTS } from '../../src/engine/progress-trace.js';
import { REPO_ROOT } from '../helpers/demo-server.js';
import { sqliteUrl } from '../runtime/helpers.js';

/** The official reference server; `trigger-long-running-operation` reports progress at each step. */
const EVERYTHING = join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const call = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });
const finish = call('builtin_node_finish', { summary: 'done' });

const runtimes: Runtime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

async function storedEvents(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(runId, { follow: false })) events.push(event);
  return events;
}

describe('tool.progress (progress reports in the trace)', () => {
  it("server-everything's long-running tool completes under a short toolTimeoutMs, its progress traced live", async () => {
    const runtime = createRuntime({ store: sqliteUrl(), logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow({
      id: 'long',
      locale: 'en',
      // 4 s of work in 8 steps: twice the 2 s timeout, which each report (every 500 ms) starts afresh;
      // the timeout is four report intervals, so a busy machine delaying one report does not end the call.
      limits: { toolTimeoutMs: 2_000, toolTotalTimeoutMs: 20_000 },
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
      nodes: [{ id: 'work', tools: ['trigger-long-running-operation'] }],
    });
    const model = scriptedModel({
      turns: [
        { calls: [call('trigger-long-running-operation', { duration: 4, steps: 8 })] },
        { calls: [finish] },
      ],
    });
    let runId = '';
    const started = runtime.start(flow, {
      input: { text: 'go' },
      model,
      onAccepted: (s) => (runId = s.runId),
    });
    // A watcher sees the first report while the call still runs: no tool.invoked is stored yet.
    const deadline = Date.now() + 10_000;
    let firstSeen: StoredEvent | undefined;
    while (!firstSeen && Date.now() < deadline) {
      if (runId !== '')
        firstSeen = (await storedEvents(runtime, runId)).find((e) => e.type === 'tool.progress');
      if (!firstSeen) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(firstSeen).toMatchObject({ tool: 'trigger-long-running-operation', progress: 1, total: 8 });
    const atFirst = await storedEvents(runtime, runId);
    expect(atFirst.some((e) => e.type === 'tool.invoked')).toBe(false);

    const summary = await started;
    expect(summary.status).toBe('completed');
    const events = await storedEvents(runtime, runId);
    const invoked = events.find(
      (e) => e.type === 'tool.invoked' && e.tool === 'trigger-long-running-operation',
    );
    expect(invoked).toMatchObject({ outcome: 'SUCCESS' });
    const progress = events.filter((e) => e.type === 'tool.progress');
    // Reports come every 500 ms and are traced at most once a second (a completing 8/8 always, unless
    // it crosses the result: once the result is in, the call listens to no more reports).
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.length).toBeLessThan(8);
    const steps = progress.map((e) => Number(e.progress));
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    expect(steps.at(-1)).toBeGreaterThanOrEqual(6);
    expect(progress.at(-1)).toMatchObject({ total: 8, callId: invoked?.callId, nodeId: 'work' });
    for (const e of progress) expect(e.seq).toBeLessThan(invoked?.seq ?? 0);
  }, 30_000);

  it('a tool reporting in a tight loop cannot flood the trace', async () => {
    const flood = defineTool({
      name: 'flood',
      description: 'reports progress 100000 times',
      inputSchema: { type: 'object', properties: {} },
      execute: async (_args, context) => {
        for (let i = 1; i <= 100_000; i += 1) context.progress?.({ progress: i, message: 'x'.repeat(1000) });
        await new Promise((resolve) => setTimeout(resolve, 10));
        for (let i = 0; i < 2 * PROGRESS_MAX_EVENTS; i += 1) context.progress?.({ progress: i, total: i }); // each "completes": only the cap holds them
        return { ok: true };
      },
    });
    const runtime = createRuntime({ store: 'memory', logger: false, tools: [flood] });
    runtimes.push(runtime);
    const flow = await loadFlow(
      { id: 'flood', locale: 'en', nodes: [{ id: 'work', tools: ['flood'] }] },
      { knownTools: ['flood'] },
    );
    const summary = await runtime.start(flow, {
      input: { text: 'go' },
      model: scriptedModel({ turns: [{ calls: [call('flood')] }, { calls: [finish] }] }),
    });
    expect(summary.status).toBe('completed');
    const progress = (await storedEvents(runtime, summary.runId)).filter((e) => e.type === 'tool.progress');
    expect(progress).toHaveLength(PROGRESS_MAX_EVENTS);
    // The first report of the loop, its message cut; the loop's other 99 999 within the same second dropped.
    expect(progress[0]).toMatchObject({ progress: 1 });
    expect([...String(progress[0]?.message)].length).toBe(200);
    expect(progress[1]).toMatchObject({ progress: 0, total: 0 });
  });
});
