import { afterEach, describe, expect, it } from 'vitest';
import { hint } from '../../src/domain/hints.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  eventsOf,
  flow,
  makeRuntime,
  ofType,
  recordingModel,
  script,
  story,
  toolKit,
  turn,
} from '../runtime/helpers.js';

/**
 * The loop counts by outcome only. Every case runs a real runtime with local tools (real guards and
 * codes); the loop's counting alone, behind a fake host, is in node-loop.test.ts.
 */
describe('node loop counting', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });

  async function setup(limits: Record<string, number> = {}, outputs: Record<string, unknown> = {}) {
    const kit = toolKit();
    const runtime = makeRuntime(kit);
    runtimes.push(runtime);
    const loaded = await flow({
      limits,
      nodes: [{ id: 'work', tools: ['lookup', 'noop', 'broken', 'save'], outputs: outputs as never }],
    });
    return { kit, runtime, loaded };
  }

  it('a stall skips the rest of the wave: tool.skipped per call, a tool message each, nothing executed', async () => {
    const { kit, runtime, loaded } = await setup();
    const model = recordingModel(
      turn([call.tool('broken'), call.tool('lookup', { id: 1 }), call.tool('noop')]),
      turn([call.finish()]),
    );
    const run = await runtime.start(loaded, { input: { text: 'go' }, model });
    expect(run.status).toBe('completed');
    expect(kit.count('broken')).toBe(1);
    expect(kit.count('lookup')).toBe(0);
    expect(kit.count('noop')).toBe(0);
    const events = await eventsOf(runtime, run.runId);
    expect(story(events)).toEqual([
      'node.started work',
      'round 1',
      'invoked broken FAILED',
      'stall 1/5',
      'skipped lookup',
      'skipped noop',
      'round 2',
      'invoked builtin_node_finish SUCCESS',
      'node.completed work',
      'run.completed',
    ]);
    const skipped = ofType(events, 'tool.skipped');
    expect(skipped.map((e) => e.callId)).toEqual(['call_1_2', 'call_1_3']);
    expect(skipped[0]).toMatchObject({ nodeId: 'work', round: 1, tool: 'lookup' });
    // The second model call sees one tool message per call id of the first wave.
    const toolMessages = (model.requests[1]?.messages ?? []).filter((m) => m.role === 'tool');
    expect(toolMessages.map((m) => (m.role === 'tool' ? m.callId : ''))).toEqual([
      'call_1_1',
      'call_1_2',
      'call_1_3',
    ]);
    expect(toolMessages[0]).toMatchObject({ tool: 'broken' });
    expect(toolMessages[0]?.role === 'tool' && toolMessages[0].content).toContain('[FAILED TOOL_ERROR]');
    for (const m of toolMessages.slice(1)) {
      expect(m.role === 'tool' && m.content).toBe(`[SKIPPED] ${hint('en', 'SKIPPED')}`);
    }
  });

  it('DEFERRED skips the rest of the wave without counting a stall (and without resetting)', async () => {
    const { kit, runtime, loaded } = await setup({ maxStalls: 2 });
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script(
        turn([call.tool('broken')]),
        turn([call.tool('save', { name: 'a' }), call.tool('lookup', { id: 1 })]),
        turn([call.tool('broken')]),
      ),
    });
    expect(run).toMatchObject({ status: 'failed', reason: 'NO_PROGRESS', failedNode: 'work' });
    expect(kit.count('lookup')).toBe(0);
    expect(kit.count('save')).toBe(0);
    const events = await eventsOf(runtime, run.runId);
    expect(story(events)).toEqual([
      'node.started work',
      'round 1',
      'invoked broken FAILED',
      'stall 1/2',
      'round 2',
      'invoked save DEFERRED',
      'skipped lookup',
      'round 3',
      'invoked broken FAILED',
      'stall 2/2',
      'node.failed NO_PROGRESS',
      'run.failed',
    ]);
    expect(ofType(events, 'tool.invoked')[1]).toMatchObject({
      errorCode: 'APPROVAL_REQUIRED',
      executed: false,
      level: 'info',
    });
  });

  it('the 5th consecutive stall fails the node NO_PROGRESS (REJECTED, FAILED, no-tool round, rejected finish all count)', async () => {
    const { runtime, loaded } = await setup({}, { key: { required: true, sources: ['model'] } });
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script(
        turn([call.tool('not_a_tool')]), // REJECTED CATALOG_DENIED
        turn([call.tool('broken')]), // FAILED
        { text: 'thinking' }, // no tool call
        turn([call.finish()]), // rejected finish
        turn([call.tool('lookup', { id: 'x' })]), // REJECTED ARG_REJECTED
        turn([call.finish()]), // never reached
      ),
    });
    expect(run).toMatchObject({ status: 'failed', reason: 'NO_PROGRESS', failedNode: 'work' });
    const events = await eventsOf(runtime, run.runId);
    expect(story(events).filter((s) => !s.startsWith('round'))).toEqual([
      'node.started work',
      'invoked not_a_tool REJECTED',
      'stall 1/5',
      'invoked broken FAILED',
      'stall 2/5',
      'no_tool_calls 3',
      'stall 3/5',
      'invoked builtin_node_finish REJECTED',
      'stall 4/5',
      'invoked lookup REJECTED',
      'stall 5/5',
      'node.failed NO_PROGRESS',
      'run.failed',
    ]);
    const codes = ofType(events, 'tool.invoked').map((e) => e.errorCode);
    expect(codes).toEqual(['CATALOG_DENIED', 'TOOL_ERROR', 'FINISH_OUTPUTS_MISSING', 'ARG_REJECTED']);
    expect(ofType(events, 'model.response')).toHaveLength(5);
    expect(ofType(events, 'run.failed')[0]).toMatchObject({ reason: 'NO_PROGRESS', failedNode: 'work' });
  });

  it('a node limit overrides the flow limit', async () => {
    const kit = toolKit();
    const runtime = makeRuntime(kit);
    runtimes.push(runtime);
    const loaded = await flow({
      limits: { maxStalls: 5 },
      nodes: [{ id: 'work', tools: ['broken'], limits: { maxStalls: 1 } }],
    });
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script(turn([call.tool('broken')])),
    });
    expect(run).toMatchObject({ status: 'failed', reason: 'NO_PROGRESS' });
    expect(ofType(await eventsOf(runtime, run.runId), 'react.stall')[0]).toMatchObject({
      stalls: 1,
      maxStalls: 1,
    });
  });

  it('several successes in one wave all run, in order; builtin_node_fail ends the node FAILED_BY_MODEL', async () => {
    const { kit, runtime, loaded } = await setup();
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script(
        turn([
          call.tool('lookup', { id: 1 }),
          call.tool('lookup', { id: 2 }),
          call.fail('the shop is closed'),
          call.tool('noop'),
        ]),
      ),
    });
    expect(run).toMatchObject({
      status: 'failed',
      reason: 'FAILED_BY_MODEL',
      failedNode: 'work',
      message: 'the shop is closed',
    });
    expect(kit.calls.lookup).toEqual([{ id: 1 }, { id: 2 }]);
    expect(kit.count('noop')).toBe(0);
    const events = await eventsOf(runtime, run.runId);
    expect(ofType(events, 'node.failed')[0]).toMatchObject({
      reason: 'FAILED_BY_MODEL',
      message: 'the shop is closed',
    });
    expect(ofType(events, 'tool.invoked').map((e) => e.evidenceId)).toEqual(['ev_1', 'ev_2', null]);
  });
});
