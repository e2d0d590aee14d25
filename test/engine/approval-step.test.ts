import { describe, expect, it } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import { checkDecision, recordVote, type ApprovalDecision } from '../../src/engine/approval-step.js';
import { newRun } from '../../src/engine/new-run.js';
import { RunSession } from '../../src/engine/session.js';
import { loadFlow } from '../../src/flow/load.js';
import type { ApprovalPending, ApproverVote, PendingItem } from '../../src/records/pending.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { RunRecord } from '../../src/store/store.js';
import { EventHub } from '../../src/trace/event-hub.js';

/**
 * A person's decision on a pending write checked against its tool's approval policy before anything
 * changes (docs/approvals.md, "Several approvers"), and a vote that is not yet the last one recorded
 * on the pending item while the run keeps waiting.
 */

const RUN = 'run_votes';

async function flowWith(approval: Record<string, unknown> | undefined) {
  const tools = { refund: { write: true, ...(approval ? { approval } : {}) } };
  return (
    await loadFlow(
      { id: 'refunds', locale: 'en', nodes: [{ id: 'work', tools: ['refund'] }], tools },
      { knownTools: ['refund'] },
    )
  ).flow;
}

/** A stored run of the flow (not suspended yet), started by `startedBy` in a thread started by `threadStarter`. */
async function createRecord(
  store: MemoryStore,
  approval: Record<string, unknown> | undefined,
  who: { startedBy?: string; threadStartedBy?: string } = {},
): Promise<RunRecord> {
  const flow = await flowWith(approval);
  const { run, events } = newRun(RUN, {
    flow,
    flowDir: null,
    input: { text: 'refund o1' },
    model: null,
    parentRunId: null,
    rootRunId: null,
    tenant: null,
    lease: { owner: 'me', expiresAt: Date.now() + 60_000 },
    ...(who.startedBy ? { startedBy: who.startedBy } : {}),
  });
  if (who.threadStartedBy) run.state.run.threadStartedBy = who.threadStartedBy;
  return store.createRun(run, events);
}

function pending(extra: Partial<ApprovalPending> = {}): PendingItem {
  return {
    tool: 'refund',
    args: { orderId: 'o1', amount: 900 },
    summary: 'refund o1',
    id: 'pnd_a',
    ...extra,
  };
}

function vote(who: string, role: string | null = 'operator'): ApproverVote {
  return { who, role, at: '2026-01-01T00:00:00.000Z', comment: null };
}

function decision(extra: Partial<ApprovalDecision> = {}): ApprovalDecision {
  return { decision: 'approved', who: 'olivia', role: 'operator', comment: null, ...extra };
}

/** The RunError `fn` throws. */
function refusal(fn: () => unknown): RunError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunError) return error;
    throw error;
  }
  throw new Error('expected a RunError');
}

const TWO_OPERATORS = { approvers: { count: 2, roles: ['operator'] } };

describe('checkDecision: one approver', () => {
  it('a tool without a policy: the approval settles it, naming the person', async () => {
    const record = await createRecord(new MemoryStore(), undefined);
    expect(checkDecision(record, pending(), decision())).toEqual({ final: true, approvers: ['olivia'] });
    expect(checkDecision(record, pending(), decision({ who: null }))).toEqual({ final: true, approvers: [] });
  });

  it('a question (no tool) is settled by its answer whatever the role', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    const question: PendingItem = { question: 'which order?', options: null, id: 'pnd_q' };
    expect(checkDecision(record, question, decision({ role: 'viewer', who: 'vic' }))).toEqual({
      final: true,
      approvers: ['vic'],
    });
  });

  it('edited arguments are allowed where one person approves', async () => {
    const record = await createRecord(new MemoryStore(), { approvers: { count: 1 } });
    expect(checkDecision(record, pending(), decision({ args: { orderId: 'o1', amount: 50 } }))).toEqual({
      final: true,
      approvers: ['olivia'],
    });
  });

  it('the starter of the run may approve alone', async () => {
    const record = await createRecord(new MemoryStore(), undefined, { startedBy: 'olivia' });
    expect(checkDecision(record, pending(), decision())).toEqual({ final: true, approvers: ['olivia'] });
  });
});

