import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { RunSummary } from '../../src/records/summary.js';
import { scriptedModel, type ScriptedTurn } from '../../src/model/scripted.js';
import type { ConversationMessage, ModelClient, ModelRequest } from '../../src/model/model.js';
import { MAX_MESSAGE_CHARS, MAX_PENDING_MESSAGES } from '../../src/engine/steering.js';
import { call, eventsOf, flow, makeRuntime, ofType, sqliteUrl, toolKit, turn } from './helpers.js';

/**
 * A model that records every request and holds each call whose index (the run's model call index) is in
 * `holds` until released: a steering message sent meanwhile is sent "while the model is called".
 */
function heldModel(
  holds: number[],
  ...turns: ScriptedTurn[]
): ModelClient & { requests: ModelRequest[]; reached(at: number): Promise<void>; release(at: number): void } {
  const inner = scriptedModel({ turns });
  const requests: ModelRequest[] = [];
  const gates = new Map(
    holds.map((at) => {
      let arrive: () => void = () => undefined;
      let open: () => void = () => undefined;
      const reached = new Promise<void>((resolve) => (arrive = resolve));
      const gate = new Promise<void>((resolve) => (open = resolve));
      return [at, { reached, arrive, gate, open }] as const;
    }),
  );
  return {
    id: 'held',
    requests,
    reached: (at) => gates.get(at)?.reached ?? Promise.resolve(),
    release: (at) => gates.get(at)?.open(),
    async call(request, context) {
      requests.push({ ...request, messages: [...request.messages] });
      const held = gates.get(context.callIndex);
      if (held) {
        held.arrive();
        await held.gate;
      }
      return inner.call(request, context);
    },
  };
}

/** The user messages of a request that are exactly `text` (a steering message stands alone). */
function userSaid(request: ModelRequest | undefined, text: string): ConversationMessage[] {
  return (request?.messages ?? []).filter(
    (m) => m.role === 'user' && typeof m.content === 'string' && m.content.includes(text),
  );
}

const saveFlow = () =>
  flow({
    tools: { save: { write: true, params: { name: { source: 'user' } } } },
    nodes: [{ id: 'work', tools: ['lookup', 'save'] }],
  });

