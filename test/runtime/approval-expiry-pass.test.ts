/**
 * Approval deadlines (src/runtime/approval-expiry.ts, docs/notifications.md "Approval expiry") fired
 * by the expiry pass of an in-process runtime on the memory store, with an injected clock: the
 * deadline's boundary, the rejection the model reads, a claim left without its rejection, a person
 * who decided first, escalation once, and the poll interval's setting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  EXPIRY_POLL_MS,
  EXPIRY_WHO,
  expiryPollMs,
  startExpiryTimer,
} from '../../src/runtime/approval-expiry.js';
import type { ExpiryTimer } from '../../src/runtime/approval-expiry.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import type { RunRecord } from '../../src/store/store.js';
import { call, eventsOf, flow, makeRuntime, ofType, recordingModel, toolKit, turn } from './helpers.js';

const T0 = Date.parse('2026-05-04T09:00:00.000Z');
const HOUR = 3_600_000;

const runtimes: Runtime[] = [];
const timers: ExpiryTimer[] = [];
afterEach(async () => {
  for (const timer of timers.splice(0)) timer.stop();
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

/** A run suspended for the approval of `save`; `approved`: the model calls it again once approved. */
async function suspended(approval: Record<string, unknown> | undefined, approved = false) {
  const kit = toolKit();
  const clock = { now: T0 };
  const rt = makeRuntime(kit, { clock: () => clock.now });
  runtimes.push(rt);
  const loaded = await flow({
    tools: { save: { write: true, ...(approval ? { approval } : {}) } },
    nodes: [{ id: 'main', tools: ['save'] }],
  });
  const model = recordingModel(
    turn([call.tool('save', { name: 'a' })]),
    turn([call.approval('save', 'save a')]),
    ...(approved ? [turn([call.tool('save', { name: 'a' })])] : []),
    turn([call.finish(approved ? 'saved' : 'gave up')]),
  );
  const started = await rt.start(loaded, { input: { text: 'save a' }, model });
  expect(started.status).toBe('suspended');
  // A pass every 10 minutes: the tests run it with `tick`.
  const timer = startExpiryTimer(rt, { intervalMs: 600_000, logger: silentLogger });
  timers.push(timer);
  await timer.tick();
  return {
    rt,
    kit,
    clock,
    model,
    timer,
    runId: started.runId,
    pending: started.suspension?.pending as { id: string; expiresAt?: string },
  };
}

const approvalEvents = async (rt: Runtime, runId: string) =>
  (await eventsOf(rt, runId)).filter((e) => e.type.startsWith('approval.'));

