import { describeSummary } from '../../src/cli/render.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { scriptedModel } from '../../src/model/scripted.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import type { CodeStepContext } from '../../src/domain/code-step.js';
import { call, eventsOf, ofType, recordingModel, script, toolKit, turn } from '../runtime/helpers.js';
import {
  forkJoinFlow,
  forkJoinTurns,
  mapFlow,
  mapTurns,
  maxOverlap,
  slowTool,
  type SlowCall,
} from './parallel-fixture.js';

describe('parallel branches and joins', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  it('runs [left, right] at the same time and the join once with both outputs', async () => {
    const calls: SlowCall[] = [];
    let sums = 0;
    const runtime = createRuntime({ store: 'memory', tools: [slowTool(calls)], logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow(forkJoinFlow({ onSum: () => void (sums += 1) }), { knownTools: ['slow'] });
    const summary = await runtime.start(flow, {
      input: { a: 2, b: 3 },
      model: scriptedModel({ turns: forkJoinTurns(2, 3) }),
    });
    expect(summary.status).toBe('completed');
    expect(summary.outputs.sum).toEqual({ total: 5 });
    expect(summary.reply).toBe('sum 5');
    expect(sums).toBe(1);
    expect(calls.map((c) => c.x).sort()).toEqual([2, 3]);
    const [first, second] = [...calls].sort((p, q) => p.start - q.start) as [SlowCall, SlowCall];
    expect(second.start).toBeLessThan(first.end); // the two 400 ms calls overlapped
    const events = await eventsOf(runtime, summary.runId);
    const started = ofType(events, 'node.started').map((e) => (e as { nodeId: string }).nodeId);
    expect(started).toEqual(['plan', 'left', 'right', 'sum']);
    // node.started says who followed whom, so a reader can draw the fork and the join.
    const follows = ofType(events, 'node.started').map((e) => {
      const { nodeId, nodeRun, from } = e as unknown as { nodeId: string; nodeRun?: number; from?: string[] };
      return [nodeId, nodeRun, from ? [...from].sort() : undefined];
    });
    expect(follows).toEqual([
      ['plan', undefined, undefined],
      ['left', 2, ['plan']],
      ['right', 3, ['plan']],
      ['sum', 4, ['left', 'right']],
    ]);
    const seqs = events.map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
  });

  it('maps a node over three items: three node loops, at most `concurrency` at a time, outputs in item order', async () => {
    const calls: SlowCall[] = [];
    const runtime = createRuntime({ store: 'memory', tools: [slowTool(calls, 300)], logger: false });
    runtimes.push(runtime);
    const model = recordingModel(...mapTurns([10, 20, 30]));
    const flow = await loadFlow(mapFlow(2), { knownTools: ['slow'] });
    const summary = await runtime.start(flow, { input: { lines: [10, 20, 30] }, model });
    expect(summary.status).toBe('completed');
    expect(summary.outputs.each).toEqual({ items: [{ value: 10 }, { value: 20 }, { value: 30 }] });
    expect(summary.outputs.total).toEqual({ total: 60 });
    const items = ofType(await eventsOf(runtime, summary.runId), 'node.started').flatMap((e) => {
      const { nodeId, item } = e as unknown as { nodeId: string; item?: { of: number; index: number } };
      return item ? [[nodeId, item.index]] : [];
    });
    expect(items.sort()).toEqual([
      ['price', 0],
      ['price', 1],
      ['price', 2],
    ]);
    expect(calls.map((c) => c.x).sort()).toEqual([10, 20, 30]);
    expect(maxOverlap(calls)).toBe(2);
    const events = await eventsOf(runtime, summary.runId);
    const started = ofType(events, 'node.started').map((e) => (e as { nodeId: string }).nodeId);
    expect(started).toEqual(['plan', 'each', 'price', 'price', 'price', 'total']);
    const prompts = model.requests.map((r) => r.system).filter((s) => s.includes('Price line'));
    expect(new Set(prompts.map((p) => /Price line (\d+)/.exec(p)?.[1]))).toEqual(new Set(['10', '20', '30']));
  });

  it('suspends with both branches waiting on approvals; each is approved by its pending id', async () => {
    const kit = toolKit();
    const runtime = createRuntime({ store: 'memory', tools: kit.tools, logger: false });
    runtimes.push(runtime);
    const saver = (id: string) => ({
      id,
      tools: ['save'],
      outputs: { saved: { required: true } },
      run: async (ctx: CodeStepContext) => {
        const result = await ctx.tools.call('save', { name: id });
        return { saved: result.ok };
      },
    });
    const flow = await loadFlow(
      {
        id: 'two-approvals',
        locale: 'en',
        nodes: [
          { id: 'plan', outputs: { go: { required: true } }, run: () => ({ go: true }) },
          saver('left'),
          saver('right'),
          {
            id: 'sum',
            outputs: { both: { required: true } },
            run: (ctx: CodeStepContext) => ({ both: Object.keys(ctx.nodes).length }),
          },
        ],
        edges: [
          { from: 'plan', to: ['left', 'right'] },
          { from: 'left', to: 'sum' },
          { from: 'right', to: 'sum' },
        ],
      },
      { knownTools: ['save'] },
    );
    const started = await runtime.start(flow, { input: { text: 'save both' }, model: script() });
    expect(started.status).toBe('suspended');
    const events = await eventsOf(runtime, started.runId);
    const pending = ofType(events, 'node.suspended').map((e) => {
      const { nodeId, pending: item } = e as unknown as { nodeId: string; pending: { id: string } };
      return { nodeId, id: item.id };
    });
    expect(pending.map((p) => p.nodeId).sort()).toEqual(['left', 'right']);
    expect(new Set(pending.map((p) => p.id)).size).toBe(2);
    const surfaced = started.suspension?.pending.id;
    const other = pending.find((p) => p.id !== surfaced);
    expect(other).toBeDefined();
    // The summary lists both items, the first being `pending`; the CLI prints how to answer each.
    const items = started.suspension?.items ?? [];
    expect(items.map((i) => i.nodeId).sort()).toEqual(['left', 'right']);
    expect(items[0]?.pending.id).toBe(surfaced);
    expect(new Set(items.map((i) => i.pending.id))).toEqual(new Set(pending.map((p) => p.id)));
    const printed = describeSummary(started);
    for (const item of items) expect(printed).toContain(`--expect ${item.pending.id ?? ''}`);
    // The item not surfaced first may be answered first, by its id.
    const afterOne = await runtime.approve(started.runId, { expect: other?.id });
    expect(afterOne.status).toBe('suspended');
    expect(afterOne.suspension?.pending.id).toBe(surfaced);
    expect(afterOne.suspension?.items).toBeUndefined();
    expect(kit.count('save')).toBe(1);
    const done = await runtime.approve(started.runId, { expect: surfaced });
    expect(done.status).toBe('completed');
    expect(done.outputs.sum).toEqual({ both: 3 });
    expect(kit.calls.save?.map((a) => a.name).sort()).toEqual(['left', 'right']);
  });

  it('answers items of both kinds in any order by their pending ids (an approval named while a question is first)', async () => {
    const kit = toolKit();
    const runtime = createRuntime({ store: 'memory', tools: kit.tools, logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow(
      {
        id: 'ask-and-save',
        locale: 'en',
        nodes: [
          { id: 'plan', outputs: { go: { required: true } }, run: () => ({ go: true }) },
          { id: 'asker', instructions: 'Ask which one.' },
          {
            id: 'saver',
            tools: ['save'],
            outputs: { saved: { required: true } },
            run: async (ctx: CodeStepContext) => ({
              saved: (await ctx.tools.call('save', { name: 'x' })).ok,
            }),
          },
          { id: 'sum', run: () => ({}) },
        ],
        edges: [
          { from: 'plan', to: ['asker', 'saver'] },
          { from: 'asker', to: 'sum' },
          { from: 'saver', to: 'sum' },
        ],
      },
      { knownTools: ['save'] },
    );
    const model = script(turn([call.ask('Which one?')], 'asker'), turn([call.finish('7')], 'asker'));
    const started = await runtime.start(flow, { input: { text: 'go' }, model });
    expect(started, JSON.stringify(started)).toMatchObject({ status: 'suspended' });
    const items = started.suspension?.items ?? [];
    expect(items.map((i) => i.kind).sort()).toEqual(['APPROVAL', 'FOLLOW_UP']);
    const approval = items.find((i) => i.kind === 'APPROVAL')?.pending.id;
    const question = items.find((i) => i.kind === 'FOLLOW_UP')?.pending.id;
    // Whichever item comes first, each is answered by its id with the response of its kind.
    const first = started.suspension?.kind === 'APPROVAL' ? question : approval;
    const wrongKind =
      first === approval
        ? runtime.answer(started.runId, '7', { expect: first })
        : runtime.approve(started.runId, { expect: first });
    await expect(wrongKind).rejects.toThrow(/not for an/);
    const afterOne =
      first === approval
        ? await runtime.approve(started.runId, { expect: approval, model })
        : await runtime.answer(started.runId, '7', { expect: question, model });
    expect(afterOne.status).toBe('suspended');
    expect(afterOne.suspension?.pending.id).toBe(first === approval ? question : approval);
    const done =
      first === approval
        ? await runtime.answer(started.runId, '7', { expect: question, model })
        : await runtime.approve(started.runId, { expect: approval, model });
    expect(done.status).toBe('completed');
    expect(kit.count('save')).toBe(1);
  });

  it('fails the run when a branch fails with no edge routing it; the join never starts; a routed failure goes on', async () => {
    const runtime = createRuntime({ store: 'memory', tools: [], logger: false });
    runtimes.push(runtime);
    const code = (id: string, fail = false) => ({
      id,
      outputs: { ok: { required: true } },
      run: () => {
        if (fail) throw new Error(`${id} broke`);
        return { ok: true };
      },
    });
    const shape = (routed: boolean) => ({
      id: routed ? 'routed' : 'unrouted',
      locale: 'en' as const,
      nodes: [code('plan'), code('left'), code('right', true), code('sum'), code('mend')],
      edges: [
        { from: 'plan', to: ['left', 'right'] },
        { from: 'left', to: 'sum' },
        ...(routed ? [{ from: 'right', to: 'mend', when: "status = 'failed'" }] : []),
        { from: 'right', to: 'sum' },
        ...(routed ? [] : [{ from: 'plan', to: 'mend', when: 'false' }]),
        { from: 'mend', to: 'sum' },
      ],
    });
    const failed = await runtime.start(await loadFlow(shape(false)), {
      input: { text: 'x' },
      model: script(),
    });
    expect(failed).toMatchObject({ status: 'failed', reason: 'CODE_NODE_ERROR', failedNode: 'right' });
    expect(failed.outputs.sum).toBeUndefined();
    // Retry and fork do not take up a run's branches yet: both refuse, and nothing changes.
    await expect(runtime.retry(failed.runId)).rejects.toMatchObject({
      code: 'RUN_CONFLICT',
      message: expect.stringMatching(/parallel branches or a map, which retry does not take up yet/),
    });
    await expect(runtime.fork(failed.runId, { at: 1 })).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
      message: expect.stringMatching(/parallel branches or a map, which fork does not support yet/),
    });
    expect((await runtime.status(failed.runId))?.status).toBe('failed');
    const routed = await runtime.start(await loadFlow(shape(true)), {
      input: { text: 'x' },
      model: script(),
    });
    expect(routed.status).toBe('completed');
    expect(Object.keys(routed.outputs).sort()).toEqual(['left', 'mend', 'plan', 'sum']);
  });

  it('fails a map over more than 100 items with MAP_TOO_MANY_ITEMS', async () => {
    const runtime = createRuntime({ store: 'memory', tools: [], logger: false });
    runtimes.push(runtime);
    const flow = await loadFlow({
      id: 'too-many',
      locale: 'en',
      input: { type: 'object', properties: { n: { type: 'number' } } },
      nodes: [
        { id: 'each', map: { over: '[1..input.n]', node: 'body' } },
        { id: 'body', outputs: { i: { required: true } }, run: (ctx: CodeStepContext) => ({ i: ctx.item }) },
      ],
    });
    const failed = await runtime.start(flow, { input: { n: 101 }, model: script() });
    expect(failed).toMatchObject({ status: 'failed', reason: 'MAP_TOO_MANY_ITEMS', failedNode: 'each' });
    const fine = await runtime.start(flow, { input: { n: 3 }, model: script() });
    expect(fine.outputs.each).toEqual({ items: [{ i: 1 }, { i: 2 }, { i: 3 }] });
  });

  it('a template over that names nothing: refused by the flow checks when they can tell, else MAP_OVER_FAILED', async () => {
    const runtime = createRuntime({ store: 'memory', tools: [], logger: false });
    runtimes.push(runtime);
    const shape = (over: string, input: Record<string, unknown> = { type: 'object' }) => ({
      id: 'over',
      locale: 'en' as const,
      input,
      nodes: [
        { id: 'plan', outputs: { lines: { required: true } }, run: () => ({ lines: [1] }) },
        { id: 'each', map: { over, node: 'body' } },
        {
          id: 'body',
          instructions: 'Total: {{nodes.each.outputs.items}}',
          outputs: { i: { required: true } },
          run: (ctx: CodeStepContext) => ({ i: ctx.item }),
        },
      ],
      edges: [{ from: 'plan', to: 'each' }],
    });
    await expect(loadFlow(shape('{{nodes.nope.outputs.lines}}'))).rejects.toThrow(/unknown node "nope"/);
    await expect(loadFlow(shape('{{nodes.plan.outputs.linez}}'))).rejects.toThrow(
      /declares no output "linez"/,
    );
    await expect(loadFlow(shape('{{nodes.plan.outputs.lines}}'))).rejects.toThrow(
      /is the body of map "each", whose items are known only once every item ran/,
    );
    // An input field the schema does not list: only the run can tell it is missing.
    const [plan, each] = shape('{{input.lines}}').nodes;
    const body = {
      id: 'body',
      outputs: { i: { required: true } },
      run: (ctx: CodeStepContext) => ({ i: ctx.item }),
    };
    const loose = await loadFlow({ ...shape('{{input.lines}}'), nodes: [plan, each, body] } as never);
    const failed = await runtime.start(loose, { input: { text: 'no lines' }, model: script() });
    expect(failed).toMatchObject({ status: 'failed', reason: 'MAP_OVER_FAILED', failedNode: 'each' });
    expect(failed.message).toContain('{{input.lines}} names no value of this run');
  });
});
