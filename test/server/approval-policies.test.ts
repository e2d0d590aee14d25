import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTokens } from '../../src/server/tokens.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';
import { SchemaPool, pgAvailable } from '../store/postgres-server.js';
import { reached, settled, startRun, openApp, tempDir, type TestApp } from './helpers.js';

/**
 * Approval policies through the HTTP API on SQLite and PostgreSQL (docs/approvals.md): an `auto` rule
 * approves a small refund without a person and names itself in the trace; a large one waits for two
 * different operators (the starter, a role not allowed and a second vote of the same person are
 * refused) and the write runs once; an edited approval is checked by the guards again.
 */

const TOKEN = {
  sam: 'sam-operator-token-0123456789',
  olivia: 'olivia-operator-token-012345',
  oscar: 'oscar-operator-token-0123456',
  ada: 'ada-admin-token-0123456789ab',
} as const;

const TOKENS = parseTokens(
  [
    { token: TOKEN.sam, role: 'operator', name: 'sam' },
    { token: TOKEN.olivia, role: 'operator', name: 'olivia' },
    { token: TOKEN.oscar, role: 'operator', name: 'oscar' },
    { token: TOKEN.ada, role: 'admin', name: 'ada' },
  ],
  'test',
);

function refundTools(): { tools: LocalTool[]; refunds: { orderId: string; amount: number }[] } {
  const refunds: { orderId: string; amount: number }[] = [];
  const tools = [
    defineTool<{ orderId: string }>({
      name: 'order_get',
      description: 'Read an order',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      execute: ({ orderId }) => ({ orderId, total: 900 }),
    }),
    defineTool<{ orderId: string; amount: number }>({
      name: 'refund',
      description: 'Refund an order',
      write: true,
      inputSchema: {
        type: 'object',
        properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
        required: ['orderId', 'amount'],
      },
      execute: ({ orderId, amount }) => {
        refunds.push({ orderId, amount });
        return { refunded: amount };
      },
    }),
  ] as LocalTool[];
  return { tools, refunds };
}

function flow(id: string, approvers: string): string {
  return `id: ${id}
locale: en
model: scripted:./turns/${id}.yaml
tools:
  refund:
    write: true
    params:
      orderId: { source: evidence, from: [order_get] }
      amount: { source: user }
    approval:
      auto: args.amount <= 10
      reject: args.amount > 5000
      approvers: ${approvers}
      expiresAfter: 2h
nodes:
  - id: main
    tools: [order_get, refund]
`;
}

function turns(amount: number, approvedAmount = amount): string {
  return `turns:
  - { calls: [{ tool: order_get, args: { orderId: o1 } }] }
  - { calls: [{ tool: refund, args: { orderId: o1, amount: ${amount} } }] }
  - { calls: [{ tool: builtin_node_approval, args: { tool: refund, summary: refund order o1 } }] }
  - { calls: [{ tool: refund, args: { orderId: o1, amount: ${approvedAmount} } }] }
  - { calls: [{ tool: builtin_node_finish, args: { summary: done } }] }
`;
}

const FILES = {
  'small.yaml': flow('small', '{ count: 2, roles: [operator] }'),
  'turns/small.yaml': turns(5),
  'big.yaml': flow('big', '{ count: 2, roles: [operator] }'),
  'turns/big.yaml': turns(500),
  'huge.yaml': flow('huge', '{ count: 2 }'),
  'turns/huge.yaml': turns(6000),
  'edit.yaml': flow('edit', '{ count: 1 }'),
  'turns/edit.yaml': turns(500, 50),
};

type Event = { type: string; [key: string]: unknown };

async function events(t: TestApp, runId: string): Promise<Event[]> {
  return await (await t.runtime.db()).events(runId);
}

