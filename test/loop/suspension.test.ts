import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  eventsOf,
  flow,
  makeRuntime,
  ofType,
  recordingModel,
  script,
  sqliteUrl,
  story,
  toolKit,
  turn,
  typesOf,
} from '../runtime/helpers.js';

/** Suspension inside a wave, trace order, counts carried over, phase hints. */
describe('node loop: suspension and phase hints', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  function runtimeWith(kit = toolKit(), store?: string): Runtime {
    const runtime = makeRuntime(kit, store ? { store } : {});
    runtimes.push(runtime);
    return runtime;
  }

  it('follow-up: tool.skipped, node.suspended, run.suspended; on answer run.resumed then the suspending call', async () => {
    const kit = toolKit();
    const runtime = runtimeWith(kit);
    const loaded = await flow({ nodes: [{ id: 'work', tools: ['lookup'] }] });
    const model = recordingModel(
      turn([call.ask('Which item?', ['1', '2']), call.tool('lookup', { id: 1 })]),
      turn([call.finish()]),
    );
    const first = await runtime.start(loaded, { input: { text: 'go' }, model });
    expect(first.status).toBe('suspended');
    expect(first.suspension).toEqual({
      kind: 'FOLLOW_UP',
      pending: {
        id: expect.stringMatching(/^pnd_[0-9a-f]{16}$/),
        question: 'Which item?',
        options: ['1', '2'],
      },
    });
    expect(kit.count('lookup')).toBe(0);
    let events = await eventsOf(runtime, first.runId);
    expect(typesOf(events).slice(-4)).toEqual([
      'model.response',
      'tool.skipped',
      'node.suspended',
      'run.suspended',
    ]);
    expect(ofType(events, 'tool.invoked')).toHaveLength(0);
    expect(ofType(events, 'run.suspended')[0]).toMatchObject({
      kind: 'FOLLOW_UP',
      nodeId: 'work',
      pending: {
        id: expect.stringMatching(/^pnd_[0-9a-f]{16}$/),
        question: 'Which item?',
        options: ['1', '2'],
      },
    });

    const done = await runtime.answer(first.runId, '2', { who: 'ana' });
    expect(done.status).toBe('completed');
    events = await eventsOf(runtime, first.runId);
    const after = events.slice(events.findIndex((e) => e.type === 'run.suspended') + 1);
    expect(typesOf(after).slice(0, 3)).toEqual(['run.resumed', 'tool.invoked', 'react.round']);
    expect(after[0]).toMatchObject({ kind: 'FOLLOW_UP', answer: '2', who: 'ana', nodeId: 'work' });
    expect(after[1]).toMatchObject({
      tool: 'builtin_node_follow_up',
      callId: 'call_1_1',
      outcome: 'SUCCESS',
      round: 1,
      executed: false,
    });
    expect(after[2]).toMatchObject({ round: 2 });
    // The conversation of round 2: the answer as the follow-up's tool message, the skipped call's message after it.
    const tools = (model.requests[1]?.messages ?? []).filter((m) => m.role === 'tool');
    expect(tools.map((m) => (m.role === 'tool' ? m.callId : '')).sort()).toEqual(['call_1_1', 'call_1_2']);
    const answered = tools.find((m) => m.role === 'tool' && m.callId === 'call_1_1');
    expect(answered?.role === 'tool' && answered.content).toContain('2');
  });

  it('approval: the decision is traced as run.resumed, then tool.invoked of builtin_node_approval with its final outcome', async () => {
    const kit = toolKit();
    const runtime = runtimeWith(kit);
    const loaded = await flow({ nodes: [{ id: 'work', tools: ['save', 'noop'] }] });
    const model = script(
      turn([call.tool('save', { name: 'a' })]),
      turn([call.approval('save'), call.tool('noop')]),
      turn([call.tool('save', { name: 'a' })]),
      turn([call.finish()]),
    );
    const first = await runtime.start(loaded, { input: { text: 'go' }, model });
    expect(first.suspension).toEqual({
      kind: 'APPROVAL',
      pending: {
        id: expect.stringMatching(/^pnd_[0-9a-f]{16}$/),
        tool: 'save',
        args: { name: 'a' },
        summary: 'please approve',
        provenance: {},
      },
    });
    const done = await runtime.approve(first.runId, { comment: 'ok', who: 'bo' });
    expect(done.status).toBe('completed');
    expect(kit.calls.save).toEqual([{ name: 'a' }]);
    expect(kit.count('noop')).toBe(0);
    const events = await eventsOf(runtime, first.runId);
    expect(story(events).slice(3, 11)).toEqual([
      'round 2',
      'skipped noop',
      'node.suspended',
      'run.suspended',
      'run.resumed',
      'invoked builtin_node_approval SUCCESS',
      'round 3',
      'invoked save SUCCESS',
    ]);
    expect(ofType(events, 'run.resumed')[0]).toMatchObject({
      kind: 'APPROVAL',
      decision: 'approved',
      comment: 'ok',
      who: 'bo',
    });
    expect(ofType(events, 'tool.invoked').at(-2)).toMatchObject({
      tool: 'save',
      executed: true,
      evidenceId: 'ev_1',
    });
  });

  it('stall count carries over a suspension: a declined approval is a stall added to the earlier ones', async () => {
    const kit = toolKit();
    const runtime = runtimeWith(kit);
    const loaded = await flow({
      limits: { maxStalls: 3 },
      nodes: [{ id: 'work', tools: ['save', 'broken'] }],
    });
    const model = script(
      turn([call.tool('broken')]),
      turn([call.tool('save', { name: 'a' })]),
      turn([call.approval('save')]),
      turn([call.tool('broken')]),
    );
    const first = await runtime.start(loaded, { input: { text: 'go' }, model });
    expect(first.status).toBe('suspended');
    const end = await runtime.reject(first.runId, { comment: 'no' });
    expect(end).toMatchObject({ status: 'failed', reason: 'NO_PROGRESS' });
    const events = await eventsOf(runtime, first.runId);
    expect(ofType(events, 'react.stall').map((e) => [e.round, e.stalls])).toEqual([
      [1, 1],
      [3, 2],
      [4, 3],
    ]);
    expect(ofType(events, 'tool.invoked').find((e) => e.tool === 'builtin_node_approval')).toMatchObject({
      outcome: 'REJECTED',
      errorCode: 'APPROVAL_DENIED',
    });
    expect(kit.count('save')).toBe(0);
  });

  it('round count carries over a suspension continued by another Runtime on the same SQLite file', async () => {
    const kit = toolKit();
    const db = sqliteUrl();
    const loaded = await flow({ limits: { maxRounds: 3 }, nodes: [{ id: 'work', tools: ['save'] }] });
    const turns = [
      turn([call.tool('save', { name: 'a' })]),
      turn([call.approval('save')]),
      turn([call.tool('save', { name: 'a' })]),
      turn([call.finish()]),
    ];
    const first = await runtimeWith(kit, db).start(loaded, {
      input: { text: 'go' },
      model: script(...turns),
    });
    expect(first.status).toBe('suspended');
    const second = runtimeWith(kit, db);
    const end = await second.approve(first.runId, { model: script(...turns) });
    expect(end).toMatchObject({ status: 'failed', reason: 'ROUND_LIMIT' });
    expect(kit.count('save')).toBe(1);
    const events = await eventsOf(second, first.runId);
    expect(ofType(events, 'react.round').map((e) => e.round)).toEqual([1, 2, 3]);
  });

  it('phase.hint only when the node has required outputs; it states facts and never says "write outputs"', async () => {
    const runtime = runtimeWith();
    const loaded = await flow({
      nodes: [
        { id: 'plain', tools: ['lookup'] },
        {
          id: 'shaped',
          tools: ['lookup'],
          outputs: { answer: { required: true, sources: ['model'] }, extra: { sources: ['model'] } },
        },
      ],
      edges: [{ from: 'plain', to: 'shaped' }],
    });
    const model = recordingModel(
      turn([call.finish()], 'plain'),
      turn([call.tool('lookup', { id: 1 })], 'shaped'),
      turn([call.output('answer', 'forty-two', 'model')], 'shaped'),
      turn([call.finish()], 'shaped'),
    );
    const run = await runtime.start(loaded, { input: { text: 'go' }, model });
    expect(run.status).toBe('completed');
    expect(run.outputs).toEqual({ plain: {}, shaped: { answer: 'forty-two' } });
    const hints = ofType(await eventsOf(runtime, run.runId), 'phase.hint');
    expect(hints.map((e) => [e.nodeId, e.round, e.text])).toEqual([
      ['shaped', 1, 'Required outputs not written yet: answer'],
      ['shaped', 2, 'Required outputs not written yet: answer'],
      ['shaped', 3, 'All required outputs are written'],
    ]);
    // The phase hint is the newest user-side content; the system prompt stays the same in a node run.
    expect(model.requests[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'go' });
    expect(model.requests[3]?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'All required outputs are written',
    });
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Required outputs not written yet: answer',
    });
    expect(new Set(model.requests.slice(1).map((r) => r.system)).size).toBe(1);
    for (const r of model.requests)
      expect(r.system).not.toMatch(/Required outputs (not written|are written)/);
    for (const e of hints)
      expect(String(e.text).toLowerCase()).not.toMatch(/write outputs|query|you may finish/);
  });

  it('zh-CN phase hints never contain "写 outputs" or progress advice', async () => {
    const runtime = runtimeWith();
    const loaded = await flow({
      locale: 'zh-CN',
      nodes: [
        {
          id: 'n',
          outputs: { a: { required: true, sources: ['model'] }, b: { required: true, sources: ['model'] } },
        },
      ],
    });
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script(
        turn([call.output('a', 'x', 'model')]),
        turn([call.output('b', 'y', 'model')]),
        turn([call.finish()]),
      ),
    });
    expect(run.status).toBe('completed');
    const texts = ofType(await eventsOf(runtime, run.runId), 'phase.hint').map((e) => String(e.text));
    expect(texts).toEqual(['必填产出尚未写入：a、b', '必填产出尚未写入：b', '必填产出已全部写入']);
    for (const text of texts) expect(text).not.toMatch(/写 ?outputs|写入产出|查询|可以结束/);
  });
});