describe('checkDecision: roles', () => {
  it('refuses a role the policy does not allow, for approving and for rejecting', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    for (const d of ['approved', 'rejected'] as const) {
      const error = refusal(() =>
        checkDecision(record, pending(), decision({ decision: d, who: 'vic', role: 'viewer' })),
      );
      expect(error.code).toBe('APPROVER_REFUSED');
      expect(error.runId).toBe(RUN);
      expect(error.message).toBe(
        `run ${RUN}: vic (role viewer) may not decide refund; the policy allows operator`,
      );
    }
  });

  it('names "this person" when the refused decision has no name', async () => {
    const record = await createRecord(new MemoryStore(), {
      approvers: { count: 1, roles: ['admin', 'operator'] },
    });
    const error = refusal(() => checkDecision(record, pending(), decision({ who: null, role: 'viewer' })));
    expect(error.message).toBe(
      `run ${RUN}: this person (role viewer) may not decide refund; the policy allows admin, operator`,
    );
  });

  it('does not check roles when the decision has none (a local store)', async () => {
    const record = await createRecord(new MemoryStore(), { approvers: { count: 1, roles: ['admin'] } });
    expect(checkDecision(record, pending(), decision({ role: null }))).toEqual({
      final: true,
      approvers: ['olivia'],
    });
    expect(checkDecision(record, pending(), decision({ role: undefined }))).toEqual({
      final: true,
      approvers: ['olivia'],
    });
  });

  it("the pending item's own approvers win over the flow's policy", async () => {
    const record = await createRecord(new MemoryStore(), { approvers: { count: 1, roles: ['operator'] } });
    const item = pending({ approvers: { count: 1, roles: ['admin'] } });
    expect(refusal(() => checkDecision(record, item, decision())).code).toBe('APPROVER_REFUSED');
    expect(checkDecision(record, item, decision({ role: 'admin', who: 'ada' }))).toEqual({
      final: true,
      approvers: ['ada'],
    });
  });
});

describe('checkDecision: several approvers', () => {
  it('the first approval is recorded as a vote and the run keeps waiting', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    expect(checkDecision(record, pending(), decision({ comment: 'fine' }))).toEqual({
      final: false,
      votes: [{ who: 'olivia', role: 'operator', at: '', comment: 'fine' }],
    });
  });

  it('the last approval needed settles it, listing everyone in order', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    const item = pending({ approvedBy: [vote('olivia')] });
    expect(checkDecision(record, item, decision({ who: 'oscar' }))).toEqual({
      final: true,
      approvers: ['olivia', 'oscar'],
    });
  });

  it('three approvers: the second vote still waits and carries the first', async () => {
    const record = await createRecord(new MemoryStore(), { approvers: { count: 3 } });
    const item = pending({ approvedBy: [vote('olivia')] });
    const step = checkDecision(record, item, decision({ who: 'oscar', role: null }));
    expect(step).toEqual({
      final: false,
      votes: [vote('olivia'), { who: 'oscar', role: null, at: '', comment: null }],
    });
  });

  it('a rejection settles it at once, naming those who had approved', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    const item = pending({ approvedBy: [vote('olivia')] });
    expect(checkDecision(record, item, decision({ decision: 'rejected', who: 'oscar' }))).toEqual({
      final: true,
      approvers: ['olivia'],
    });
    // A rejection is not held to "another person" or "not the starter".
    expect(checkDecision(record, item, decision({ decision: 'rejected', who: 'olivia' }))).toEqual({
      final: true,
      approvers: ['olivia'],
    });
  });

  it('refuses the same person approving again: RUN_CONFLICT', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    const error = refusal(() => checkDecision(record, pending({ approvedBy: [vote('olivia')] }), decision()));
    expect(error.code).toBe('RUN_CONFLICT');
    expect(error.message).toBe(`run ${RUN}: olivia has already approved refund; another person must`);
  });

  it('refuses the person who started the run, and the one who started its thread', async () => {
    const byRun = await createRecord(new MemoryStore(), TWO_OPERATORS, { startedBy: 'sam' });
    const error = refusal(() => checkDecision(byRun, pending(), decision({ who: 'sam' })));
    expect(error.code).toBe('APPROVER_REFUSED');
    expect(error.message).toBe(
      `run ${RUN}: sam started the run and cannot count as one of the 2 approvers of refund`,
    );
    const byThread = await createRecord(new MemoryStore(), TWO_OPERATORS, { threadStartedBy: 'tess' });
    expect(refusal(() => checkDecision(byThread, pending(), decision({ who: 'tess' }))).message).toBe(
      `run ${RUN}: tess started its thread and cannot count as one of the 2 approvers of refund`,
    );
  });

  it('refuses a nameless approval: REQUEST_INVALID', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    const error = refusal(() => checkDecision(record, pending(), decision({ who: null })));
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toBe(
      `run ${RUN}: refund needs 2 different approvers, and this approval names nobody; expected who approves (HTTP: a token with a name; CLI: env USER; library: the who option)`,
    );
  });

  it('refuses edited arguments, before looking at the name', async () => {
    const record = await createRecord(new MemoryStore(), TWO_OPERATORS);
    const error = refusal(() =>
      checkDecision(record, pending(), decision({ who: null, args: { amount: 5 } })),
    );
    expect(error.code).toBe('REQUEST_INVALID');
    expect(error.message).toBe(
      `run ${RUN}: refund needs 2 approvers, who approve the call as the model made it; reject it with a comment instead of editing its arguments`,
    );
  });

  it("takes the count from the pending item when it has one (the flow's policy may have changed)", async () => {
    const record = await createRecord(new MemoryStore(), undefined);
    expect(checkDecision(record, pending({ approvers: { count: 2 } }), decision())).toEqual({
      final: false,
      votes: [{ who: 'olivia', role: 'operator', at: '', comment: null }],
    });
  });
});

