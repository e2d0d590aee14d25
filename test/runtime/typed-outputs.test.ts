import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRuntime, loadFlow, scriptedModel, type Runtime } from '../../src/index.js';
import type { ScriptedTurn } from '../../src/model/scripted.js';
import type { StoredEvent } from '../../src/store/store.js';
import { recordingModel, sqliteUrl, tempDir } from './helpers.js';

const set = (key: string, value: unknown) => ({
  tool: 'builtin_output_set',
  args: { key, value, sourceType: 'model' },
});
const finish = { tool: 'builtin_node_finish', args: { summary: 'counted' } };

const FLOW_YAML = (locale: string) => `id: counter
locale: ${locale}
model: scripted:./turns.yaml
nodes:
  - id: count
    instructions: Count the items.
    outputs:
      count:
        required: true
        sources: [model]
        schema: { type: integer, minimum: 0 }
      detail:
        sources: [model]
        schema:
          type: object
          properties: { total: { type: integer }, names: { type: array, items: { type: string } } }
          required: [total]
`;

async function invoked(runtime: Runtime, runId: string): Promise<StoredEvent[]> {
  const events: StoredEvent[] = [];
  for await (const event of runtime.events(runId)) {
    events.push(event);
    if (event.type === 'run.completed' || event.type === 'run.failed') break;
  }
  return events.filter((e) => e.type === 'tool.invoked');
}

