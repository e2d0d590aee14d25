import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import { RunError } from '../../src/domain/run-error.js';
import { replyOf } from '../../src/eval/metrics.js';
import { forkPoints, forkState } from '../../src/engine/fork-state.js';
import { demoDataDir, readWriteLog, REPO_ROOT } from '../helpers/demo-server.js';

const DEMO = join(REPO_ROOT, 'examples/site-builder');
const INPUT = '在默认空间创建一个名为 官网 的站点';

/** The demo flow with its MCP server and a fresh data folder as absolute paths. */
function demoFlowFile(dir: string, dataDir: string): string {
  const text = readFileSync(join(DEMO, 'flow.yaml'), 'utf8')
    .replace('../demo-cloud/server.js', join(REPO_ROOT, 'examples/demo-cloud/server.js'))
    .replace('env: { DEMO_CLOUD_DATA: ./.data }', `env: { DEMO_CLOUD_DATA: ${JSON.stringify(dataDir)} }`)
    .replace('model: scripted:./turns.yaml', `model: scripted:${join(DEMO, 'turns.yaml')}`);
  const file = join(dir, 'flow.yaml');
  writeFileSync(file, text);
  return file;
}

/** A model that, after the fork, verifies the site, cites the write's evidence and finishes with its own words. */
const AFTER_FORK = {
  turns: [
    // The write again, same arguments: reused from the evidence carried over, never re-sent.
    {
      node: 'create',
      calls: [{ tool: 'web_site_create', args: { spaceId: 's1', name: '官网', plan: 'basic' } }],
    },
    { node: 'create', calls: [{ tool: 'web_site_get', args: { siteId: 'site_1' } }] },
    {
      node: 'create',
      calls: [
        {
          tool: 'builtin_output_set',
          args: { key: 'siteId', value: 'site_1', sourceType: 'evidence', sourceRef: 'ev_3' },
        },
      ],
    },
    {
      node: 'create',
      calls: [{ tool: 'builtin_node_finish', args: { summary: '分叉后的模型：站点已就绪' } }],
    },
  ],
};

describe('fork: a new run continuing from an event of a completed run', () => {
  let dir: string;
  let runtime: Runtime;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'fork-test-'));
    runtime = createRuntime({ store: `sqlite:${join(dir, 'runtime.db')}`, logger: false });
  });
  afterEach(async () => {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("forked at the write's SUCCESS: completes with the new model's reply, the write executed once in all", async () => {
    const dataDir = demoDataDir();
    const flow = await loadFlow(demoFlowFile(dir, dataDir));
    const first = await runtime.start(flow, { input: { text: INPUT } });
    expect(first.status).toBe('suspended');
    const done = await runtime.approve(first.runId);
    expect(done.status).toBe('completed');
    const events = [];
    for await (const e of runtime.events(done.runId, { follow: false })) events.push(e);
    const write = events.find(
      (e) => e.type === 'tool.invoked' && e.tool === 'web_site_create' && e.outcome === 'SUCCESS',
    );
    expect(write).toBeDefined();
    writeFileSync(join(dir, 'after.yaml'), stringify(AFTER_FORK));
    const forked = await runtime.fork(done.runId, {
      at: write!.seq,
      model: `scripted:${join(dir, 'after.yaml')}`,
    });
    expect(forked).toMatchObject({
      status: 'completed',
      forkedFrom: { runId: done.runId, seq: write!.seq },
      outputs: { query: expect.any(Object), create: { siteId: 'site_1' } },
    });
    expect(forked.runId).not.toBe(done.runId);
    const after = [];
    for await (const e of runtime.events(forked.runId, { follow: false })) after.push(e);
    expect(replyOf(forked, after)).toBe('分叉后的模型：站点已就绪');
    // The trace up to the fork point is the original's; what follows is the new model's.
    expect(after.slice(0, write!.seq).map((e) => e.type)).toEqual(
      events.slice(0, write!.seq).map((e) => e.type),
    );
    expect(after.filter((e) => e.type === 'tool.invoked' && e.tool === 'web_site_create')).toHaveLength(3);
    const again = after.find((e) => e.seq > write!.seq && e.type === 'tool.invoked');
    expect(again).toMatchObject({
      tool: 'web_site_create',
      outcome: 'SUCCESS',
      executed: false,
      evidenceId: 'ev_3',
    });
    expect(readWriteLog(dataDir)).toHaveLength(1);
    expect((await runtime.evidence(forked.runId)).map((r) => r.id)).toEqual(['ev_1', 'ev_2', 'ev_3', 'ev_4']);
  }, 60_000);

  it('rebuilds the state at the fork point: the pending verification of the write, cleared once verified', async () => {
    const flow = await loadFlow(demoFlowFile(dir, demoDataDir()));
    const done = await runtime.approve((await runtime.start(flow, { input: { text: INPUT } })).runId);
    const store = await runtime.db();
    const record = (await store.getRun(done.runId))!;
    const events = await store.events(done.runId);
    const source = {
      record,
      events,
      evidence: await store.evidence(done.runId),
      messages: (key: string) => store.messages(done.runId, key),
    };
    const points = forkPoints(events);
    const write = events.find((e) => e.tool === 'web_site_create' && e.outcome === 'SUCCESS')!;
    const gets = events.filter((e) => e.tool === 'web_site_get');
    expect(points).toEqual(expect.arrayContaining([write.seq, gets[0]!.seq, gets[1]!.seq]));
    const atWrite = await forkState(source, write.seq, 'run_f', record.flow);
    expect(atWrite.doc.node?.pendingWrites).toMatchObject([
      { tool: 'web_site_create', verifyTool: 'web_site_get', verifyArgs: { siteId: 'site_1' } },
    ]);
    expect(atWrite.doc.run.approvals).toMatchObject([{ tool: 'web_site_create', consumed: true }]);
    expect(atWrite.evidence.map((r) => r.id)).toEqual(['ev_1', 'ev_2', 'ev_3']);
    expect(atWrite.doc.run.nodeOutputs).toHaveProperty('query');
    expect(
      (await forkState(source, gets[0]!.seq, 'run_f', record.flow)).doc.node?.pendingWrites,
    ).toHaveLength(1);
    expect((await forkState(source, gets[1]!.seq, 'run_f', record.flow)).doc.node?.pendingWrites).toEqual([]);
  }, 60_000);

  it('refuses an event that is not a fork point, naming the nearest ones', async () => {
    const dataDir = demoDataDir();
    const flow = await loadFlow(demoFlowFile(dir, dataDir));
    const first = await runtime.start(flow, { input: { text: INPUT } });
    const error = await runtime.fork(first.runId, { at: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).message).toMatch(
      /cannot be forked at event 1: .*nearest: \d+ \(all: [\d, ]+\)/,
    );
    await expect(runtime.fork('run_nope', { at: 3 })).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
  }, 60_000);
});
