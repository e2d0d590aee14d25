import { describe, expect, it } from 'vitest';
import { code } from '../../src/domain/error-codes.js';
import { loadFlow } from '../../src/flow/load.js';
import { createRuntime } from '../../src/runtime/create.js';
import { ToolRejectedException } from '../../src/tools/rejected.js';
import { defineTool } from '../../src/tools/tool.js';
import { call, eventsOf, ofType, recordingModel, turn } from './helpers.js';

describe('a local tool throwing ToolRejectedException in a run', () => {
  it('is REJECTED with its code; the model reads its reason and next step', async () => {
    const cancel = defineTool({
      name: 'order_cancel',
      description: 'Cancels an order',
      inputSchema: { type: 'object', properties: {} },
      execute: () => {
        throw new ToolRejectedException(
          code('ARG_REJECTED'),
          'order 7 is already shipped',
          'tell the user a shipped order cannot be cancelled',
        );
      },
    });
    const runtime = createRuntime({ tools: [cancel], logger: false });
    const flow = await loadFlow(
      { id: 'orders', locale: 'en', nodes: [{ id: 'a', tools: ['order_cancel'] }] },
      { knownTools: ['order_cancel'] },
    );
    const model = recordingModel(turn([call.tool('order_cancel')]), turn([call.finish()]));
    const summary = await runtime.start(flow, { input: { text: 'cancel order 7' }, model });
    const invoked = ofType(await eventsOf(runtime, summary.runId), 'tool.invoked');
    await runtime.close();
    expect([invoked[0]?.outcome, invoked[0]?.errorCode]).toEqual(['REJECTED', 'ARG_REJECTED']);
    const tool = model.requests[1]?.messages.filter((m) => m.role === 'tool').at(-1);
    expect(tool?.role === 'tool' && tool.content).toBe(
      '[REJECTED ARG_REJECTED] order 7 is already shipped. Next: tell the user a shipped order cannot be cancelled.',
    );
  });
});