describe('typed outputs (outputs.<key>.schema) through a real run', () => {
  const runtimes: Runtime[] = [];
  afterEach(async () => {
    await Promise.all(runtimes.splice(0).map((r) => r.close()));
  });
  function runtime(): Runtime {
    const rt = createRuntime({ store: sqliteUrl(), logger: false });
    runtimes.push(rt);
    return rt;
  }

  it('a YAML flow with schema {type: integer, minimum: 0} rejects "many" and -1, accepts 3, and the summary keeps 3 a number', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'flow.yaml'), FLOW_YAML('en'));
    const turns: ScriptedTurn[] = [
      { calls: [set('count', 'many')] },
      { calls: [set('count', -1)] },
      { calls: [set('detail', { total: '2', names: ['a', 7] })] },
      { calls: [set('count', 3), set('detail', { total: 2, names: ['a', 'b'] }), finish] },
    ];
    const rt = runtime();
    const flow = await loadFlow(join(dir, 'flow.yaml'));
    const run = await rt.start(flow, { input: { text: 'how many?' }, model: scriptedModel({ turns }) });
    expect(run.status).toBe('completed');
    expect(run.outputs).toEqual({ count: { count: 3, detail: { total: 2, names: ['a', 'b'] } } });
    expect(typeof run.outputs.count?.count).toBe('number');
    // The stored summary (what `status --json` and the API answer) keeps the types too.
    expect((await rt.status(run.runId)).outputs).toEqual(run.outputs);

    const calls = await invoked(rt, run.runId);
    expect(calls.map((e) => [e.tool, e.outcome, e.errorCode])).toEqual([
      ['builtin_output_set', 'REJECTED', 'OUTPUT_SCHEMA_MISMATCH'],
      ['builtin_output_set', 'REJECTED', 'OUTPUT_SCHEMA_MISMATCH'],
      ['builtin_output_set', 'REJECTED', 'OUTPUT_SCHEMA_MISMATCH'],
      ['builtin_output_set', 'SUCCESS', null],
      ['builtin_output_set', 'SUCCESS', null],
      ['builtin_node_finish', 'SUCCESS', null],
    ]);
    const next =
      'write [count] again with a JSON value its schema {"type":"integer","minimum":0} accepts (numbers and objects as they are, not as strings)';
    expect(calls[0]?.message).toBe(
      `The value "many" of output [count] does not match its schema: must be of type integer. Next: ${next}.`,
    );
    expect(calls[1]?.message).toBe(
      `The value -1 of output [count] does not match its schema: must be >= 0. Next: ${next}.`,
    );
    // Nested rules name their path; an optional output may also be skipped.
    expect(calls[2]?.message).toContain(
      'does not match its schema: names.1: must be of type string; total: must be of type integer.',
    );
    expect(calls[2]?.message).toContain('you may also leave it unwritten and call builtin_node_finish');
  });

  it("the model sees each output's schema in the node's output contract", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'flow.yaml'), FLOW_YAML('en'));
    const model = recordingModel({ calls: [set('count', 1), finish] });
    const run = await runtime().start(await loadFlow(join(dir, 'flow.yaml')), {
      input: { text: 'n?' },
      model,
    });
    expect(run.status).toBe('completed');
    expect(model.requests[0]?.system).toContain(
      '- count (required; sourceType: model; schema: {"type":"integer","minimum":0})',
    );
  });

  it('zh-CN texts name the failing rule', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'flow.yaml'), FLOW_YAML('zh-CN'));
    const turns: ScriptedTurn[] = [{ calls: [set('count', 'many')] }, { calls: [set('count', 0), finish] }];
    const rt = runtime();
    const run = await rt.start(await loadFlow(join(dir, 'flow.yaml')), {
      input: { text: '有几个？' },
      model: scriptedModel({ turns }),
    });
    expect(run.outputs).toEqual({ count: { count: 0 } });
    const [first] = await invoked(rt, run.runId);
    expect(first?.message).toBe(
      '产出 [count] 的值 "many" 不符合其 schema：类型应为 integer。下一步：重新写入 [count]，value 须是符合其 schema {"type":"integer","minimum":0} 的 JSON 值（数字、对象直接写，不要写成字符串）。',
    );
  });

  it('an unknown field of an object value is named as a field, with the allowed ones', async () => {
    const schema = {
      type: 'object',
      properties: { total: { type: 'integer' } },
      additionalProperties: false,
    };
    const rt = runtime();
    const turns: ScriptedTurn[] = [
      { calls: [set('detail', { total: 1, extra: true })] },
      { calls: [finish] },
    ];
    const run = await rt.start(
      {
        id: 'strict',
        locale: 'en',
        nodes: [{ id: 'n', outputs: { detail: { sources: ['model'], schema } } }],
      },
      { input: { text: 'go' }, model: scriptedModel({ turns }) },
    );
    const [first] = await invoked(rt, run.runId);
    expect(first?.message).toContain(
      'does not match its schema: extra: is not an allowed field (allowed: total). Next:',
    );
  });

  it('bounds the reason: at most three rules, then how many more', async () => {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(['a', 'b', 'c', 'd', 'e'].map((k) => [k, { type: 'integer' }])),
    };
    const rt = runtime();
    const turns: ScriptedTurn[] = [
      { calls: [set('wide', { a: 'x', b: 'x', c: 'x', d: 'x', e: 'x' })] },
      { calls: [finish] },
    ];
    const run = await rt.start(
      { id: 'wide', locale: 'en', nodes: [{ id: 'n', outputs: { wide: { sources: ['model'], schema } } }] },
      { input: { text: 'go' }, model: scriptedModel({ turns }) },
    );
    const [first] = await invoked(rt, run.runId);
    expect(first?.errorCode).toBe('OUTPUT_SCHEMA_MISMATCH');
    expect(first?.message).toMatch(/: (\w: must be of type integer; ){3}and 2 more\. Next:/);
  });

  it('a code flow with a zod schema validates like its JSON Schema form, and the flow keeps that form', async () => {
    const rt = runtime();
    const flow = await loadFlow({
      id: 'zod-counter',
      locale: 'en',
      nodes: [
        {
          id: 'count',
          outputs: {
            count: { required: true, sources: ['model'], schema: z.int().min(0) },
            tags: { sources: ['model'], schema: z.array(z.enum(['a', 'b'])).max(2) },
          },
        },
      ],
    });
    expect(flow.flow.nodes[0]?.outputs.count?.schema).toMatchObject({ type: 'integer', minimum: 0 });
    const turns: ScriptedTurn[] = [
      { calls: [set('count', 2.5)] },
      { calls: [set('tags', ['c'])] },
      { calls: [set('count', 4), set('tags', ['a']), finish] },
    ];
    const run = await rt.start(flow, { input: { text: 'go' }, model: scriptedModel({ turns }) });
    expect(run.outputs).toEqual({ count: { count: 4, tags: ['a'] } });
    const calls = await invoked(rt, run.runId);
    expect(calls.slice(0, 2).map((e) => e.errorCode)).toEqual([
      'OUTPUT_SCHEMA_MISMATCH',
      'OUTPUT_SCHEMA_MISMATCH',
    ]);
    expect(calls[0]?.message).toContain('must be of type integer');
    expect(calls[1]?.message).toContain('0: must be one of: a, b');
  });

  it('loadFlow refuses a zod schema without a JSON Schema form, and an invalid JSON Schema, as flow problems', async () => {
    await expect(
      loadFlow({
        id: 'bad',
        nodes: [
          {
            id: 'n',
            outputs: {
              when: { sources: ['model'], schema: z.string().transform((s) => s.length) },
              count: { sources: ['model'], schema: { type: 'integr' } },
            },
          },
        ],
      }),
    ).rejects.toThrow(
      /nodes\[0\]\.outputs\.when\.schema: the zod schema has no JSON Schema form[\s\S]*nodes\[0\]\.outputs\.count\.schema[^\n]*expected a valid JSON Schema/,
    );
  });
});
