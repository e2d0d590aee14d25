/**
 * `onExpiry: escalate` (docs/notifications.md): past its deadline the approval keeps waiting, traced
 * once as `approval.escalated`, and only webhooks of an `escalateTo` role are told; a person then
 * decides as usual.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startExpiryTimer } from '../../../src/runtime/approval-expiry.js';
import { ticketTools } from '../fixtures.js';
import { TOKENS, quietLogger, startServer, tempDir, type TestServer } from '../helpers.js';
import { SECRET, signedWell, startReceiver, until } from './harness.js';

const FLOW = `id: tickets
locale: zh-CN
model: scripted:./turns.yaml
tools:
  ticket_create:
    write: true
    approval: { expiresAfter: 1h, onExpiry: escalate, escalateTo: [finance] }
nodes:
  - id: main
    tools: [ticket_list, ticket_create]
`;
const TURNS = `turns:
  - { calls: [{ tool: ticket_create, args: { title: printer } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: ticket_create, summary: open a ticket } }] }
  - { calls: [{ tool: ticket_create, args: { title: printer } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;

let t: TestServer | null = null;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await t?.stop();
  for (const close of closers.splice(0)) await close();
});

describe('approval expiry with onExpiry: escalate', () => {
  it('escalates once to the webhooks of the escalateTo roles; the approval still waits', async () => {
    const finance = await startReceiver(0);
    const it_ = await startReceiver(0);
    closers.push(finance.close, it_.close);
    let now = Date.parse('2026-12-07T09:00:00Z');
    const { tools, created } = ticketTools();
    const dir = await tempDir({ 'tickets.yaml': FLOW, 'turns.yaml': TURNS });
    const hook = (name: string, url: string, roles: string[]) => ({
      name,
      url,
      events: ['approval.escalated' as const],
      secret: SECRET,
      roles,
    });
    t = await startServer({
      flowsDir: dir,
      runtime: { tools, clock: () => now },
      server: {
        webhooks: [hook('finance', finance.url, ['finance']), hook('it', it_.url, ['it'])],
        webhookPollMs: 50,
      },
    });
    const started = await t.call('POST', '/v1/runs', {
      token: TOKENS.operator,
      json: { flowId: 'tickets', input: { text: 'printer is broken' } },
    });
    expect(started.status, await started.clone().text()).toBe(201);
    const { runId } = (await started.json()) as { runId: string };
    const runtime = t.runtime;
    const suspended = await until('suspended', async () => {
      const s = await runtime.status(runId);
      return s.status === 'suspended' ? s : undefined;
    });
    const pending = suspended.suspension?.pending as { id: string; expiresAt: string };
    expect(pending.expiresAt).toBe('2026-12-07T10:00:00.000Z');

    const timer = startExpiryTimer(runtime, { intervalMs: 600_000, logger: quietLogger });
    try {
      await timer.tick(); // not due yet
      const store = await runtime.db();
      expect((await store.events(runId)).filter((e) => e.type.startsWith('approval.'))).toEqual([]);
      now += 3_600_000;
      await timer.tick();
      await timer.tick(); // fired once
      const escalated = (await store.events(runId)).filter((e) => e.type === 'approval.escalated');
      expect(escalated).toHaveLength(1);
      expect(escalated[0]).toMatchObject({
        nodeId: 'main',
        pendingId: pending.id,
        tool: 'ticket_create',
        expiresAt: pending.expiresAt,
        escalateTo: ['finance'],
      });
      const after = await runtime.status(runId);
      expect(after.status).toBe('suspended');
      expect(after.suspension?.pending).toMatchObject({
        id: pending.id,
        escalatedAt: '2026-12-07T10:00:00.000Z',
      });
    } finally {
      timer.stop();
    }

    const got = await until('the finance webhook', () => Promise.resolve(finance.received[0]));
    expect(signedWell(got)).toBe(true);
    expect(JSON.parse(got.body)).toMatchObject({
      type: 'approval.escalated',
      escalateTo: ['finance'],
      run: { runId },
      pending: { id: pending.id, tool: 'ticket_create', args: { title: 'printer' } },
    });
    // The delivery log: the run has no tenant, so a tenant's operator sees none of it.
    const log = async (token: string) =>
      (await (
        await t!.call('GET', '/v1/webhooks/deliveries?webhook=finance', { token })
      ).json()) as unknown[];
    await until('logged as delivered', async () =>
      (await log(TOKENS.operator)).some((d) => (d as { status: string }).status === 'delivered')
        ? true
        : undefined,
    );
    expect(await log(TOKENS.operator)).toMatchObject([
      { webhook: 'finance', event: 'approval.escalated', runId, tenant: null, attempts: 1 },
    ]);
    expect(await log(TOKENS.tenantA)).toEqual([]);
    // A person still decides: the write runs once.
    const approved = await t.call('POST', `/v1/runs/${runId}/approval`, {
      token: TOKENS.operator,
      json: { decision: 'approve', expect: pending.id },
    });
    expect(approved.status, await approved.clone().text()).toBe(200);
    await until('completed', async () =>
      (await runtime.status(runId)).status === 'completed' ? true : undefined,
    );
    expect(created).toEqual(['printer']);
    expect(it_.received).toEqual([]); // not addressed to the it role
  });

  it('the flow key is checked: a bad duration or onExpiry is a validation error', async () => {
    const { FlowSchema } = await import('../../../src/domain/flow.js');
    const base = { id: 'f', nodes: [{ id: 'n' }] };
    const bad = (approval: unknown) =>
      FlowSchema.safeParse({ ...base, tools: { w: { write: true, approval } } }).success;
    expect(bad({ expiresAfter: '15m', onExpiry: 'escalate', escalateTo: ['ops'] })).toBe(true);
    expect(bad({ expiresAfter: 'PT1H30M' })).toBe(true);
    expect(bad({ expiresAfter: 'soon' })).toBe(false);
    expect(bad({ expiresAfter: '0s' })).toBe(false);
    expect(bad({ expiresAfter: '1h', onExpiry: 'ignore' })).toBe(false);
  });
});
