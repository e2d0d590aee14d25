import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  eventsOf,
  flow,
  makeRuntime,
  ofType,
  recordingModel,
  story,
  toolKit,
  turn,
} from './helpers.js';

/** Issue 29: every run has `reply`; a node with `answer: text` may end on a text-only turn. */
describe('reply and answer: text', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  function runtime(): Runtime {
    const r = makeRuntime(toolKit());
    runtimes.push(r);
    return r;
  }

  it('the finish summary of the last node is the reply, in the summary, status() and run.completed', async () => {
    const rt = runtime();
    const loaded = await flow({ nodes: [{ id: 'a' }, { id: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    const model = recordingModel(turn([call.finish('first node')]), turn([call.finish('Alice owns it.')]));
    const run = await rt.start(loaded, { input: { text: 'who owns it?' }, model });
    expect(run).toMatchObject({ status: 'completed', reply: 'Alice owns it.' });
    expect((await rt.status(run.runId)).reply).toBe('Alice owns it.');
    const completed = ofType(await eventsOf(rt, run.runId), 'run.completed');
    expect(completed[0]).toMatchObject({ reply: 'Alice owns it.' });
  });

  it('a suspended or failed run has reply null; a blank finish summary gives null', async () => {
    const rt = runtime();
    const loaded = await flow({ nodes: [{ id: 'a' }] });
    const asked = await rt.start(loaded, {
      input: { text: 'x' },
      model: recordingModel(turn([call.ask('Which one?')])),
    });
    expect(asked).toMatchObject({ status: 'suspended', reply: null });
    const failed = await rt.start(loaded, {
      input: { text: 'x' },
      model: recordingModel(turn([call.fail('cannot')])),
    });
    expect(failed).toMatchObject({ status: 'failed', reply: null });
    const bare = await rt.start(loaded, {
      input: { text: 'x' },
      model: recordingModel(turn([call.finish('  ')])),
    });
    expect(bare).toMatchObject({ status: 'completed', reply: null });
  });

  it('answer: text ends the node on a text-only turn once required outputs are written; the text is the reply', async () => {
    const rt = runtime();
    const loaded = await flow({
      nodes: [
        {
          id: 'talk',
          answer: 'text',
          outputs: { owner: { required: true, sources: ['model'] } },
        },
      ],
    });
    const model = recordingModel(
      { calls: [], text: 'Let me think.' }, // a required output is missing: still a stall
      turn([call.output('owner', 'Alice', 'model')]),
      { calls: [], text: '  Alice owns the printer ticket.  ' },
    );
    const run = await rt.start(loaded, { input: { text: 'who owns the printer ticket?' }, model });
    expect(run).toMatchObject({
      status: 'completed',
      reply: 'Alice owns the printer ticket.',
      outputs: { talk: { owner: 'Alice' } },
    });
    expect(story(await eventsOf(rt, run.runId))).toContain('stall 1/5');
    expect(model.requests[0]?.system).toContain('plain text');
  });

  it('without answer: text a text-only turn is a stall, as before, and the prompt says nothing of it', async () => {
    const rt = runtime();
    const loaded = await flow({ nodes: [{ id: 'talk' }] });
    const model = recordingModel({ calls: [], text: 'Alice.' }, turn([call.finish('Alice.')]));
    const run = await rt.start(loaded, { input: { text: 'who?' }, model });
    expect(run).toMatchObject({ status: 'completed', reply: 'Alice.' });
    const events = await eventsOf(rt, run.runId);
    expect(ofType(events, 'react.no_tool_calls')).toHaveLength(1);
    expect(model.requests[0]?.system).not.toContain('plain text');
  });

  it('an empty text turn with answer: text is a stall, not an answer', async () => {
    const rt = runtime();
    const loaded = await flow({ nodes: [{ id: 'talk', answer: 'text' }] });
    const model = recordingModel({ calls: [], text: '   ' }, { calls: [], text: 'Done.' });
    const run = await rt.start(loaded, { input: { text: 'x' }, model });
    expect(run).toMatchObject({ status: 'completed', reply: 'Done.' });
    expect(ofType(await eventsOf(rt, run.runId), 'react.no_tool_calls')).toHaveLength(1);
  });
});
