import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { loadScriptedModel, ScriptSchema, scriptedModel } from '../../src/model/scripted.js';
import type { ModelRequest } from '../../src/model/model.js';
import type { Runtime } from '../../src/runtime/runtime.js';
import {
  call,
  eventsOf,
  flow,
  makeRuntime,
  ofType,
  script,
  sqliteUrl,
  tempDir,
  toolKit,
  turn,
} from '../runtime/helpers.js';

const request: ModelRequest = { system: '', messages: [], tools: [] };
const ctx = (callIndex: number, nodeId = 'n') => ({ runId: 'r', nodeId, callIndex });

describe('scriptedModel', () => {
  it('sets schemaArgs to the input schema the model call was given for a tool, untouched', async () => {
    const inputSchema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { id: { $anchor: 'id', type: 'string' } },
      properties: { id: { $ref: '#/$defs/id' } },
      additionalProperties: false,
    };
    const given: ModelRequest = {
      ...request,
      tools: [{ name: 'rich', description: '', inputSchema }],
    };
    const model = scriptedModel({
      turns: [{ calls: [{ tool: 'echo', args: { note: 'n' }, schemaArgs: { schema: 'rich' } }] }],
    });
    const answer = await model.call(given, ctx(0));
    expect(answer.ok && JSON.parse(answer.toolCalls[0]!.rawArgs)).toEqual({ note: 'n', schema: inputSchema });
    const missing = await model.call(request, ctx(0));
    expect(missing).toMatchObject({
      ok: false,
      message: expect.stringMatching(/schemaArgs names tool rich/),
    });
  });

  it('validates a script once per content; the model keeps its own copy of the turns', async () => {
    const text = `once-${Math.random()}`;
    const spy = vi.spyOn(ScriptSchema, 'safeParse');
    try {
      const build = () => ({ turns: [{ text, calls: [{ tool: 'x', args: { a: 1 } }] }] });
      const first = build();
      const model = scriptedModel(first);
      scriptedModel(build());
      expect(spy).toHaveBeenCalledTimes(1);
      first.turns[0]!.text = 'changed after';
      const answer = await model.call(request, ctx(0));
      expect(answer).toMatchObject({ ok: true, text, toolCalls: [{ tool: 'x', rawArgs: '{"a":1}' }] });
      // Invalid content is never cached: it fails every time.
      const bad = { turns: [{ txt: text }] } as never;
      expect(() => scriptedModel(bad)).toThrow(/invalid scripted model/);
      expect(() => scriptedModel(bad)).toThrow(/invalid scripted model/);
      expect(spy).toHaveBeenCalledTimes(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers call i with turn i: call ids, raw and JSON arguments, text and usage', async () => {
    const model = scriptedModel({
      turns: [
        {
          text: 'hello',
          usage: { inputTokens: 10, outputTokens: 3 },
          calls: [
            { tool: 'a', args: { x: 1 } },
            { tool: 'b', rawArgs: '{not json' },
            { tool: 'c', id: 'mine' },
          ],
        },
        { node: 'n' },
      ],
    });
    expect(await model.call(request, ctx(0))).toEqual({
      ok: true,
      text: 'hello',
      usage: { inputTokens: 10, outputTokens: 3, totalTokens: 13 },
      toolCalls: [
        { callId: 'call_1_1', tool: 'a', rawArgs: '{"x":1}' },
        { callId: 'call_1_2', tool: 'b', rawArgs: '{not json' },
        { callId: 'mine', tool: 'c', rawArgs: '{}' },
      ],
    });
    expect(await model.call(request, ctx(1))).toEqual({
      ok: true,
      text: '',
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    });
  });

  it('past the last turn, and for a turn of another node, it answers a clear failure', async () => {
    const model = scriptedModel({ turns: [{ node: 'create' }] });
    expect(await model.call(request, ctx(0, 'query'))).toEqual({
      ok: false,
      message: 'scripted model turn 1 is for node create, but the run is in node query',
    });
    expect(await model.call(request, ctx(1, 'create'))).toEqual({
      ok: false,
      message: 'scripted model has no turn 2',
    });
  });

  it('rejects an invalid script (unknown keys are errors)', () => {
    expect(() => scriptedModel({ turns: [{ tool: 'x' } as never] })).toThrow(/invalid scripted model/);
  });

  it('loadScriptedModel names the file in every error', () => {
    const dir = tempDir();
    expect(() => loadScriptedModel(join(dir, 'missing.yaml'))).toThrow(
      /cannot read scripted model file .*missing\.yaml/,
    );
    writeFileSync(join(dir, 'bad.yaml'), 'turns: [\n');
    expect(() => loadScriptedModel(join(dir, 'bad.yaml'))).toThrow(/bad\.yaml is not valid YAML/);
    writeFileSync(join(dir, 'wrong.yaml'), 'turns:\n  - calls: [{ tool: a, argz: {} }]\n');
    expect(() => loadScriptedModel(join(dir, 'wrong.yaml'))).toThrow(/wrong\.yaml/);
    writeFileSync(join(dir, 'ok.yaml'), 'turns:\n  - text: hi\n');
    expect(loadScriptedModel(join(dir, 'ok.yaml')).id).toBe(`scripted:${join(dir, 'ok.yaml')}`);
  });
});

describe('scripted model in a run', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  function rt(store?: string, kit = toolKit()) {
    const runtime = makeRuntime(kit, store ? { store } : {});
    runtimes.push(runtime);
    return runtime;
  }

  it('past its last turn the run fails: node.failed MODEL_FAILED "scripted model has no turn N"', async () => {
    const runtime = rt();
    const loaded = await flow({ nodes: [{ id: 'work', tools: ['lookup'] }] });
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script(turn([call.tool('lookup', { id: 1 })])),
    });
    expect(run).toMatchObject({
      status: 'failed',
      reason: 'MODEL_FAILED',
      failedNode: 'work',
      message: 'scripted model has no turn 2',
    });
    const events = await eventsOf(runtime, run.runId);
    expect(ofType(events, 'node.failed')).toEqual([
      expect.objectContaining({
        nodeId: 'work',
        reason: 'MODEL_FAILED',
        message: 'scripted model has no turn 2',
      }),
    ]);
    expect(ofType(events, 'run.failed')).toEqual([
      expect.objectContaining({
        reason: 'MODEL_FAILED',
        failedNode: 'work',
        message: 'scripted model has no turn 2',
      }),
    ]);
    expect(ofType(events, 'model.response')).toHaveLength(1);
  });

  it('a turn written for another node fails the run clearly', async () => {
    const runtime = rt();
    const loaded = await flow({
      nodes: [{ id: 'query' }, { id: 'create' }],
      edges: [{ from: 'query', to: 'create' }],
    });
    const run = await runtime.start(loaded, {
      input: { text: 'go' },
      model: script(turn([call.finish()], 'create')),
    });
    expect(run).toMatchObject({
      status: 'failed',
      reason: 'MODEL_FAILED',
      failedNode: 'query',
      message: 'scripted model turn 1 is for node create, but the run is in node query',
    });
  });

  it('the turn index counts across nodes and is persisted: a second process continues at the next turn', async () => {
    const dir = tempDir();
    const file = join(dir, 'turns.yaml');
    writeFileSync(
      file,
      [
        'turns:',
        '  - { node: a, calls: [{ tool: builtin_node_finish, args: { summary: a done } }], usage: { inputTokens: 5, outputTokens: 1 } }',
        '  - { node: b, calls: [{ tool: builtin_node_follow_up, args: { question: Which? } }], usage: { inputTokens: 7, outputTokens: 2 } }',
        '  - { node: b, calls: [{ tool: builtin_node_finish, args: { summary: b done } }], usage: { inputTokens: 11, outputTokens: 3 } }',
      ].join('\n'),
    );
    const db = sqliteUrl();
    const loaded = await flow({ nodes: [{ id: 'a' }, { id: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    const first = await rt(db).start(loaded, { input: { text: 'go' }, model: `scripted:${file}` });
    expect(first).toMatchObject({
      status: 'suspended',
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
    });
    const other = rt(db);
    const row = await (await other.db()).getRun(first.runId);
    expect(row?.model).toBe(`scripted:${file}`);
    expect((row?.state as { modelCalls: number }).modelCalls).toBe(2);
    const end = await other.answer(first.runId, 'that one');
    expect(end).toMatchObject({
      status: 'completed',
      outputs: { a: {}, b: {} },
      usage: { inputTokens: 23, outputTokens: 6, totalTokens: 29 },
    });
    const responses = ofType(await eventsOf(other, first.runId), 'model.response');
    expect(responses.map((e) => e.usage)).toEqual([
      { inputTokens: 5, outputTokens: 1, totalTokens: 6 },
      { inputTokens: 7, outputTokens: 2, totalTokens: 9 },
      { inputTokens: 11, outputTokens: 3, totalTokens: 14 },
    ]);
  });

  it("a flow's relative scripted: model resolves against the flow's folder (library API)", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'flow.yaml'),
      'id: rel\nlocale: en\nmodel: scripted:./turns.yaml\nnodes:\n  - id: a\n',
    );
    writeFileSync(
      join(dir, 'turns.yaml'),
      'turns:\n  - calls: [{ tool: builtin_node_finish, args: { summary: ok } }]\n',
    );
    const runtime = rt();
    const run = await runtime.start(await loadFlow(join(dir, 'flow.yaml')), { input: { text: 'go' } });
    expect(run.status).toBe('completed');
    expect((await (await runtime.db()).getRun(run.runId))?.model).toBe(`scripted:${join(dir, 'turns.yaml')}`);
  });
});