async function decide(t: TestApp, token: string, runId: string, body: Record<string, unknown>) {
  const response = await t.call('POST', `/v1/runs/${runId}/approval`, { token, json: body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const schemas = new SchemaPool();
const pg = await pgAvailable();
afterAll(() => (pg ? schemas.dropAll() : undefined));

const stores: [string, (dir: string) => string][] = [
  ['SQLite', (dir) => `sqlite:${join(dir, 'runs.db')}`],
  ...(pg ? [['PostgreSQL', () => schemas.urlFor(schemas.next('ap'))] as [string, () => string]] : []),
];

describe.each(stores)('approval policies through the API on %s', (_name, storeOf) => {
  async function serve() {
    const dir = await tempDir(FILES);
    const { tools, refunds } = refundTools();
    const t = await openApp({
      flowsDir: dir,
      runtime: { store: storeOf(dir), tools },
      server: { tokens: TOKENS },
    });
    return { t, refunds };
  }

  it('an auto rule approves a small refund without a person, and the trace names the rule', async () => {
    const { t, refunds } = await serve();
    try {
      const runId = await startRun(t, TOKEN.sam, { flowId: 'small', input: 'refund order o1: 5 euros' });
      await settled(t.runtime, runId);
      expect((await t.runtime.status(runId)).status).toBe('completed');
      expect(refunds).toEqual([{ orderId: 'o1', amount: 5 }]);
      const trace = await events(t, runId);
      expect(trace.some((e) => e.type === 'run.suspended')).toBe(false);
      const decided = trace.find((e) => e.type === 'tool.invoked' && e.tool === 'builtin_node_approval');
      expect(decided?.outcome).toBe('SUCCESS');
      expect(String(decided?.message)).toContain('auto rule');
      const state = (await (await t.runtime.db()).getRun(runId))?.state;
      expect(state?.run.approvals).toMatchObject([{ rule: 'auto', who: null, consumed: true }]);
    } finally {
      await t.stop();
    }
  });

  it('a reject rule declines a call without a person: the model sees APPROVAL_DENIED naming the rule', async () => {
    const { t, refunds } = await serve();
    try {
      const runId = await startRun(t, TOKEN.sam, { flowId: 'huge', input: 'refund order o1: 6000 euros' });
      await settled(t.runtime, runId);
      expect((await t.runtime.status(runId)).status).toBe('completed');
      expect(refunds).toEqual([]);
      const trace = await events(t, runId);
      expect(trace.some((e) => e.type === 'run.suspended')).toBe(false);
      const decided = trace.find((e) => e.type === 'tool.invoked' && e.tool === 'builtin_node_approval');
      expect([decided?.outcome, decided?.errorCode]).toEqual(['REJECTED', 'APPROVAL_DENIED']);
      expect(String(decided?.message)).toContain('reject rule');
    } finally {
      await t.stop();
    }
  });

  it('a large refund waits for two different operators; the starter, an admin and a second vote are refused', async () => {
    const { t, refunds } = await serve();
    try {
      const runId = await startRun(t, TOKEN.sam, { flowId: 'big', input: 'refund order o1: 500 euros' });
      await reached(t.runtime, runId, 'run.suspended');
      const waiting = await t.runtime.status(runId);
      expect(waiting.suspension?.pending).toMatchObject({
        tool: 'refund',
        approvers: { count: 2, roles: ['operator'] },
      });
      expect(
        Date.parse(String((waiting.suspension?.pending as { expiresAt?: string }).expiresAt)),
      ).toBeGreaterThan(Date.now() + 3_500_000);
      const starter = await decide(t, TOKEN.sam, runId, { decision: 'approve' });
      expect([starter.status, (starter.body.error as { code: string }).code]).toEqual([403, 'FORBIDDEN']);
      const admin = await decide(t, TOKEN.ada, runId, { decision: 'approve' });
      expect(admin.status).toBe(403);
      const first = await decide(t, TOKEN.olivia, runId, { decision: 'approve', comment: 'ok' });
      expect(first.status).toBe(200);
      expect(first.body.status).toBe('suspended');
      expect(
        (first.body.suspension as { pending: { approvedBy: { who: string }[] } }).pending.approvedBy,
      ).toEqual([expect.objectContaining({ who: 'olivia', role: 'operator', comment: 'ok' })]);
      const again = await decide(t, TOKEN.olivia, runId, { decision: 'approve' });
      expect([again.status, (again.body.error as { message: string }).message]).toEqual([
        409,
        expect.stringContaining('olivia has already approved'),
      ]);
      expect(refunds).toEqual([]);
      const second = await decide(t, TOKEN.oscar, runId, { decision: 'approve' });
      expect(second.status).toBe(200);
      await settled(t.runtime, runId);
      expect((await t.runtime.status(runId)).status).toBe('completed');
      expect(refunds).toEqual([{ orderId: 'o1', amount: 500 }]);
      const trace = await events(t, runId);
      expect(trace.filter((e) => e.type === 'approval.voted')).toMatchObject([
        { who: 'olivia', approvals: 1, count: 2 },
      ]);
      expect(trace.find((e) => e.type === 'run.resumed')).toMatchObject({
        decision: 'approved',
        who: 'oscar',
        approvers: ['olivia', 'oscar'],
      });
    } finally {
      await t.stop();
    }
  });

  it('in a thread, the person who started the thread cannot count either', async () => {
    const { t, refunds } = await serve();
    try {
      const post = async (token: string, body: unknown) => {
        const response = await t.call('POST', '/v1/threads/th-1/messages', { token, json: body });
        expect(response.status).toBe(201);
        return ((await response.json()) as { runId: string }).runId;
      };
      const first = await post(TOKEN.sam, { flowId: 'small', input: 'refund order o1: 5 euros' });
      await settled(t.runtime, first);
      const runId = await post(TOKEN.olivia, { flowId: 'big', input: 'refund order o1: 500 euros' });
      await reached(t.runtime, runId, 'run.suspended');
      const threadStarter = await decide(t, TOKEN.sam, runId, { decision: 'approve' });
      expect([threadStarter.status, (threadStarter.body.error as { message: string }).message]).toEqual([
        403,
        expect.stringContaining('sam started its thread'),
      ]);
      const runStarter = await decide(t, TOKEN.olivia, runId, { decision: 'approve' });
      expect([runStarter.status, (runStarter.body.error as { message: string }).message]).toEqual([
        403,
        expect.stringContaining('olivia started the run'),
      ]);
      expect((await decide(t, TOKEN.oscar, runId, { decision: 'approve' })).status).toBe(200);
      expect(refunds).toEqual([{ orderId: 'o1', amount: 5 }]);
    } finally {
      await t.stop();
    }
  });

  it('edited arguments go through the guards again: a value not from the evidence is refused, a good edit runs exactly', async () => {
    const { t, refunds } = await serve();
    try {
      const runId = await startRun(t, TOKEN.sam, { flowId: 'edit', input: 'refund order o1: 500 euros' });
      await reached(t.runtime, runId, 'run.suspended');
      const bad = await decide(t, TOKEN.olivia, runId, {
        decision: 'approve',
        args: { orderId: 'o9', amount: 50 },
      });
      expect(bad.status).toBe(400);
      const error = bad.body.error as { code: string; problems: string[] };
      expect(error.code).toBe('ARGS_REFUSED');
      expect(error.problems[0]).toMatch(/^PARAM_PROVENANCE_MISMATCH: /);
      expect((await t.runtime.status(runId)).status).toBe('suspended');
      const ruled = await decide(t, TOKEN.olivia, runId, {
        decision: 'approve',
        args: { orderId: 'o1', amount: 6000 },
      });
      expect([ruled.status, (ruled.body.error as { problems: string[] }).problems[0]]).toEqual([
        400,
        expect.stringMatching(/^APPROVAL_DENIED: .*reject rule/),
      ]);
      const good = await decide(t, TOKEN.olivia, runId, {
        decision: 'approve',
        args: { orderId: 'o1', amount: 50 },
      });
      expect(good.status).toBe(200);
      await settled(t.runtime, runId);
      expect((await t.runtime.status(runId)).status).toBe('completed');
      expect(refunds).toEqual([{ orderId: 'o1', amount: 50 }]);
      const trace = await events(t, runId);
      expect(trace.find((e) => e.type === 'run.resumed')).toMatchObject({
        args: { orderId: 'o1', amount: 50 },
        editedFrom: { orderId: 'o1', amount: 500 },
      });
      const told = trace
        .filter((e) => e.type === 'tool.invoked' && e.tool === 'builtin_node_approval')
        .at(-1);
      expect(String(told?.message)).toContain('amount: 500 → 50');
    } finally {
      await t.stop();
    }
  });
});
