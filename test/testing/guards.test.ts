/**
 * A user's guard tested through `g2rain-agent-runtime/testing`: `runFlow({ guards })` runs the flow on
 * the real pipeline with the guards given, as `createRuntime({ guards })` would; the trace tells what
 * each guard decided. Only public exports are used, as a user's test would.
 */
import { describe, expect, it } from 'vitest';
import { defineGuard, defineTool, GuardDefinitionError, type LocalTool } from '../../src/index.js';
import { eventsOf, runFlow, scriptedModel } from '../../src/testing/index.js';

const refundLimit = defineGuard({
  name: 'refund-limit',
  codes: {
    REFUND_OVER_LIMIT: { number: 61001, outcome: 'REJECTED' },
    REFUND_NOT_BOOKED: { number: 61002, outcome: 'FAILED' },
  },
  before: (c) =>
    c.tool === 'refund' && c.args.amount > 100
      ? c.reject('REFUND_OVER_LIMIT', `${c.args.amount} is over 100`, 'refund at most 100')
      : undefined,
  after: (c) =>
    (c.result.data as { booked?: boolean }).booked === false
      ? c.fail('REFUND_NOT_BOOKED', 'the ledger did not book it', 'tell the user to call support')
      : undefined,
});

function refundTool(booked = true): { tool: LocalTool; sent: number[] } {
  const sent: number[] = [];
  const tool = defineTool<{ amount: number }>({
    name: 'refund',
    description: 'Refunds an amount',
    inputSchema: { type: 'object', properties: { amount: { type: 'number' } }, required: ['amount'] },
    execute: ({ amount }) => {
      sent.push(amount);
      return { booked, amount };
    },
  });
  return { tool, sent };
}

const flow = (amount: number) => ({
  id: 'refunds',
  locale: 'en' as const,
  nodes: [{ id: 'pay', tools: ['refund'] }],
  model: scriptedModel({
    turns: [
      { calls: [{ tool: 'refund', args: { amount } }] },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'done' } }] },
    ],
  }),
});

async function refund(amount: number, options: { guards?: boolean; booked?: boolean } = {}) {
  const { tool, sent } = refundTool(options.booked);
  const { model, ...rest } = flow(amount);
  const run = await runFlow(rest, {
    input: 'refund me',
    tools: [tool],
    model,
    ...(options.guards === false ? {} : { guards: [refundLimit] }),
  });
  try {
    return { sent, summary: run.summary, invoked: eventsOf(await run.trace(), 'tool.invoked') };
  } finally {
    await run.close();
  }
}

describe('runFlow with guards', () => {
  it("rejects a call with the guard's code before the tool runs", async () => {
    const { sent, invoked, summary } = await refund(250);
    expect(sent).toEqual([]);
    expect(invoked[0]).toMatchObject({
      tool: 'refund',
      outcome: 'REJECTED',
      errorCode: 'REFUND_OVER_LIMIT',
      executed: false,
    });
    expect(invoked[0]?.message).toContain('250 is over 100');
    expect(summary.status).toBe('completed');
  });

  it('lets a call within the rule through, and the same call runs when no guard is given', async () => {
    expect((await refund(40)).invoked[0]).toMatchObject({ outcome: 'SUCCESS', executed: true });
    const unguarded = await refund(250, { guards: false });
    expect(unguarded.sent).toEqual([250]);
    expect(unguarded.invoked[0]).toMatchObject({ outcome: 'SUCCESS', errorCode: null });
  });

  it('turns a result the guard refuses after the call into FAILED with its code (the tool did run)', async () => {
    const { sent, invoked } = await refund(40, { booked: false });
    expect(sent).toEqual([40]);
    expect(invoked[0]).toMatchObject({ outcome: 'FAILED', errorCode: 'REFUND_NOT_BOOKED', executed: true });
  });

  it('refuses guards that clash before any run starts', async () => {
    const { tool } = refundTool();
    const { model, ...rest } = flow(1);
    await expect(runFlow(rest, { tools: [tool], model, guards: [refundLimit, refundLimit] })).rejects.toThrow(
      GuardDefinitionError,
    );
  });
});
