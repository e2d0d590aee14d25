import { afterEach, describe, expect, it } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  flow,
  makeRuntime,
  recordingModel,
  sqliteUrl,
  toolKit,
  turn,
  type ToolKit,
} from './helpers.js';

/** Issue 29: threads — a conversation of runs that remembers, on the memory store and a SQLite file. */
describe.each(['memory', 'sqlite'])('threads (%s store)', (kind) => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  async function setup(): Promise<{ rt: Runtime; kit: ToolKit; loaded: Awaited<ReturnType<typeof flow>> }> {
    const kit = toolKit();
    const rt = makeRuntime(kit, { store: kind === 'memory' ? 'memory' : sqliteUrl() });
    runtimes.push(rt);
    const loaded = await flow({
      tools: { save: { write: true, params: { name: { source: 'user' } } } },
      nodes: [
        {
          id: 'talk',
          answer: 'text',
          tools: ['lookup', 'save'],
          outputs: { owner: { required: false, sources: ['evidence'], from: ['lookup'] } },
        },
      ],
    });
    return { rt, kit, loaded };
  }

  const FIRST = 'Who owns the printer ticket 7? Later write it to notes-owner.txt';

  it('a second run starts with the first message and reply, trusts what the user said before, cites earlier evidence', async () => {
    const { rt, kit, loaded } = await setup();
    const first = await rt.start(loaded, {
      thread: 'T1',
      input: { text: FIRST },
      model: recordingModel(turn([call.tool('lookup', { id: 7 })]), { calls: [], text: 'item-7 owns it.' }),
    });
    expect(first).toMatchObject({ status: 'completed', reply: 'item-7 owns it.', threadId: 'T1' });

    const model = recordingModel(
      turn([
        call.output('owner', 'item-7', 'evidence', 'ev_1'),
        call.tool('save', { name: 'notes-owner.txt' }),
      ]),
      turn([call.approval('save', 'write notes-owner.txt')]),
      turn([call.tool('save', { name: 'notes-owner.txt' })]),
      turn([call.finish('Written to notes-owner.txt.')]),
    );
    const second = await rt.start(loaded, {
      thread: 'T1',
      input: { text: 'Write the owner down now' },
      model,
    });
    expect(second).toMatchObject({ status: 'suspended', suspension: { kind: 'APPROVAL' }, threadId: 'T1' });
    expect(model.requests[0]?.messages.slice(0, 3)).toEqual([
      { role: 'user', content: FIRST },
      { role: 'assistant', text: 'item-7 owns it.', toolCalls: [] },
      { role: 'user', content: 'Write the owner down now' },
    ]);
    const pending = second.suspension?.pending as { userProvenance?: Record<string, string> };
    expect(pending.userProvenance).toEqual({ name: FIRST });

    // While it waits for the approval, a message to the thread is refused and changes nothing.
    const busy = rt.start(loaded, { thread: 'T1', input: { text: 'hello?' }, model: recordingModel() });
    await expect(busy).rejects.toMatchObject({ code: 'THREAD_BUSY', threadId: 'T1', runId: second.runId });
    await expect(busy).rejects.toBeInstanceOf(RunError);
    expect((await rt.thread('T1'))?.runs).toHaveLength(2);

    const done = await rt.approve(second.runId);
    expect(done).toMatchObject({
      status: 'completed',
      reply: 'Written to notes-owner.txt.',
      outputs: { talk: { owner: 'item-7' } },
    });
    expect(kit.count('save')).toBe(1);
    // Evidence ids go on across the thread: ev_1 is the first run's lookup, the save is ev_2.
    expect((await rt.evidence(second.runId)).map((e) => [e.id, e.tool])).toEqual([
      ['ev_1', 'lookup'],
      ['ev_2', 'save'],
    ]);

    const view = await rt.thread('T1');
    expect(view?.state).toBe('idle');
    expect(view?.runs.map((r) => r.runId)).toEqual([first.runId, second.runId]);
    expect(view?.messages.map((m) => [m.role, m.kind, m.text, m.runId])).toEqual([
      ['user', 'input', FIRST, first.runId],
      ['assistant', 'reply', 'item-7 owns it.', first.runId],
      ['user', 'input', 'Write the owner down now', second.runId],
      ['assistant', 'approval', 'write notes-owner.txt', second.runId],
      ['user', 'decision', 'approved', second.runId],
      ['assistant', 'reply', 'Written to notes-owner.txt.', second.runId],
    ]);
    expect(await rt.threads()).toMatchObject([{ threadId: 'T1', runs: 2, lastRunId: second.runId }]);
  });

  it('when the last run asks a question, the next message is its answer (same run)', async () => {
    const { rt, loaded } = await setup();
    const asked = await rt.start(loaded, {
      thread: 'T2',
      input: { text: 'Save it' },
      model: recordingModel(turn([call.ask('Under which name?')]), { calls: [], text: 'Noted: kiosk.' }),
    });
    expect(asked.status).toBe('suspended');
    expect((await rt.thread('T2'))?.state).toBe('waiting');
    const answered = await rt.start(loaded, {
      thread: 'T2',
      input: { text: 'kiosk' },
      model: recordingModel(),
    });
    expect(answered).toMatchObject({ runId: asked.runId, status: 'completed', reply: 'Noted: kiosk.' });
    expect((await rt.thread('T2'))?.messages.map((m) => m.kind)).toEqual([
      'input',
      'question',
      'answer',
      'reply',
    ]);
  });

  it('threads belong to a tenant; bad thread ids are refused', async () => {
    const { rt, loaded } = await setup();
    const model = () => recordingModel({ calls: [], text: 'hi' });
    await rt.start(loaded, { thread: 'T3', tenant: 'acme', input: { text: 'x' }, model: model() });
    expect(await rt.thread('T3')).toBeNull();
    expect(await rt.thread('T3', { tenant: 'other' })).toBeNull();
    expect((await rt.thread('T3', { tenant: 'acme' }))?.runs).toHaveLength(1);
    expect(await rt.threads({ tenant: 'other' })).toEqual([]);
    await expect(
      rt.start(loaded, { thread: 'bad id!', input: { text: 'x' }, model: model() }),
    ).rejects.toMatchObject({
      code: 'REQUEST_INVALID',
    });
  });
});
