import { afterEach, describe, expect, it } from 'vitest';
import { harness, ORDER_STORY, traceOf, type Harness } from './harness.js';
import type { Play } from '../../src/testing/fake-model/server.js';

const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.close();
});
const noWait = { sleep: () => Promise.resolve(), random: () => 0 };

/** The order story, with a provider outage (529/500 on every attempt) while `outage.on` is set. */
function withOutage(outage: { on: boolean; at: number }): Play {
  return (i) =>
    outage.on && i >= outage.at ? { fault: 'server-error' } : (ORDER_STORY[i] ?? { text: 'no more turns' });
}

describe.each(['anthropic', 'openai', 'qwen'] as const)('retry through %s', (kind) => {
  it('continues a run that failed on a provider outage after its write, asks the same round again, and never writes twice', async () => {
    const outage = { on: true, at: 4 };
    const h = await harness(kind, withOutage(outage), { model: { clock: noWait } });
    open.push(h);
    const first = await h.runtime.start(h.flow, { input: { text: 'Order 2 of item 7' } });
    const failed = await h.runtime.approve(first.runId, {});
    expect(failed).toMatchObject({ status: 'failed', reason: 'MODEL_FAILED', failedNode: 'order' });
    expect(h.orders).toHaveLength(1);
    const refused = h.fake.requests.at(-1)!;

    await expect(h.runtime.approve(first.runId, {})).rejects.toMatchObject({ code: 'RUN_CONFLICT' });
    outage.on = false;
    const done = await h.runtime.retry(first.runId, { who: 'ops' });
    expect(done).toMatchObject({ status: 'completed', outputs: { order: { orderId: 'o-1' } } });
    expect(done.reason).toBeUndefined();
    expect(h.orders).toHaveLength(1);
    // The same round, with the same conversation, asked again.
    expect(h.fake.requests.at(-1)!.body.messages).toEqual(refused.body.messages);
    expect(h.fake.refusals()).toEqual([]);

    const events = await traceOf(h.runtime, first.runId);
    const retried = events.filter((e) => e.type === 'run.retried');
    expect(retried).toMatchObject([{ nodeId: 'order', reason: 'MODEL_FAILED', who: 'ops' }]);
    expect(String(retried[0]!.message)).toMatch(/HTTP 5\d\d/);
    const rounds = events.filter((e) => e.type === 'react.round').map((e) => e.round);
    expect(rounds).toEqual([1, 2, 3, 4, 5, 5]);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed' });
    await expect(h.runtime.retry(first.runId)).rejects.toThrow(
      /is completed; only a failed run can be retried/,
    );
  });
});

describe('retry after the model gave up', () => {
  it('starts the round and stall counts afresh and tells the model, in a user message, why the node is retried', async () => {
    const giveUp = {
      id: 'call_0',
      name: 'builtin_node_fail',
      args: JSON.stringify({ reason: 'I do not know the item' }),
    };
    const turns = [{ calls: [giveUp] }, ...ORDER_STORY];
    const h = await harness('anthropic', (i) => turns[i] ?? { text: 'no more turns' });
    open.push(h);
    const failed = await h.runtime.start(h.flow, { input: { text: 'Order 2 of item 7' } });
    expect(failed).toMatchObject({
      status: 'failed',
      reason: 'FAILED_BY_MODEL',
      message: 'I do not know the item',
    });

    const suspended = await h.runtime.retry(failed.runId);
    expect(suspended).toMatchObject({ status: 'suspended', suspension: { kind: 'APPROVAL' } });
    const afterRetry = h.fake.requests[1]!.body.messages as {
      role: string;
      content: { type: string; text?: string }[];
    }[];
    const last = afterRetry.at(-1)!;
    expect(last.role).toBe('user');
    const texts = last.content.filter((b) => b.type === 'text').map((b) => b.text ?? '');
    expect(texts.join('\n')).toContain(
      'This node failed with FAILED_BY_MODEL (I do not know the item) and is being retried',
    );
    expect(texts.at(-1)).toBe('Required outputs not written yet: orderId');

    const done = await h.runtime.approve(failed.runId, {});
    expect(done.status).toBe('completed');
    const rounds = (await traceOf(h.runtime, failed.runId))
      .filter((e) => e.type === 'react.round')
      .map((e) => e.round);
    expect(rounds).toEqual([1, 1, 2, 3, 4, 5]);
    expect(h.fake.refusals()).toEqual([]);
  });

  it('refuses a run that is not failed, changing nothing', async () => {
    const h = await harness('openai', (i) => ORDER_STORY[i] ?? { text: 'no more turns' });
    open.push(h);
    const suspended = await h.runtime.start(h.flow, { input: { text: 'Order 2 of item 7' } });
    const before = await traceOf(h.runtime, suspended.runId);
    await expect(h.runtime.retry(suspended.runId)).rejects.toThrow(
      /is suspended; only a failed run can be retried/,
    );
    expect(await traceOf(h.runtime, suspended.runId)).toEqual(before);
  });
});
