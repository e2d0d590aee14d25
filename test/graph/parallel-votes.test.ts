import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime, type Runtime } from '../../src/index.js';
import type { CodeStepContext } from '../../src/domain/code-step.js';
import { silentLogger } from '../../src/log/logger.js';
import { startExpiryTimer } from '../../src/runtime/approval-expiry.js';
import { eventsOf, ofType, script, toolKit } from '../runtime/helpers.js';

/**
 * Several approvers with parallel branches (docs/approvals.md, "Several approvers"): a vote recorded on
 * one branch's pending item is kept when another branch's item is decided and the run drives on, so
 * the votes needed are counted across the whole wait, not lost with the other branch's commit.
 */
describe('approver votes with parallel branches', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  it("a vote on one branch's item survives the other branch being approved and driven on", async () => {
    const kit = toolKit();
    const runtime = createRuntime({ store: 'memory', tools: kit.tools, logger: false });
    runtimes.push(runtime);
    const flow = await twoSavers({ approvers: { count: 2 } });
    const started = await runtime.start(flow, { input: { text: 'save both' }, model: script(), who: 'sam' });
    expect(started.status).toBe('suspended');
    const items = started.suspension?.items ?? [];
    expect(items.map((i) => i.nodeId).sort()).toEqual(['left', 'right']);
    const idOf = (nodeId: string): string => items.find((i) => i.nodeId === nodeId)?.pending.id ?? '';
    const [left, right] = [idOf('left'), idOf('right')];
    for (const item of items) expect(item.pending).toMatchObject({ approvers: { count: 2 } });

    // Olivia approves the left item: 1 of 2, the run keeps waiting for both.
    const voted = await runtime.approve(started.runId, { expect: left, who: 'olivia' });
    expect(voted.status).toBe('suspended');
    const votedLeft = voted.suspension?.items?.find((i) => i.pending.id === left)?.pending;
    expect(votedLeft).toMatchObject({ approvedBy: [{ who: 'olivia' }] });

    // The right item gets its two votes: the run drives the right branch on and waits again for the left.
    expect((await runtime.approve(started.runId, { expect: right, who: 'olivia' })).status).toBe('suspended');
    const afterRight = await runtime.approve(started.runId, { expect: right, who: 'oscar' });
    expect(afterRight.status).toBe('suspended');
    expect(kit.calls.save?.map((a) => a.name)).toEqual(['right']);
    expect(afterRight.suspension?.items).toBeUndefined();
    expect(afterRight.suspension?.pending.id).toBe(left);
    // Olivia's vote on the left item is still there ...
    expect(afterRight.suspension?.pending).toMatchObject({ approvedBy: [{ who: 'olivia' }] });
    // ... so a second vote of hers is refused, and one more person is enough.
    await expect(runtime.approve(started.runId, { expect: left, who: 'olivia' })).rejects.toThrow(
      /olivia has already approved save/,
    );
    const done = await runtime.approve(started.runId, { expect: left, who: 'oscar' });
    expect(done.status).toBe('completed');
    expect(kit.calls.save?.map((a) => a.name).sort()).toEqual(['left', 'right']);
    const resumed = ofType(await eventsOf(runtime, started.runId), 'run.resumed').map(
      (e) => (e as unknown as { approvers?: string[] }).approvers,
    );
    expect(resumed).toEqual([
      ['olivia', 'oscar'],
      ['olivia', 'oscar'],
    ]);
  });

  it("an escalation's mark on one branch's item survives the other branch being approved: escalated once", async () => {
    const kit = toolKit();
    let now = Date.parse('2026-12-07T09:00:00Z');
    const runtime = createRuntime({ store: 'memory', tools: kit.tools, logger: false, clock: () => now });
    runtimes.push(runtime);
    const flow = await twoSavers({ expiresAfter: '1h', onExpiry: 'escalate', escalateTo: ['admin'] });
    const started = await runtime.start(flow, { input: { text: 'save both' }, model: script() });
    const items = started.suspension?.items ?? [];
    const idOf = (nodeId: string): string => items.find((i) => i.nodeId === nodeId)?.pending.id ?? '';
    const timer = startExpiryTimer(runtime, { intervalMs: 600_000, logger: silentLogger });
    try {
      await timer.tick(); // not due yet
      now += 3_600_000;
      await timer.tick(); // one item of the run per pass
      await timer.tick();
      const escalated = async () =>
        ofType(await eventsOf(runtime, started.runId), 'approval.escalated').map(
          (e) => (e as unknown as { pendingId: string }).pendingId,
        );
      expect((await escalated()).sort()).toEqual([idOf('left'), idOf('right')].sort());
      const afterRight = await runtime.approve(started.runId, { expect: idOf('right') });
      expect(afterRight.suspension?.pending).toMatchObject({
        id: idOf('left'),
        escalatedAt: '2026-12-07T10:00:00.000Z',
      });
      await timer.tick();
      expect((await escalated()).sort()).toEqual([idOf('left'), idOf('right')].sort());
    } finally {
      timer.stop();
    }
  });
});

/** plan → [left, right] → sum; left and right each call the write `save` (its policy: `approval`). */
async function twoSavers(approval: Record<string, unknown>) {
  const saver = (id: string) => ({
    id,
    tools: ['save'],
    outputs: { saved: { required: true } },
    run: async (ctx: CodeStepContext) => {
      const result = await ctx.tools.call('save', { name: id });
      return { saved: result.ok };
    },
  });
  return loadFlow(
    {
      id: 'two-savers',
      locale: 'en',
      tools: { save: { write: true, approval } },
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
}