describe('steering a running run', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  const rt = (store: string, options: { clock?: () => number; leaseMs?: number } = {}): Runtime => {
    const runtime = makeRuntime(toolKit(), { store, ...options });
    runtimes.push(runtime);
    return runtime;
  };

  for (const store of ['memory', 'sqlite']) {
    it(`a message sent while the model is called is in the next request, the trace and the user's words (${store})`, async () => {
      const runtime = rt(store === 'memory' ? 'memory' : sqliteUrl());
      const model = heldModel(
        [0],
        turn([call.tool('lookup', { id: 1 })]),
        turn([call.tool('save', { name: 'card-7' })]),
        turn([call.approval('save', 'save card-7')]),
      );
      let runId = '';
      const done = runtime.start(await saveFlow(), {
        input: { text: 'save the customer' },
        model,
        onAccepted: (s) => (runId = s.runId),
      });
      await model.reached(0);
      const sent = await runtime.say(runId, 'use the other card: card-7', { who: 'olivia' });
      expect(sent).toMatchObject({ runId, seq: 1, text: 'use the other card: card-7', who: 'olivia' });
      expect(sent.messageId).toMatch(/^msg_[0-9a-f]{20}$/);
      model.release(0);
      const summary = await done;
      // Not in the request being answered when it was sent; in the next one, once, as the user's words.
      expect(userSaid(model.requests[0], 'card-7')).toEqual([]);
      expect(userSaid(model.requests[1], 'use the other card: card-7')).toHaveLength(1);
      expect(userSaid(model.requests[2], 'use the other card: card-7')).toHaveLength(1);
      const events = await eventsOf(runtime, runId);
      expect(ofType(events, 'run.message')).toMatchObject([
        {
          nodeId: 'work',
          round: 2,
          messageId: sent.messageId,
          messageSeq: 1,
          text: 'use the other card: card-7',
          who: 'olivia',
          acceptedAt: sent.at,
        },
      ]);
      // Read at the start of round 2, before its model call.
      const at = events.findIndex((e) => e.type === 'run.message');
      expect(events[at - 1]).toMatchObject({ type: 'react.round', round: 2 });
      expect(events.slice(at).find((e) => e.type === 'model.response')).toMatchObject({ round: 2 });
      // `source: user` holds for a value only the steering message said.
      expect(summary.status).toBe('suspended');
      expect(summary.suspension?.pending).toMatchObject({
        tool: 'save',
        userProvenance: { name: 'use the other card: card-7' },
      });
    });
  }

  it('a suspended run keeps the message and reads it once it goes on', async () => {
    const runtime = rt(sqliteUrl());
    const model = heldModel(
      [],
      turn([call.tool('save', { name: 'a' })]),
      turn([call.approval('save')]),
      turn([call.tool('lookup', { id: 2 })]),
      turn([call.finish()]),
    );
    const suspended = await runtime.start(await saveFlow(), { input: { text: 'save a' }, model });
    expect(suspended.status).toBe('suspended');
    await runtime.say(suspended.runId, 'after that, look up item 2');
    // Kept, not delivered: the run still waits for the person's decision.
    expect((await runtime.status(suspended.runId)).status).toBe('suspended');
    expect(model.requests).toHaveLength(2);
    const done = await runtime.reject(suspended.runId, { model });
    expect(done.status).toBe('completed');
    expect(userSaid(model.requests[2], 'after that, look up item 2')).toHaveLength(1);
    expect(userSaid(model.requests[3], 'after that, look up item 2')).toHaveLength(1);
    expect(ofType(await eventsOf(runtime, suspended.runId), 'run.message')).toHaveLength(1);
  });

  it('refuses an empty, too long or unknown-run message, one beyond the pending limit, and any to an ended run', async () => {
    const runtime = rt('memory');
    const suspended = await runtime.start(await saveFlow(), {
      input: { text: 'x' },
      model: scriptedModel({
        turns: [turn([call.tool('save', { name: 'x' })]), turn([call.approval('save')])],
      }),
    });
    const id = suspended.runId;
    await expect(runtime.say(id, '  ')).rejects.toMatchObject({ code: 'REQUEST_INVALID' });
    await expect(runtime.say(id, 'x'.repeat(MAX_MESSAGE_CHARS + 1))).rejects.toMatchObject({
      code: 'MESSAGE_TOO_LONG',
      message: `the message has ${MAX_MESSAGE_CHARS + 1} characters; at most ${MAX_MESSAGE_CHARS} are taken`,
    });
    await expect(runtime.say('run_nope', 'hi')).rejects.toMatchObject({ code: 'RUN_NOT_FOUND' });
    for (let n = 1; n <= MAX_PENDING_MESSAGES; n += 1) await runtime.say(id, `note ${n}`);
    await expect(runtime.say(id, 'one more')).rejects.toMatchObject({ code: 'TOO_MANY_MESSAGES' });
    await runtime.cancel(id);
    await expect(runtime.say(id, 'too late')).rejects.toMatchObject({
      code: 'RUN_ENDED',
      message: `run ${id} has ended; it takes no more messages`,
    });
  });

  it('a driver that dies after reading a message and before its round commits loses nothing: the next one reads it once', async () => {
    const db = sqliteUrl();
    // The first driver's clock is an hour behind: to the second one, its lease has always expired.
    const first = rt(db, { clock: () => Date.now() - 3_600_000, leaseMs: 1000 });
    const turns = [
      turn([call.tool('lookup', { id: 1 })]),
      turn([call.tool('save', { name: 'card-7' })]),
      turn([call.approval('save')]),
    ];
    // Round 1's call is held while the message is sent; round 2 reads it and its call never returns.
    const dying = heldModel([0, 1], ...turns);
    let runId = '';
    const abandoned: Promise<RunSummary | null> = first
      .start(await saveFlow(), { input: { text: 'x' }, model: dying, onAccepted: (s) => (runId = s.runId) })
      .catch(() => null);
    await dying.reached(0);
    await first.say(runId, 'call it card-7');
    dying.release(0);
    await dying.reached(1);
    expect(userSaid(dying.requests[1], 'call it card-7')).toHaveLength(1);
    expect(ofType(await eventsOf(first, runId), 'run.message')).toEqual([]);
    // Another process takes the run over: round 2 is asked again and reads the message, once.
    const next = heldModel([], ...turns);
    const summary = await rt(db).resume(runId, { model: next });
    expect(summary.status).toBe('suspended');
    expect(next.requests.map((r) => userSaid(r, 'call it card-7').length)).toEqual([1, 1]);
    expect(summary.suspension?.pending).toMatchObject({ userProvenance: { name: 'call it card-7' } });
    dying.release(1);
    await abandoned;
    const events = await eventsOf(first, runId);
    expect(ofType(events, 'run.message')).toHaveLength(1);
    expect(ofType(events, 'model.response').map((e) => e.round)).toEqual([1, 2, 3]);
  });
});
