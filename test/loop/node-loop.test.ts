import { describe, expect, it } from 'vitest';
import { hint } from '../../src/domain/hints.js';
import { runNode } from '../../src/loop/node-loop.js';
import {
  LoopHostFake,
  modelError,
  modelTurn,
  textTurn,
  tool,
  type SyncTool,
} from '../helpers/loop-host-fake.js';

/**
 * The ReAct loop alone, behind a strict fake of its port (test/helpers/loop-host-fake.ts): counting by
 * outcome, the limits, suspension, model errors and stops. The same behaviours through a whole runtime
 * (real guards, stores and tools) are in counting.test.ts and suspension.test.ts.
 */
const tools = {
  lookup: tool.ok(),
  noop: tool.ok(),
  broken: tool.failed(),
  denied: tool.rejected(),
  tripped: tool.rejected('FINGERPRINT_TRIP'),
  save: tool.deferred(),
  builtin_node_finish: tool.finish(),
  builtin_node_fail: tool.fail(),
  builtin_user_ask: tool.ask(),
};
const finish = (turn: number, summary = 'done') => modelTurn(turn, ['builtin_node_finish', { summary }]);

describe('runNode behind a fake host', () => {
  it('a stall skips the rest of the wave: a tool message per skipped call, nothing executed', async () => {
    const host = new LoopHostFake({
      tools,
      model: [modelTurn(1, ['broken'], ['lookup', { id: 1 }], ['noop']), finish(2)],
    });
    expect(await runNode(host)).toEqual({ kind: 'completed', reply: 'done' });
    expect(host.toolCalls.map((c) => c.tool)).toEqual(['broken', 'builtin_node_finish']);
    expect(host.story()).toEqual([
      'round 1',
      'model.response',
      'invoked broken FAILED',
      'stall 1/5',
      'skipped lookup',
      'skipped noop',
      'round 2',
      'model.response',
      'invoked builtin_node_finish SUCCESS',
    ]);
    const second = host.requests[1]?.messages.filter((m) => m.role === 'tool') ?? [];
    expect(second.map((m) => (m.role === 'tool' ? m.callId : ''))).toEqual(['c1_1', 'c1_2', 'c1_3']);
    expect(second[0]?.role === 'tool' && second[0].content).toContain('[FAILED TOOL_ERROR]');
    for (const m of second.slice(1))
      expect(m.role === 'tool' && m.content).toBe(`[SKIPPED] ${hint('en', 'SKIPPED')}`);
  });

  it('DEFERRED skips the rest of the wave without counting a stall (and without resetting)', async () => {
    const host = new LoopHostFake({
      tools,
      limits: { maxStalls: 2 },
      model: [modelTurn(1, ['broken']), modelTurn(2, ['save'], ['lookup']), modelTurn(3, ['broken'])],
    });
    expect(await runNode(host)).toMatchObject({ kind: 'failed', reason: 'NO_PROGRESS' });
    expect(host.story().filter((s) => s !== 'model.response')).toEqual([
      'round 1',
      'invoked broken FAILED',
      'stall 1/2',
      'round 2',
      'invoked save DEFERRED',
      'skipped lookup',
      'round 3',
      'invoked broken FAILED',
      'stall 2/2',
    ]);
    expect(host.ofType('tool.invoked')[1]).toMatchObject({ errorCode: 'APPROVAL_REQUIRED', level: 'info' });
  });

  it('SUCCESS resets the stall count', async () => {
    const host = new LoopHostFake({
      tools,
      limits: { maxStalls: 2 },
      model: [modelTurn(1, ['broken']), modelTurn(2, ['lookup']), modelTurn(3, ['broken']), finish(4)],
    });
    expect(await runNode(host)).toMatchObject({ kind: 'completed' });
    expect(host.ofType('react.stall').map((e) => e.stalls)).toEqual([1, 1]);
  });

  it('REJECTED, FAILED, a no-tool round and a repeat tripped by the breaker all count; the 5th fails NO_PROGRESS', async () => {
    const host = new LoopHostFake({
      tools,
      model: [
        modelTurn(1, ['denied']),
        modelTurn(2, ['broken']),
        textTurn('thinking'),
        modelTurn(4, ['tripped']),
        modelTurn(5, ['denied']),
      ],
    });
    const exit = await runNode(host);
    expect(exit).toEqual({
      kind: 'failed',
      reason: 'NO_PROGRESS',
      message: hint('en', 'NO_PROGRESS_REACHED', { stalls: 5 }),
    });
    expect(host.ofType('react.stall').map((e) => e.stalls)).toEqual([1, 2, 3, 4, 5]);
    expect(host.ofType('tool.invoked').map((e) => e.errorCode)).toEqual([
      'ARG_REJECTED',
      'TOOL_ERROR',
      'FINGERPRINT_TRIP',
      'ARG_REJECTED',
    ]);
    expect(host.node.stalls).toBe(5);
    expect(host.checkpoints.at(-1)).toEqual({ rounds: 5, stalls: 5, wave: false });
  });

  it('a no-tool round: the fact as a user message, react.no_tool_calls then react.stall in that round', async () => {
    const host = new LoopHostFake({ tools, model: [textTurn('hmm'), finish(2)] });
    expect(await runNode(host)).toMatchObject({ kind: 'completed' });
    expect(host.requests[1]?.messages.at(-1)).toEqual({ role: 'user', content: hint('en', 'NO_TOOL_CALL') });
    expect(host.events.slice(1, 4)).toEqual([
      expect.objectContaining({ type: 'model.response', toolCalls: [], text: 'hmm' }),
      { type: 'react.no_tool_calls', nodeId: 'work', round: 1, stalls: 1 },
      { type: 'react.stall', nodeId: 'work', round: 1, stalls: 1, maxStalls: 5 },
    ]);
  });

  it('a text answer ends the node when the host says the node answers in text', async () => {
    const host = new LoopHostFake({ tools, textAnswer: () => true, model: [textTurn('  it is 42  ')] });
    expect(await runNode(host)).toEqual({ kind: 'completed', reply: 'it is 42' });
    expect(host.node.stalls).toBe(0);
  });

  it('maxRounds: when one more model call would be needed the node fails ROUND_LIMIT without calling it', async () => {
    const host = new LoopHostFake({
      tools,
      limits: { maxRounds: 3 },
      model: [modelTurn(1, ['lookup']), modelTurn(2, ['lookup']), modelTurn(3, ['lookup']), finish(4)],
    });
    expect(await runNode(host)).toEqual({
      kind: 'failed',
      reason: 'ROUND_LIMIT',
      message: hint('en', 'ROUND_LIMIT_REACHED', { maxRounds: 3 }),
    });
    expect(host.requests).toHaveLength(3);
    expect(host.ofType('react.round').map((e) => e.round)).toEqual([1, 2, 3]);
  });

  it('the budget is asked before each round and its exit ends the node', async () => {
    let rounds = 0;
    const over = { kind: 'failed', reason: 'TOKEN_BUDGET', message: 'over budget' } as const;
    const host = new LoopHostFake({
      tools,
      budget: () => (rounds++ >= 1 ? over : null),
      model: [modelTurn(1, ['lookup'])],
    });
    expect(await runNode(host)).toEqual(over);
    expect(host.requests).toHaveLength(1);
  });

  it('several successes in a wave run in order; builtin_node_fail ends the node FAILED_BY_MODEL', async () => {
    const host = new LoopHostFake({
      tools,
      model: [
        modelTurn(
          1,
          ['lookup', { id: 1 }],
          ['lookup', { id: 2 }],
          ['builtin_node_fail', { reason: 'closed' }],
          ['noop'],
        ),
      ],
    });
    expect(await runNode(host)).toEqual({ kind: 'failed', reason: 'FAILED_BY_MODEL', message: 'closed' });
    expect(host.toolCalls.map((c) => c.tool)).toEqual(['lookup', 'lookup', 'builtin_node_fail']);
    expect(host.loop.wave).toBeNull();
  });

  it('a model error fails the node MODEL_FAILED after a checkpoint; the usage of failed calls is not recorded', async () => {
    const host = new LoopHostFake({ tools, model: [modelTurn(1, ['lookup']), modelError('provider down')] });
    expect(await runNode(host)).toEqual({ kind: 'failed', reason: 'MODEL_FAILED', message: 'provider down' });
    expect(host.usage).toHaveLength(1);
    expect(host.checkpoints.at(-1)).toEqual({ rounds: 2, stalls: 0, wave: false });
  });

  it('a suspending call skips the rest of its wave, suspends once and checkpoints; nothing after', async () => {
    const host = new LoopHostFake({
      tools,
      model: [modelTurn(1, ['lookup'], ['builtin_user_ask', { question: 'Which?' }], ['noop'])],
    });
    expect(await runNode(host)).toEqual({ kind: 'suspended' });
    expect(host.toolCalls.map((c) => c.tool)).toEqual(['lookup', 'builtin_user_ask']);
    expect(host.story().slice(-2)).toEqual(['invoked lookup SUCCESS', 'skipped noop']);
    expect(host.suspensions).toHaveLength(1);
    expect(host.suspensions[0]).toMatchObject({ round: 1, call: { callId: 'c1_2' } });
    expect(host.checkpoints.at(-1)).toEqual({ rounds: 1, stalls: 0, wave: false });
  });

  it('the answered call is counted on resume: a stall when it did not advance, then the next round', async () => {
    const host = new LoopHostFake({ tools, limits: { maxStalls: 1 }, model: [] });
    host.node.rounds = 1;
    host.messages.push({
      role: 'assistant',
      text: '',
      toolCalls: [{ callId: 'c1_1', tool: 'builtin_node_approval', rawArgs: '{}' }],
    });
    host.loop.resolved = {
      call: { round: 1, callId: 'c1_1', tool: 'builtin_node_approval', args: {}, kind: 'APPROVAL' },
      observation: {
        outcome: 'REJECTED',
        errorCode: 'APPROVAL_DENIED',
        reason: 'declined',
        next: 'do something else',
        data: null,
        evidenceId: null,
      } as never,
    };
    expect(await runNode(host)).toMatchObject({ kind: 'failed', reason: 'NO_PROGRESS' });
    expect(host.story()).toEqual(['invoked builtin_node_approval REJECTED', 'stall 1/1']);
    expect(host.ofType('tool.invoked')[0]).toMatchObject({ executed: false, errorCode: 'APPROVAL_DENIED' });
  });

  it('a stop before the round, or during a read, ends the node stopped and starts nothing', async () => {
    const before = new LoopHostFake({ tools, model: [finish(1)] });
    before.controller.abort();
    expect(await runNode(before)).toEqual({ kind: 'stopped' });
    expect(before.events).toEqual([]);

    const during = new LoopHostFake({
      tools: {
        ...tools,
        lookup: (call, round, args) => {
          during.controller.abort();
          return tool.ok()(call, round, args);
        },
      },
      model: [modelTurn(1, ['lookup'], ['noop'])],
    });
    expect(await runNode(during)).toEqual({ kind: 'stopped' });
    expect(during.toolCalls.map((c) => c.tool)).toEqual(['lookup']);
    expect(during.ofType('tool.invoked')).toEqual([]);
    expect(during.loop.wave).toMatchObject({ next: 0 });
  });

  it('resumes mid-wave from loop.wave after a restart without asking the model', async () => {
    const host = new LoopHostFake({ tools, model: [] });
    const turn = modelTurn(1, ['lookup'], ['builtin_node_finish', { summary: 'ok' }]);
    if (!turn.ok) throw new Error('unreachable');
    host.node.rounds = 1;
    host.messages.push({ role: 'assistant', text: '', toolCalls: turn.toolCalls });
    host.messages.push({ role: 'tool', callId: 'c1_1', tool: 'lookup', content: '[SUCCESS] done' });
    host.loop.wave = { round: 1, calls: turn.toolCalls, next: 1 };
    expect(await runNode(host)).toEqual({ kind: 'completed', reply: 'ok' });
    expect(host.toolCalls).toEqual([{ tool: 'builtin_node_finish', round: 1 }]);
    expect(host.requests).toHaveLength(0);
  });

  it('each round hands the newest message to the host (where the conversation is made and compacted); it is not stored', async () => {
    const host = new LoopHostFake({
      tools,
      phaseHint: (round) => (round === 1 ? 'outputs missing: key' : null),
      model: [modelTurn(1, ['lookup']), finish(2)],
    });
    await runNode(host);
    const [first, second] = host.requests;
    expect(first).toMatchObject({ system: 'system: do the work', signal: host.signal });
    expect(first?.tools.map((t) => t.name)).toContain('lookup');
    expect(first?.messages.at(-1)).toEqual({ role: 'user', content: 'outputs missing: key' });
    expect(second?.messages.at(-1)).toMatchObject({ role: 'tool', callId: 'c1_1' });
    expect(host.messages.some((m) => m.role === 'user')).toBe(false);
    expect(host.events.slice(0, 2)).toEqual([
      { type: 'react.round', nodeId: 'work', round: 1 },
      { type: 'phase.hint', nodeId: 'work', round: 1, text: 'outputs missing: key' },
    ]);
  });

  it('a write whose result is unknown after a crash counts a stall, skips the rest and asks the person', async () => {
    const unknown: SyncTool = (call, round, args) => ({
      ...tool.failed()(call, round, args),
      runtimeQuestion: 'Did the refund go through?',
    });
    const host = new LoopHostFake({
      tools: { ...tools, refund: unknown },
      model: [modelTurn(1, ['refund'], ['noop'])],
    });
    expect(await runNode(host)).toEqual({ kind: 'suspended' });
    expect(host.story().slice(-3)).toEqual(['invoked refund FAILED', 'stall 1/5', 'skipped noop']);
    expect(host.suspensions[0]).toMatchObject({
      effect: { suspension: { kind: 'FOLLOW_UP', pending: { question: 'Did the refund go through?' } } },
      extra: { runtimeQuestion: true },
    });
  });

  it("the answer to the runtime's own question reaches the model as a user message", async () => {
    const host = new LoopHostFake({ tools, model: [finish(2)] });
    host.node.rounds = 1;
    host.loop.resolved = {
      call: { round: 1, callId: 'c1_1', tool: 'refund', args: {}, kind: 'FOLLOW_UP', runtimeQuestion: true },
      observation: {
        outcome: 'SUCCESS',
        errorCode: null,
        reason: 'answered',
        next: null,
        data: { answer: 'yes, it went through' },
        evidenceId: null,
      } as never,
    };
    expect(await runNode(host)).toMatchObject({ kind: 'completed' });
    expect(host.requests[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'yes, it went through' });
    expect(host.ofType('tool.invoked').map((e) => e.tool)).toEqual(['builtin_node_finish']);
  });

  it('after a stop a write left in flight by a dead driver is still settled, then the loop stops', async () => {
    const turn = modelTurn(1, ['save'], ['lookup']);
    if (!turn.ok) throw new Error('unreachable');
    const host = new LoopHostFake({
      tools: { ...tools, save: (c, r, args) => ({ ...tool.ok()(c, r, args), sent: true }) },
      interrupted: (call) => call.callId === 'c1_1',
      model: [],
    });
    host.node.rounds = 1;
    host.messages.push({ role: 'assistant', text: '', toolCalls: turn.toolCalls });
    host.loop.wave = { round: 1, calls: turn.toolCalls, next: 0 };
    host.controller.abort();
    expect(await runNode(host)).toEqual({ kind: 'stopped' });
    expect(host.toolCalls).toEqual([{ tool: 'save', round: 1 }]);
    expect(host.story()).toEqual(['invoked save SUCCESS']);
  });

  it('a node resumed with its stall limit reached and nothing pending fails NO_PROGRESS without a model call', async () => {
    const host = new LoopHostFake({ tools, limits: { maxStalls: 2 }, model: [] });
    host.node.stalls = 2;
    expect(await runNode(host)).toMatchObject({ kind: 'failed', reason: 'NO_PROGRESS' });
    expect(host.events).toEqual([]);
  });

  it('the fake is strict: a model call past the script, or an unknown tool, throws', async () => {
    await expect(runNode(new LoopHostFake({ tools, model: [modelTurn(1, ['lookup'])] }))).rejects.toThrow(
      /the model was called 2 times/,
    );
    await expect(runNode(new LoopHostFake({ tools, model: [modelTurn(1, ['nope'])] }))).rejects.toThrow(
      /does not offer/,
    );
  });
});
