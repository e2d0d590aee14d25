import { afterEach, describe, expect, it } from 'vitest';
import { RunError } from '../../src/domain/run-error.js';
import { loadFlow } from '../../src/flow/load.js';
import { scriptedModel } from '../../src/model/scripted.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import type { StoredEvent } from '../../src/store/store.js';
import { defineTool, type LocalTool } from '../../src/tools/tool.js';

/**
 * A person's edited arguments (src/engine/approval-edit.ts, docs/approvals.md "Edited arguments"),
 * in process on the memory store: the edited call goes through the node's guard chain again as if the
 * model had made it; a refusal is ARGS_REFUSED naming the stopping check (`<code>: <reason>`, in the
 * flow's locale) with nothing changed and nothing executed; what the person changed counts as the
 * user's words; arguments equal to the pending ones are a plain approval.
 */

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.close();
  runtime = null;
});

type Refund = { orderId: string; amount: number; memo?: { text: string; tags?: string[] } };

function tools(refunds: Refund[]): LocalTool[] {
  return [
    defineTool<{ orderId: string }>({
      name: 'order_get',
      description: 'Read an order',
      inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
      execute: ({ orderId }) => ({ orderId, total: 900 }),
    }),
    defineTool<Refund>({
      name: 'refund',
      description: 'Refund an order',
      write: true,
      inputSchema: {
        type: 'object',
        properties: {
          orderId: { type: 'string' },
          amount: { type: 'number', minimum: 1 },
          memo: {
            type: 'object',
            properties: { text: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
          },
        },
        required: ['orderId', 'amount'],
      },
      execute: (args) => {
        refunds.push(args);
        return { refunded: args.amount };
      },
    }),
  ] as LocalTool[];
}

const MODEL_ARGS = { orderId: 'o1', amount: 500 };

const model = scriptedModel({
  turns: [
    { calls: [{ tool: 'order_get', args: { orderId: 'o1' } }] },
    { calls: [{ tool: 'refund', args: MODEL_ARGS }] },
    { calls: [{ tool: 'builtin_node_approval', args: { tool: 'refund', summary: 'refund order o1' } }] },
    // After the approval the model repeats the call it made; an edit makes it differ from the approved one.
    { calls: [{ tool: 'refund', args: MODEL_ARGS }] },
    { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
  ],
});

/** A run of the refund flow waiting for the approval of `refund {orderId: o1, amount: 500}`. */
async function waiting(locale: 'en' | 'zh-CN' = 'en') {
  const refunds: Refund[] = [];
  runtime = createRuntime({ store: 'memory', logger: false, tools: tools(refunds) });
  const flow = await loadFlow(
    {
      id: 'refunds',
      locale,
      tools: {
        refund: {
          write: true,
          params: {
            orderId: { source: 'evidence', from: ['order_get'] },
            amount: { source: 'user' },
          },
          approval: { reject: 'args.amount > 5000' },
        },
      },
      nodes: [{ id: 'main', tools: ['order_get', 'refund'] }],
    },
    { knownTools: ['order_get', 'refund'] },
  );
  const started = await runtime.start(flow, { input: { text: 'refund order o1: 500 euros' }, model });
  expect(started.status).toBe('suspended');
  return { rt: runtime, runId: started.runId, refunds };
}

async function refused(rt: Runtime, runId: string, args: Record<string, unknown>): Promise<RunError> {
  const error = await rt.approve(runId, { args, model, who: 'olivia' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RunError);
  const runError = error as RunError;
  expect(runError.code).toBe('ARGS_REFUSED');
  expect(runError.message).toBe(`run ${runId}: the edited arguments of refund are refused`);
  expect(runError.problems).toHaveLength(1);
  return runError;
}

async function trace(rt: Runtime, runId: string): Promise<StoredEvent[]> {
  return (await rt.db()).events(runId);
}

describe('edited arguments refused by the guards', () => {
  it('a value not found in the evidence: PARAM_PROVENANCE_MISMATCH, nothing changed, the run still waits', async () => {
    const { rt, runId, refunds } = await waiting();
    const store = await rt.db();
    const before = await store.getRun(runId);
    const error = await refused(rt, runId, { orderId: 'o9', amount: 500 });
    expect(error.problems).toEqual([
      'PARAM_PROVENANCE_MISMATCH: The value o9 of argument [orderId] is not in the results of order_get. Next: use a value from the results of order_get, for example: o1.',
    ]);
    const after = await store.getRun(runId);
    expect(after?.status).toBe('suspended');
    // Taking and giving back the lease are the only commits: no event, same state and pending item.
    expect(after?.lastSeq).toBe(before?.lastSeq);
    expect(after?.state).toEqual(before?.state);
    expect(after?.suspension).toEqual(before?.suspension);
    expect(after?.state.run.editTexts).toBeUndefined();
    expect(after?.leaseOwner).toBeNull();
    expect(refunds).toEqual([]);
  });

  it("arguments that break the tool's schema: ARG_REJECTED", async () => {
    const { rt, runId } = await waiting();
    const error = await refused(rt, runId, { orderId: 'o1', amount: 0 });
    expect(error.problems).toEqual([
      'ARG_REJECTED: Argument [amount] breaks a rule: must be >= 1. Next: fix argument [amount] as the rule says and call refund again.',
    ]);
  });

  it('a required argument left out: PARAM_REQUIRED_MISSING', async () => {
    const { rt, runId } = await waiting();
    const error = await refused(rt, runId, { orderId: 'o1' });
    expect(error.problems[0]).toMatch(
      /^PARAM_REQUIRED_MISSING: Missing required argument \[amount\]\. Next: /,
    );
  });

  it("the policy's reject rule over the edited call: APPROVAL_DENIED naming the rule", async () => {
    const { rt, runId, refunds } = await waiting();
    const error = await refused(rt, runId, { orderId: 'o1', amount: 6000 });
    expect(error.problems).toEqual([
      "APPROVAL_DENIED: The user declined the write call of refund: the approval policy's reject rule declined the call",
    ]);
    expect((await rt.status(runId)).status).toBe('suspended');
    expect(refunds).toEqual([]);
  });

  it("the refusal is worded in the flow's locale", async () => {
    const { rt, runId } = await waiting('zh-CN');
    const error = await refused(rt, runId, { orderId: 'o1', amount: 6000 });
    expect(error.problems).toEqual([
      'APPROVAL_DENIED: 用户拒绝了写操作 refund：审批策略的 reject 规则拒绝了该调用',
    ]);
  });

  it('after a refusal the same run can still be approved as the model made it', async () => {
    const { rt, runId, refunds } = await waiting();
    await refused(rt, runId, { orderId: 'o9', amount: 500 });
    const done = await rt.approve(runId, { model, who: 'olivia' });
    expect(done.status).toBe('completed');
    expect(refunds).toEqual([MODEL_ARGS]);
  });
});

describe('edited arguments accepted', () => {
  it('equal to the pending ones (in another key order): a plain approval without editedFrom', async () => {
    const { rt, runId, refunds } = await waiting();
    const done = await rt.approve(runId, { args: { amount: 500, orderId: 'o1' }, model, who: 'olivia' });
    expect(done.status).toBe('completed');
    expect(refunds).toEqual([MODEL_ARGS]);
    const resumed = (await trace(rt, runId)).find((e) => e.type === 'run.resumed');
    expect(resumed?.editedFrom).toBeUndefined();
    const record = await (await rt.db()).getRun(runId);
    expect(record?.state.run.editTexts).toBeUndefined();
    expect(record?.state.run.approvals[0]?.editedFrom).toBeUndefined();
  });

  it("a changed value the user never wrote passes source: user: the person's words count", async () => {
    const { rt, runId, refunds } = await waiting();
    // 50 is not in the run input ("refund order o1: 500 euros"): only the edit makes it the user's.
    const edited = await rt.approve(runId, { args: { orderId: 'o1', amount: 50 }, model, who: 'olivia' });
    const record = await (await rt.db()).getRun(runId);
    expect(record?.state.run.editTexts).toEqual(['50']);
    expect(record?.state.run.approvals[0]).toMatchObject({
      tool: 'refund',
      args: { orderId: 'o1', amount: 50 },
      editedFrom: MODEL_ARGS,
    });
    const resumed = (await trace(rt, runId)).find((e) => e.type === 'run.resumed');
    expect(resumed).toMatchObject({ args: { orderId: 'o1', amount: 50 }, editedFrom: MODEL_ARGS });
    // The model repeats its own arguments: they are not the approved ones, so the gate stops them again.
    expect(refunds).toEqual([]);
    const calls = (await trace(rt, runId)).filter((e) => e.type === 'tool.invoked' && e.tool === 'refund');
    expect(calls.map((e) => [e.outcome, e.errorCode, e.args])).toEqual([
      ['DEFERRED', 'APPROVAL_REQUIRED', MODEL_ARGS],
      ['DEFERRED', 'APPROVAL_REQUIRED', MODEL_ARGS],
    ]);
    expect(edited.status).toBe('completed');
  });

  it('only the changed arguments, leaf by leaf (strings, numbers, nested lists), count as typed words', async () => {
    const { rt, runId } = await waiting();
    await rt.approve(runId, {
      args: { orderId: 'o1', amount: 500, memo: { text: 'goodwill', tags: ['vip', 'late'] } },
      model,
      who: 'olivia',
    });
    const record = await (await rt.db()).getRun(runId);
    expect(record?.state.run.editTexts).toEqual(['goodwill', 'vip', 'late']);
  });
});
