import { afterEach, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from '../../src/testing/fake-model/index.js';
import { exchangesOf, protocolStep } from '../../src/testing/fake-model/next-steps.js';
import { runFlow, type TestRun } from '../../src/testing/run-flow.js';
import { defineTool } from '../../src/tools/tool.js';

/**
 * The stand-in model following the observations' next steps (docs/testing.md): a script of only the
 * calls meant runs through the runtime's approval protocol over HTTP, as a cooperative model would.
 */

const SCRIPT = {
  turns: [
    { calls: [{ tool: 'refund', args: { orderId: 'o1', amount: 5 } }] },
    { calls: [{ tool: 'builtin_node_finish', args: { summary: 'refunded' } }] },
  ],
};

function refundTool(executed: unknown[]) {
  return defineTool<{ orderId: string; amount: number }>({
    name: 'refund',
    description: 'Refunds an order',
    inputSchema: {
      type: 'object',
      properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
      required: ['orderId', 'amount'],
    },
    execute: (args) => {
      executed.push(args);
      return Promise.resolve({ refunded: args.amount });
    },
  });
}

const flowWith = (approval?: Record<string, unknown>) => ({
  id: 'refunds',
  locale: 'en' as const,
  tools: { refund: { write: true, ...(approval ? { approval } : {}) } },
  nodes: [{ id: 'work', tools: ['refund'] }],
});

describe('the stand-in model following the next steps', () => {
  const open: (FakeModel | TestRun)[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((o) => o.close()));
  });

  it.each(['openai', 'anthropic'] as const)(
    '%s: asks for approval, makes the approved write once, then goes on with the script',
    async (kind) => {
      const fake = await startFakeModel({ kind, script: SCRIPT, followNextSteps: true });
      open.push(fake);
      const executed: unknown[] = [];
      const prefix = kind === 'openai' ? 'OPENAI' : 'ANTHROPIC';
      const run = await runFlow(flowWith(), {
        input: 'refund 5 on order o1',
        model: `${kind}:test-model`,
        tools: [refundTool(executed)],
        env: { [`${prefix}_BASE_URL`]: fake.url, [`${prefix}_API_KEY`]: fake.key },
      });
      open.push(run);
      expect(run.summary.status).toBe('suspended');
      expect(run.summary.suspension?.pending).toMatchObject({
        tool: 'refund',
        args: { orderId: 'o1', amount: 5 },
        summary: 'refund {"orderId":"o1","amount":5}',
      });
      expect(executed).toEqual([]);
      const done = await run.approve();
      expect(done.status).toBe('completed');
      expect(executed).toEqual([{ orderId: 'o1', amount: 5 }]);
      expect(fake.refusals()).toEqual([]);
      // The write, the approval request, the write again, the finish: four answers from two turns.
      expect(fake.requests.filter((r) => r.refused === null)).toHaveLength(4);
    },
    60_000,
  );

  it('plays the same script where an approval policy lets the write through', async () => {
    const fake = await startFakeModel({ script: SCRIPT, followNextSteps: true });
    open.push(fake);
    const executed: unknown[] = [];
    const run = await runFlow(flowWith({ auto: 'args.amount <= 10' }), {
      input: 'refund 5 on order o1',
      model: 'openai:test-model',
      tools: [refundTool(executed)],
      env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: fake.key },
    });
    open.push(run);
    expect(run.summary.status).toBe('completed');
    expect(executed).toEqual([{ orderId: 'o1', amount: 5 }]);
  }, 60_000);

  it('goes on with the script after a rejected approval, and writes nothing', async () => {
    const fake = await startFakeModel({ script: SCRIPT, followNextSteps: true });
    open.push(fake);
    const executed: unknown[] = [];
    const run = await runFlow(flowWith(), {
      input: 'refund 5 on order o1',
      model: 'openai:test-model',
      tools: [refundTool(executed)],
      env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: fake.key },
    });
    open.push(run);
    const done = await run.reject({ comment: 'not this one' });
    expect(done.status).toBe('completed');
    expect(executed).toEqual([]);
  }, 60_000);
});

describe('protocolStep', () => {
  const openai = (results: [string, string, string][]) =>
    exchangesOf('openai', {
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          tool_calls: results.map(([id, name, args]) => ({
            id,
            type: 'function',
            function: { name, arguments: args },
          })),
        },
        ...results.map(([id], i) => ({ role: 'tool', tool_call_id: id, content: RESULTS[i] })),
      ],
    });
  let RESULTS: string[] = [];

  it('repeats a call the runtime says did not execute', () => {
    RESULTS = ['[DEFERRED WRITE_NOT_EXECUTED] The call did not run. Next: call it again'];
    expect(protocolStep(openai([['c1', 'save', '{"a":1}']]))).toMatchObject({
      name: 'save',
      args: '{"a":1}',
    });
  });

  it('lets the script go on after anything else', () => {
    RESULTS = ['[REJECTED PARAM_PROVENANCE_MISMATCH] no. Next: look it up', '[SUCCESS ev_1]'];
    expect(
      protocolStep(
        openai([
          ['c1', 'save', '{}'],
          ['c2', 'get', '{}'],
        ]),
      ),
    ).toBeNull();
    expect(protocolStep(exchangesOf('openai', { messages: [{ role: 'user', content: 'go' }] }))).toBeNull();
  });
});