/** A suspended run waiting for `item`; its session. */
async function suspendedSession(item: PendingItem): Promise<{ store: MemoryStore; session: RunSession }> {
  const store = new MemoryStore();
  const created = await createRecord(store, TWO_OPERATORS);
  const record = await store.commit({
    runId: RUN,
    expectedVersion: created.version,
    patch: { status: 'suspended', suspension: { kind: 'APPROVAL', pending: item } },
  });
  return { store, session: await RunSession.open(store, new EventHub(), record) };
}

describe('recordVote', () => {
  it('stamps the new vote, keeps the run waiting with its lease released, and traces approval.voted', async () => {
    const item = pending({ approvers: { count: 3, roles: ['operator'] } });
    const { store, session } = await suspendedSession(item);
    const now = new Date('2026-03-04T05:06:07.000Z');
    const earlier = vote('olivia');
    const summary = await recordVote(
      session,
      item,
      [earlier, { who: 'oscar', role: 'operator', at: '', comment: 'ok' }],
      now,
    );
    const stored = (await store.getRun(RUN)) as RunRecord;
    const expected = [earlier, { who: 'oscar', role: 'operator', at: now.toISOString(), comment: 'ok' }];
    expect(stored.status).toBe('suspended');
    expect(stored.leaseOwner).toBeNull();
    expect(stored.leaseExpiresAt).toBeNull();
    expect(stored.suspension?.pending).toMatchObject({ id: 'pnd_a', approvedBy: expected });
    expect(summary.status).toBe('suspended');
    expect(summary.suspension?.pending).toMatchObject({ approvedBy: expected });
    const voted = (await store.events(RUN, 0)).filter((e) => e.type === 'approval.voted');
    expect(voted).toHaveLength(1);
    expect(voted[0]).toMatchObject({
      type: 'approval.voted',
      nodeId: 'work',
      tool: 'refund',
      who: 'oscar',
      role: 'operator',
      approvals: 2,
      count: 3,
    });
  });

  it('marks the matching entry of items too, and only that one', async () => {
    const item = pending({ approvers: { count: 2 } });
    const other = pending({ id: 'pnd_b', tool: 'refund', args: { orderId: 'o2', amount: 1 } });
    const store = new MemoryStore();
    const created = await createRecord(store, TWO_OPERATORS);
    const record = await store.commit({
      runId: RUN,
      expectedVersion: created.version,
      patch: {
        status: 'suspended',
        suspension: {
          kind: 'APPROVAL',
          pending: item,
          items: [
            { kind: 'APPROVAL', nodeId: 'a', pending: item },
            { kind: 'APPROVAL', nodeId: 'b', pending: other },
          ],
        },
      },
    });
    const session = await RunSession.open(store, new EventHub(), record);
    await recordVote(session, item, [{ who: 'olivia', role: null, at: '', comment: null }], new Date(0));
    const items = (await store.getRun(RUN))?.suspension?.items ?? [];
    expect(items.map((i) => ('approvedBy' in i.pending ? i.pending.approvedBy?.length : undefined))).toEqual([
      1,
      undefined,
    ]);
  });

  it('without a count on the item, counts the votes given', async () => {
    const item = pending();
    const { store, session } = await suspendedSession(item);
    await recordVote(session, item, [{ who: 'olivia', role: null, at: '', comment: null }], new Date(0));
    const voted = (await store.events(RUN, 0)).find((e) => e.type === 'approval.voted');
    expect(voted).toMatchObject({ approvals: 1, count: 1, role: null });
  });

  it('throws for a run that has no approval to vote on', async () => {
    const store = new MemoryStore();
    const record = await createRecord(store, TWO_OPERATORS);
    const session = await RunSession.open(store, new EventHub(), record);
    await expect(recordVote(session, pending(), [vote('olivia')], new Date(0))).rejects.toThrow(
      `run ${RUN} has no approval to vote on`,
    );
    const question: PendingItem = { question: 'q', options: null, id: 'pnd_q' };
    const { session: asked } = await suspendedSession(question);
    await expect(recordVote(asked, question, [vote('olivia')], new Date(0))).rejects.toThrow(
      'has no approval to vote on',
    );
  });
});
