/**
 * Run budgets (issue 20): `limits.maxTokens` and `limits.maxCost` (child runs included) end the node
 * FAILED BUDGET_EXCEEDED before the next model call, never in the middle of a call or a write; and
 * `limits.maxOutputTokens` reaches the provider's request.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { aiSdkModel } from '../../src/model/ai-sdk/adapter.js';
import { createLanguageModel } from '../../src/model/ai-sdk/factories.js';
import { createRuntime } from '../../src/runtime/create.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import { contextModel } from '../../src/engine/context-host.js';
import { newNodeState } from '../../src/records/run-state.js';
import { LimitsSchema } from '../../src/domain/flow.js';
import { startFakeProvider, type FakeProvider } from '../model/ai-sdk/fake-provider.js';
import { reply } from '../../src/testing/fake-model/wire.js';
import {
  eventsOf,
  flow,
  makeRuntime,
  ofType,
  script,
  sqliteUrl,
  tempDir,
  toolKit,
  type ToolKit,
} from '../runtime/helpers.js';

const runtimes: Runtime[] = [];
const servers: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const usage = (inputTokens: number, outputTokens = 100) => ({ inputTokens, outputTokens });

function setup(options: { kit?: ToolKit; store?: string } = {}) {
  const kit = options.kit ?? toolKit();
  const runtime = makeRuntime(kit, options.store ? { store: options.store } : {});
  runtimes.push(runtime);
  return { kit, runtime };
}

describe('limits.maxTokens', () => {
  it('fails the node BUDGET_EXCEEDED before the next model call; the approved write that crossed it ran to its end', async () => {
    const { kit, runtime } = setup({ store: sqliteUrl() });
    const loaded = await flow({
      limits: { maxTokens: 5_000 },
      nodes: [{ id: 'work', tools: ['lookup', 'save'] }],
    });
    const model = script(
      { calls: [{ tool: 'save', args: { name: 'a' } }], usage: usage(1_000) },
      {
        calls: [{ tool: 'builtin_node_approval', args: { tool: 'save', summary: 'save a' } }],
        usage: usage(1_200),
      },
      // This answer brings the run to 5,500 tokens; its write still runs, then no model call follows.
      {
        calls: [
          { tool: 'save', args: { name: 'a' } },
          { tool: 'lookup', args: { id: 1 } },
        ],
        usage: usage(2_900, 200),
      },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'never asked' } }] },
    );
    const first = await runtime.start(loaded, { input: { text: 'save a' }, model });
    expect(first.status).toBe('suspended');
    const run = await runtime.approve(first.runId, { comment: 'ok' });
    expect(run).toMatchObject({ status: 'failed', reason: 'BUDGET_EXCEEDED', failedNode: 'work' });
    expect(run.message).toBe('The run has used 5500 tokens, reaching maxTokens 5000');
    expect(run.usage).toEqual({ inputTokens: 5_100, outputTokens: 400, totalTokens: 5_500 });
    expect(kit.calls.save).toEqual([{ name: 'a' }]);
    expect(kit.count('lookup')).toBe(1);
    const events = await eventsOf(runtime, run.runId);
    const tail = events
      .slice(-4)
      .map((e) => [e.type, 'tool' in e ? e.tool : null, 'outcome' in e ? e.outcome : null]);
    expect(tail).toEqual([
      ['tool.invoked', 'save', 'SUCCESS'],
      ['tool.invoked', 'lookup', 'SUCCESS'],
      ['node.failed', null, null],
      ['run.failed', null, null],
    ]);
    expect(events.at(-4)).toMatchObject({ executed: true, evidenceId: 'ev_1' });
    expect(ofType(events, 'model.response')).toHaveLength(3);
    expect(ofType(events, 'node.failed')[0]).toMatchObject({ reason: 'BUDGET_EXCEEDED' });
  });

  it('counts the tokens of child runs', async () => {
    const dir = tempDir('budget-child-');
    writeFileSync(
      join(dir, 'child.yaml'),
      [
        'id: helper',
        'locale: en',
        'model: scripted:./child-turns.yaml',
        'nodes:',
        '  - id: help',
        '    instructions: Help.',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'child-turns.yaml'),
      [
        'turns:',
        '  - calls: [{ tool: builtin_node_finish, args: { summary: helped } }]',
        '    usage: { inputTokens: 4000, outputTokens: 500 }',
      ].join('\n'),
    );
    const runtime = createRuntime({ store: 'memory', logger: false });
    runtimes.push(runtime);
    const parent = await loadFlow(
      {
        id: 'parent',
        locale: 'en',
        limits: { maxTokens: 5_000 },
        nodes: [{ id: 'main', delegates: ['./child.yaml'] }],
      },
      { baseDir: dir },
    );
    const model = script(
      {
        calls: [{ tool: 'builtin_node_delegate', args: { flow: 'helper', task: 'help' } }],
        usage: usage(600),
      },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'never asked' } }] },
    );
    const run = await runtime.start(parent, { input: { text: 'go' }, model });
    expect(run).toMatchObject({ status: 'failed', reason: 'BUDGET_EXCEEDED' });
    // 600 + 100 of the parent's own call, 4,500 of the child's.
    expect(run.message).toBe('The run has used 5200 tokens, reaching maxTokens 5000');
    expect(run.usage.totalTokens).toBe(700);
  });
  it('a child run spends from its parent budget: it stops once the parent tree reached it, then the parent', async () => {
    const dir = tempDir('budget-child-');
    writeFileSync(
      join(dir, 'child.yaml'),
      [
        'id: helper',
        'locale: en',
        'model: scripted:./child-turns.yaml',
        'nodes:',
        '  - id: help',
        '    instructions: Help.',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'child-turns.yaml'),
      [
        'turns:',
        '  - text: thinking',
        '    usage: { inputTokens: 3000, outputTokens: 0 }',
        '  - text: still thinking',
        '    usage: { inputTokens: 3000, outputTokens: 0 }',
        '  - calls: [{ tool: builtin_node_finish, args: { summary: never asked } }]',
      ].join('\n'),
    );
    const runtime = createRuntime({ store: 'memory', logger: false });
    runtimes.push(runtime);
    const parent = await loadFlow(
      {
        id: 'parent',
        locale: 'en',
        limits: { maxTokens: 5_000 },
        nodes: [{ id: 'main', delegates: ['./child.yaml'] }],
      },
      { baseDir: dir },
    );
    const model = script(
      {
        calls: [{ tool: 'builtin_node_delegate', args: { flow: 'helper', task: 'help' } }],
        usage: usage(600),
      },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'never asked' } }] },
    );
    const run = await runtime.start(parent, { input: { text: 'go' }, model });
    const [child] = await runtime.list({ parentRunId: run.runId });
    expect(child).toMatchObject({
      status: 'failed',
      reason: 'BUDGET_EXCEEDED',
      usage: { totalTokens: 6_000 },
    });
    expect(child?.message).toBe('The run has used 6700 tokens, reaching maxTokens 5000');
    expect(run).toMatchObject({
      status: 'failed',
      reason: 'BUDGET_EXCEEDED',
      message: 'The run has used 6700 tokens, reaching maxTokens 5000',
    });
    const events = await eventsOf(runtime, run.runId);
    expect(ofType(events, 'tool.invoked')[0]).toMatchObject({
      tool: 'builtin_node_delegate',
      outcome: 'FAILED',
      errorCode: 'DELEGATE_FAILED',
    });
  });
});

describe('limits.maxCost', () => {
  it('prices each call by the model that made it and fails the node once the cost is reached', async () => {
    const { kit, runtime } = setup();
    const loaded = await flow({
      limits: { maxCost: 0.01 },
      prices: { 'scripted:inline': { input: 2, output: 10 } },
      nodes: [{ id: 'work', tools: ['lookup'] }],
    });
    // Each call: 2,000 × 2 / 1M + 100 × 10 / 1M = 0.005.
    const model = script(
      { calls: [{ tool: 'lookup', args: { id: 1 } }], usage: usage(2_000) },
      { calls: [{ tool: 'lookup', args: { id: 2 } }], usage: usage(2_000) },
      { calls: [{ tool: 'builtin_node_finish', args: { summary: 'never asked' } }] },
    );
    const run = await runtime.start(loaded, { input: { text: 'go' }, model });
    expect(run).toMatchObject({
      status: 'failed',
      reason: 'BUDGET_EXCEEDED',
      message: 'The run has cost 0.01, reaching maxCost 0.01',
    });
    expect(kit.count('lookup')).toBe(2);
  });

  it('without a price for the model, fails before the first call', async () => {
    const { kit, runtime } = setup();
    const loaded = await flow({
      limits: { maxCost: 1 },
      prices: { 'openai:gpt-4.1': { input: 2, output: 8 } },
      nodes: [{ id: 'work', tools: ['lookup'] }],
    });
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script({ calls: [{ tool: 'lookup', args: { id: 1 } }] }),
    });
    expect(run).toMatchObject({ status: 'failed', reason: 'BUDGET_EXCEEDED' });
    expect(run.message).toContain('scripted:inline');
    expect(kit.count('lookup')).toBe(0);
  });
});

describe('validation', () => {
  it('rejects maxCost without prices, and without a price of the flow model', async () => {
    await expect(flow({ limits: { maxCost: 1 }, nodes: [{ id: 'work' }] })).rejects.toThrow(
      /limits\.maxCost.*expected `prices`/s,
    );
    await expect(
      flow({
        model: 'openai:gpt-4.1',
        prices: { 'openai:gpt-4o': { input: 1, output: 1 } },
        nodes: [{ id: 'work', limits: { maxCost: 1 } }],
      }),
    ).rejects.toThrow(/nodes\[0\]\.limits\.maxCost.*openai:gpt-4\.1/s);
  });
});

describe('limits.maxOutputTokens', () => {
  it.each(['openai', 'anthropic'] as const)('is sent to the provider (%s)', async (family) => {
    const server = await startFakeProvider([
      reply(family === 'openai' ? 'openai-json' : 'anthropic-json', {
        text: 'ok',
        usage: { input: 1, output: 1 },
      }),
    ]);
    servers.push(server);
    const lm = createLanguageModel(
      { name: family, family, baseURL: server.url(), apiKey: 'sk-test', headers: {} },
      'test-model',
    );
    const limits = LimitsSchema.parse({ maxOutputTokens: 333 });
    const model = contextModel(aiSdkModel(lm, { maxRetries: 0 }), {
      nodeId: 'n',
      locale: 'en',
      limits,
      node: newNodeState('n'),
      emit: () => undefined,
    });
    const result = await model.call(
      { system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [] },
      { runId: 'r', nodeId: 'n', callIndex: 0 },
    );
    expect(result.ok).toBe(true);
    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.max_tokens ?? body.max_completion_tokens).toBe(333);
  });
});