describe('the expiry pass, onExpiry: reject', () => {
  it('fires at the deadline itself, not a millisecond before, and rejects as a person would', async () => {
    const { rt, kit, clock, model, timer, runId, pending } = await suspended({ expiresAfter: '1h' });
    expect(pending.expiresAt).toBe('2026-05-04T10:00:00.000Z');
    clock.now = T0 + HOUR - 1;
    await timer.tick();
    expect(await approvalEvents(rt, runId)).toEqual([]);
    expect((await rt.status(runId)).status).toBe('suspended');

    clock.now = T0 + HOUR;
    await timer.tick();
    const status = await rt.status(runId);
    expect(status.status).toBe('completed');
    expect(kit.count('save')).toBe(0);
    const events = await eventsOf(rt, runId);
    const expired = ofType(events, 'approval.expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]).toMatchObject({
      nodeId: 'main',
      pendingId: pending.id,
      tool: 'save',
      expiresAt: '2026-05-04T10:00:00.000Z',
      ts: '2026-05-04T10:00:00.000Z',
    });
    const resumed = ofType(events, 'run.resumed');
    expect(resumed.at(-1)).toMatchObject({ decision: 'rejected', who: EXPIRY_WHO });
    // the model reads the rejection with the reason, in the flow's language
    const last = model.requests.at(-1)?.messages ?? [];
    const answer = last.find((m) => m.role === 'tool' && m.content.includes('APPROVAL_DENIED'));
    expect(answer?.role === 'tool' && answer.content).toContain(
      'no one decided within 1h: the approval expired and was rejected automatically',
    );
  });

  it('rejects a claim left without its rejection (a crash between the two) without tracing it again', async () => {
    const { rt, clock, timer, runId, pending } = await suspended({ expiresAfter: '30m' });
    // another process claimed it (its mark and event) and died before rejecting
    const store = await rt.db();
    const record = (await store.getRun(runId)) as RunRecord;
    const suspension = structuredClone(record.suspension);
    (suspension?.pending as Record<string, unknown>).expiredAt = '2026-05-04T09:30:00.000Z';
    await store.commit({ runId, expectedVersion: record.version, patch: { suspension } });
    clock.now = T0 + HOUR;
    await timer.tick();
    expect((await rt.status(runId)).status).toBe('completed');
    expect(await approvalEvents(rt, runId)).toEqual([]);
    expect(ofType(await eventsOf(rt, runId), 'run.resumed').at(-1)).toMatchObject({
      decision: 'rejected',
      who: 'expiry',
    });
    expect(pending.id).toMatch(/^pnd_[0-9a-f]{16}$/);
  });

  it('leaves an approval a person decided before the pass alone', async () => {
    const { rt, kit, clock, timer, runId } = await suspended({ expiresAfter: '1h' }, true);
    clock.now = T0 + 2 * HOUR;
    const done = await rt.approve(runId, { who: 'ops' });
    expect(done.status).toBe('completed');
    await timer.tick();
    expect(await approvalEvents(rt, runId)).toEqual([]);
    expect(kit.count('save')).toBe(1);
  });

  it('never fires an approval without a deadline', async () => {
    const { rt, clock, timer, runId, pending } = await suspended(undefined);
    expect(pending.expiresAt).toBeUndefined();
    clock.now = T0 + 1000 * HOUR;
    await timer.tick();
    expect((await rt.status(runId)).status).toBe('suspended');
    expect(await approvalEvents(rt, runId)).toEqual([]);
  });
});

describe('the expiry pass, onExpiry: escalate', () => {
  it('marks and traces the escalation once; the approval keeps waiting and a person decides it', async () => {
    const { rt, kit, clock, timer, runId, pending } = await suspended(
      {
        expiresAfter: '90s',
        onExpiry: 'escalate',
        escalateTo: ['finance', 'ops'],
      },
      true,
    );
    expect(pending.expiresAt).toBe('2026-05-04T09:01:30.000Z');
    clock.now = T0 + 90_000;
    await timer.tick();
    clock.now = T0 + HOUR;
    await timer.tick();
    const events = await approvalEvents(rt, runId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'approval.escalated',
      pendingId: pending.id,
      escalateTo: ['finance', 'ops'],
      ts: '2026-05-04T09:01:30.000Z',
    });
    const status = await rt.status(runId);
    expect(status.status).toBe('suspended');
    expect(status.suspension?.pending).toMatchObject({ escalatedAt: '2026-05-04T09:01:30.000Z' });
    expect(status.suspension?.pending).not.toHaveProperty('expiredAt');
    expect((await rt.approve(runId, { who: 'lead' })).status).toBe('completed');
    expect(kit.count('save')).toBe(1);
  });
});

describe('expiryPollMs', () => {
  it('is 5000 ms by default, also for an empty setting', () => {
    expect(EXPIRY_POLL_MS).toBe(5000);
    expect(expiryPollMs({})).toBe(5000);
    expect(expiryPollMs({ AGENT_RUNTIME_EXPIRY_POLL_MS: '' })).toBe(5000);
  });

  it('takes a whole number of ms from 50, up to nine digits', () => {
    expect(expiryPollMs({ AGENT_RUNTIME_EXPIRY_POLL_MS: '50' })).toBe(50);
    expect(expiryPollMs({ AGENT_RUNTIME_EXPIRY_POLL_MS: '0060' })).toBe(60);
    expect(expiryPollMs({ AGENT_RUNTIME_EXPIRY_POLL_MS: '999999999' })).toBe(999_999_999);
  });

  it('refuses anything else, quoting it', () => {
    for (const raw of ['49', '0', '-100', '1e3', '100.5', ' 100', '100ms', '1000000000', 'soon']) {
      expect(() => expiryPollMs({ AGENT_RUNTIME_EXPIRY_POLL_MS: raw }), raw).toThrow(
        `AGENT_RUNTIME_EXPIRY_POLL_MS must be a number of ms ≥ 50, not ${JSON.stringify(raw)}`,
      );
    }
  });
});
