import { describe, expect, it } from 'vitest';
import { call, eventsOf, flow, makeRuntime, recordingModel, sqliteUrl, toolKit, turn } from './helpers.js';

/** Every step is persisted, so each command can run in another process (here: another Runtime). */
describe('Runtime: continuing a run in other Runtime instances on one SQLite file', () => {
  it('conversation, evidence, approvals and counters survive; each instance picks up where the last stopped', async () => {
    const kit = toolKit();
    const db = sqliteUrl();
    const loaded = await flow({
      nodes: [
        {
          id: 'work',
          tools: ['lookup', 'save'],
          outputs: { saved: { required: true, sources: ['evidence'], from: ['save'] } },
        },
      ],
    });
    const turns = [
      turn([call.tool('lookup', { id: 1 }), call.tool('save', { name: 'item-1' })]),
      turn([call.approval('save')]),
      turn([call.tool('save', { name: 'item-1' })]),
      turn([call.ask('Anything else?')]),
      turn([call.output('saved', 'item-1', 'evidence', 'ev_2')]),
      turn([call.finish()]),
    ];

    const one = makeRuntime(kit, { store: db });
    const first = await one.start(loaded, {
      input: { text: 'save item-1' },
      model: recordingModel(...turns),
    });
    expect(first.suspension?.kind).toBe('APPROVAL');
    await one.close();

    const two = makeRuntime(kit, { store: db });
    const asked = await two.approve(first.runId, { model: recordingModel(...turns) });
    expect(asked.suspension).toEqual({
      kind: 'FOLLOW_UP',
      pending: { id: expect.stringMatching(/^pnd_[0-9a-f]{16}$/), question: 'Anything else?', options: null },
    });
    expect(kit.calls.save).toEqual([{ name: 'item-1' }]);
    await two.close();

    const three = makeRuntime(kit, { store: db });
    const model = recordingModel(...turns);
    const done = await three.answer(first.runId, 'no, thanks', { model });
    expect(done).toMatchObject({ status: 'completed', outputs: { work: { saved: 'item-1' } } });
    expect(kit.count('save')).toBe(1);
    expect(kit.count('lookup')).toBe(1);
    expect(model.contexts.map((c) => c.callIndex)).toEqual([4, 5]);
    // The model in the third instance sees the whole node conversation, in order.
    const messages = model.requests[0]?.messages ?? [];
    // The run input is the first user message; the phase hint the last one.
    expect(messages.map((m) => (m.role === 'tool' ? `tool ${m.tool}` : m.role))).toEqual([
      'user',
      'assistant',
      'tool lookup',
      'tool save',
      'assistant',
      'tool builtin_node_approval',
      'assistant',
      'tool save',
      'assistant',
      'tool builtin_node_follow_up',
      'user',
    ]);
    const answered = messages.at(-2);
    expect(answered?.role === 'tool' && answered.content).toContain('no, thanks');
    const events = await eventsOf(three, first.runId);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.type === 'react.round').map((e) => e.round)).toEqual([1, 2, 3, 4, 5, 6]);
    await three.close();
  });
});
