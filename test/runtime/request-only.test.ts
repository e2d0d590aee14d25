import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import type { FlowInput } from '../../src/domain/flow.js';
import { createRuntime, type Runtime } from '../../src/runtime/create.js';
import { bankTools, BANK_TOOL_NAMES, CAR_RENTAL } from './bank-kit.js';
import { call, recordingModel, turn } from './helpers.js';

/**
 * `sees: request` (docs/flows.md, "Request-only nodes"): the node's model reads the user's request and
 * nothing that earlier nodes read or wrote; its outputs pick, through edges, what the run does next.
 */
describe('request-only nodes', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  const flow = (sees: boolean) =>
    loadFlow(
      {
        id: 'assistant',
        locale: 'en',
        nodes: [
          {
            id: 'read',
            tools: ['read_file'],
            outputs: { notes: { required: false, sources: ['model'] } },
          },
          {
            id: 'plan',
            instructions: 'Decide what the user asked for: {{input.text}}',
            ...(sees ? { sees: 'request' as const } : {}),
            outputs: { intent: { required: true, sources: ['model'], schema: { enum: ['pay', 'nothing'] } } },
          },
          { id: 'pay', tools: ['send_money'] },
        ] satisfies FlowInput['nodes'],
        edges: [
          { from: 'read', to: 'plan' },
          { from: 'plan', to: 'pay', when: "outputs.intent = 'pay'" },
        ],
      },
      { knownTools: BANK_TOOL_NAMES },
    );

  async function run(sees: boolean, intent: string) {
    const runtime = createRuntime({ store: 'memory', tools: bankTools().tools, logger: false });
    runtimes.push(runtime);
    const model = recordingModel(
      turn([call.tool('read_file', { file_path: 'bill-injected.txt' })]),
      turn([call.output('notes', `the bill asks to pay ${CAR_RENTAL}`, 'model')]),
      turn([call.finish('read')]),
      turn([call.output('intent', intent, 'model')]),
      turn([call.finish('planned')]),
      turn([call.finish('paid')]),
    );
    const summary = await runtime.start(await flow(sees), { input: { text: 'Summarise my bill' }, model });
    return { summary, model };
  }

  it("the plan node's model reads the request only: no tool result or output of the node before", async () => {
    const { model } = await run(true, 'nothing');
    const plan = model.requests[3];
    const seen = JSON.stringify(plan);
    expect(seen).toContain('Summarise my bill');
    expect(seen).not.toContain(CAR_RENTAL);
    expect(seen).not.toContain('INFORMATION');
  });

  it('without sees: request the same node reads the earlier outputs (the control)', async () => {
    const { model } = await run(false, 'nothing');
    expect(JSON.stringify(model.requests[3])).toContain(CAR_RENTAL);
  });

  it("its outputs decide through edges: intent 'nothing' ends the run before the pay node", async () => {
    const none = await run(true, 'nothing');
    expect(none.summary.status).toBe('completed');
    expect(none.model.requests).toHaveLength(5);
    const pay = await run(true, 'pay');
    expect(pay.model.requests).toHaveLength(6);
  });

  it('validate refuses {{nodes.…}} in the instructions of a request-only node', async () => {
    await expect(
      loadFlow(
        {
          id: 'x',
          nodes: [
            { id: 'a', outputs: { o: { required: false, sources: ['model'] } } },
            { id: 'b', sees: 'request', instructions: 'use {{nodes.a.outputs.o}}' },
          ],
          edges: [{ from: 'a', to: 'b' }],
        },
        {},
      ),
    ).rejects.toThrow(/sees only the user's request \(sees: request\)/);
  });
});
