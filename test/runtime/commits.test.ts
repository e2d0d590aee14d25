import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { Commit, RunRecord } from '../../src/store/store.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { call, script, toolKit, turn } from './helpers.js';

/**
 * A memory store that keeps a copy of every commit it was given (the runtime goes on changing its
 * state object), with how many writes the tools had done by then.
 */
class RecordingStore extends MemoryStore {
  readonly commits: { commit: Commit; saves: number }[] = [];
  constructor(private readonly saves: () => number) {
    super();
  }

  override commit(commit: Commit): Promise<RunRecord> {
    this.commits.push({ commit: JSON.parse(JSON.stringify(commit)) as Commit, saves: this.saves() });
    return super.commit(commit);
  }
}

const types = (commit: Commit): string[] => (commit.events ?? []).map((e) => e.type);

/** What each commit of a step holds, and what is committed before a call's effects. */
describe('Runtime: one commit per step', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  it('commits a quick read together with the model turn that asked for it', async () => {
    const kit = toolKit();
    const store = new RecordingStore(() => kit.count('save'));
    const runtime = createRuntime({ store, tools: kit.tools, logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow(
      { id: 'reads', locale: 'en', nodes: [{ id: 'work', tools: ['lookup'] }] },
      { knownTools: ['lookup'] },
    );
    const run = await runtime.start(flow, {
      input: { text: 'x' },
      model: script(
        turn([call.tool('lookup', { id: 1 })]),
        turn([call.tool('lookup', { id: 2 })]),
        turn([call.finish()]),
      ),
    });
    expect(run.status).toBe('completed');
    const steps = store.commits.map((c) => types(c.commit)).filter((t) => t.includes('model.response'));
    expect(steps.slice(0, 2)).toEqual([
      ['react.round', 'model.response', 'tool.invoked'],
      ['react.round', 'model.response', 'tool.invoked'],
    ]);
    // Each such commit also holds the turn's two messages and the read's evidence.
    const first = store.commits.find((c) => types(c.commit).includes('tool.invoked'))!.commit;
    expect(first.messages?.map((m) => (m.message as { role: string }).role)).toEqual(['assistant', 'tool']);
    expect(first.evidence?.map((e) => e.tool)).toEqual(['lookup']);
  });

  it('commits the model turn with the in-flight mark before an approved write is sent', async () => {
    const kit = toolKit();
    const store = new RecordingStore(() => kit.count('save'));
    const runtime = createRuntime({ store, tools: kit.tools, logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow(
      { id: 'write', locale: 'en', nodes: [{ id: 'work', tools: ['save'] }] },
      { knownTools: ['save'] },
    );
    const model = () =>
      script(
        turn([call.tool('save', { name: 'a' })]),
        turn([call.approval('save', 'save a')]),
        turn([call.tool('save', { name: 'a' })]),
        turn([call.finish()]),
      );
    const asked = await runtime.start(flow, { input: { text: 'x' }, model: model() });
    expect(asked.status).toBe('suspended');
    expect(await runtime.approve(asked.runId, { model: model() })).toMatchObject({ status: 'completed' });
    const marked = store.commits.filter((c) => (c.commit.patch.state?.run.inFlight ?? []).length > 0);
    expect(marked).toHaveLength(1);
    expect(marked[0]?.saves).toBe(0);
    expect(types(marked[0]!.commit)).toEqual(['react.round', 'model.response']);
    expect(kit.count('save')).toBe(1);
  });

  it('commits the step so far while a slow read runs, so watchers see the model turn', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow: LocalTool = defineTool({
      name: 'slow',
      description: 'Takes its time',
      inputSchema: { type: 'object', properties: {} },
      execute: async () => {
        started();
        await gate;
        return { ok: true };
      },
    });
    const store = new MemoryStore();
    const runtime = createRuntime({ store, tools: [slow], logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow(
      { id: 'slow', locale: 'en', nodes: [{ id: 'work', tools: ['slow'] }] },
      { knownTools: ['slow'] },
    );
    let runId = '';
    const done = runtime.start(flow, {
      input: { text: 'x' },
      model: script(turn([call.tool('slow')]), turn([call.finish()])),
      onAccepted: (s) => (runId = s.runId),
    });
    await running;
    let stored: string[] = [];
    for (const deadline = Date.now() + 20_000; !stored.includes('model.response') && Date.now() < deadline;) {
      await new Promise((resolve) => setImmediate(resolve));
      stored = (await store.events(runId)).map((e) => e.type);
    }
    expect(stored).toContain('model.response');
    expect(stored).not.toContain('tool.invoked');
    release();
    expect(await done).toMatchObject({ status: 'completed' });
    expect((await store.events(runId)).map((e) => e.type)).toContain('tool.invoked');
  });
});
