import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelCallContext, ModelRequest, ModelResult } from '../../src/model/model.js';
import { loadScriptedModel, scriptedModel, type ScriptedTurn } from '../../src/model/scripted.js';

/**
 * The scripted model (docs/models/README.md) where scripted.test.ts does not go: nodes that run at the
 * same time (turns by `node:` and `item:`, served by each node's own call index), the messages for a
 * missing turn, and what a bad script or script file is refused with.
 */

const request: ModelRequest = { system: '', messages: [], tools: [] };
const at = (nodeId: string, nodeCallIndex: number, itemIndex?: number): ModelCallContext => ({
  runId: 'r',
  nodeId,
  callIndex: 999,
  nodeCallIndex,
  ...(itemIndex !== undefined ? { itemIndex } : {}),
});
const text = (result: ModelResult) => (result.ok ? result.text : `! ${result.message}`);

describe('scripted model with parallel branches (nodeCallIndex)', () => {
  const turns: ScriptedTurn[] = [
    { node: 'left', text: 'L1' },
    { node: 'right', text: 'R1', calls: [{ tool: 'x' }, { tool: 'y', id: 'own' }] },
    { text: 'nobody' },
    { node: 'left', text: 'L2', calls: [{ tool: 'z', args: { n: 1 } }] },
  ];
  const model = scriptedModel({ turns });

  it("serves each node its own turns in order by its own call index, whatever the run's call index", async () => {
    expect(text(await model.call(request, at('left', 0)))).toBe('L1');
    expect(text(await model.call(request, at('right', 0)))).toBe('R1');
    expect(text(await model.call(request, at('left', 1)))).toBe('L2');
  });

  it('names call ids after the node, its call number and the call', async () => {
    const right = await model.call(request, at('right', 0));
    expect(right.ok && right.toolCalls).toEqual([
      { callId: 'call_right_1_1', tool: 'x', rawArgs: '{}' },
      { callId: 'own', tool: 'y', rawArgs: '{}' },
    ]);
    const left = await model.call(request, at('left', 1));
    expect(left.ok && left.toolCalls).toEqual([{ callId: 'call_left_2_1', tool: 'z', rawArgs: '{"n":1}' }]);
  });

  it('a turn without `node:` is nobody’s; past a node’s last turn the call fails, naming node and number', async () => {
    expect(await model.call(request, at('left', 2))).toEqual({
      ok: false,
      message:
        'scripted model has no turn 3 for node left (nodes running at the same time take the turns naming them, in order)',
    });
    expect(text(await model.call(request, at('other', 0)))).toBe(
      '! scripted model has no turn 1 for node other (nodes running at the same time take the turns naming them, in order)',
    );
  });
});

describe('scripted model in a map body (itemIndex)', () => {
  it('without `item:` turns, every item takes the node’s turns from the first', async () => {
    const model = scriptedModel({
      turns: [
        { node: 'body', text: 'first' },
        { node: 'body', text: 'second' },
      ],
    });
    expect(text(await model.call(request, at('body', 0, 0)))).toBe('first');
    expect(text(await model.call(request, at('body', 0, 5)))).toBe('first');
    expect(text(await model.call(request, at('body', 1, 5)))).toBe('second');
    const withCall = scriptedModel({ turns: [{ node: 'body', calls: [{ tool: 't' }] }] });
    const answer = await withCall.call(request, at('body', 0, 3));
    expect(answer.ok && answer.toolCalls[0]?.callId).toBe('call_body_3_1_1');
  });

  it('with `item:` turns, each item takes only its own, and a missing one names the item', async () => {
    const model = scriptedModel({
      turns: [
        { node: 'body', item: 1, text: 'one-a' },
        { node: 'body', item: 0, text: 'zero-a' },
        { node: 'body', text: 'for no item' },
        { node: 'body', item: 1, text: 'one-b' },
      ],
    });
    expect(text(await model.call(request, at('body', 0, 0)))).toBe('zero-a');
    expect(text(await model.call(request, at('body', 0, 1)))).toBe('one-a');
    expect(text(await model.call(request, at('body', 1, 1)))).toBe('one-b');
    expect(text(await model.call(request, at('body', 1, 0)))).toBe(
      '! scripted model has no turn 2 for node body item 0 (nodes running at the same time take the turns naming them, in order)',
    );
    expect(text(await model.call(request, at('body', 0, 2)))).toMatch(
      /^! scripted model has no turn 1 for node body item 2 /,
    );
  });

  it('schemaArgs naming a tool the call was not given fails that turn, named by node, item and number', async () => {
    const model = scriptedModel({
      turns: [{ node: 'body', calls: [{ tool: 'a', schemaArgs: { s: 'missing' } }] }],
    });
    expect(await model.call(request, at('body', 0, 2))).toEqual({
      ok: false,
      message:
        'scripted model turn body_2_1: schemaArgs names tool missing, which this model call was not given',
    });
  });
});

describe('scripted model: sequential calls', () => {
  it('a turn for the node the run is in is served; an explicit arg wins over nothing, schemaArgs over args', async () => {
    const schema = { type: 'object', properties: { q: { type: 'string' } } };
    const model = scriptedModel({
      turns: [
        { node: 'n', calls: [{ tool: 'a', args: { s: 'literal', k: 1 }, schemaArgs: { s: 'search' } }] },
      ],
    });
    const answer = await model.call(
      { ...request, tools: [{ name: 'search', description: '', inputSchema: schema }] },
      { runId: 'r', nodeId: 'n', callIndex: 0 },
    );
    expect(answer.ok && JSON.parse(answer.toolCalls[0]?.rawArgs ?? '')).toEqual({ s: schema, k: 1 });
  });

  it('the id defaults to scripted:inline and can be given', () => {
    expect(scriptedModel({ turns: [] }).id).toBe('scripted:inline');
    expect(scriptedModel({ turns: [] }, 'scripted:mine').id).toBe('scripted:mine');
  });
});

describe('script validation', () => {
  const bad = (script: unknown) => () => scriptedModel(script as never);

  it('refuses what breaks the format, naming the place', () => {
    expect(bad({})).toThrow(/^invalid scripted model: /);
    expect(bad({ turns: [{ item: -1 }] })).toThrow(/turns\[0\]\.item|turns\.0\.item/);
    expect(bad({ turns: [{ item: 1.5 }] })).toThrow(/invalid scripted model/);
    expect(bad({ turns: [{ node: '' }] })).toThrow(/invalid scripted model/);
    expect(bad({ turns: [{ calls: [{ tool: '' }] }] })).toThrow(/invalid scripted model/);
    expect(bad({ turns: [{ calls: [{ tool: 'a', rawArgs: '{}', args: {} }] }] })).toThrow(
      /invalid scripted model/,
    );
    expect(bad({ turns: [{ usage: { inputTokens: 1 } }] })).toThrow(/invalid scripted model/);
    expect(bad({ turns: [{ usage: { inputTokens: -1, outputTokens: 0 } }] })).toThrow(
      /invalid scripted model/,
    );
    expect(bad({ turns: [], extra: true })).toThrow(/invalid scripted model/);
  });

  it('a script that is not plain JSON data is validated each time and fails there', () => {
    const script = { turns: [{ text: 1n }] };
    expect(bad(script)).toThrow(/^invalid scripted model: /);
    expect(bad(script)).toThrow(/^invalid scripted model: /);
  });
});

describe('loadScriptedModel', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  function file(name: string, content: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-'));
    dirs.push(dir);
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  }
  const refusal = (path: string, max?: number) => {
    try {
      loadScriptedModel(path, max);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error(`loaded ${path}`);
  };

  it('names the place and the rule, never the content of the file', () => {
    const top = file('top.yaml', '- secret-value-1\n');
    expect(refusal(top)).toBe(`scripted model file ${top}: (top level): expected object`);
    const key = file('key.yaml', 'turns:\n  - text: ok\n  - txet: secret-value-2\n');
    const message = refusal(key);
    expect(message).toBe(
      `scripted model file ${key}: turns.1: unknown key (expected turns; a turn has node, item, text, calls, usage; a call tool, args, schemaArgs, rawArgs, id)`,
    );
    expect(message).not.toContain('secret-value-2');
    expect(message).not.toContain('txet');
    const typed = file('typed.yaml', 'turns:\n  - text: 5\n    usage: { inputTokens: x, outputTokens: 1 }\n');
    expect(refusal(typed)).toBe(
      `scripted model file ${typed}: turns.0.text: expected string; turns.0.usage.inputTokens: expected number`,
    );
  });

  it('shows five issues and counts the rest', () => {
    const many = file(
      'many.yaml',
      `turns:\n${Array.from({ length: 7 }, (_, i) => `  - text: ${i}\n`).join('')}`,
    );
    expect(refusal(many)).toBe(
      `scripted model file ${many}: ${[0, 1, 2, 3, 4].map((i) => `turns.${i}.text: expected string`).join('; ')}; and 2 more`,
    );
  });

  it('refuses a file over the size cap, a folder, and YAML that does not parse', () => {
    const big = file('big.yaml', `turns:\n  - text: ${'x'.repeat(200)}\n`);
    expect(refusal(big, 100)).toMatch(
      new RegExp(`^cannot read scripted model file ${big.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `),
    );
    expect(loadScriptedModel(big, 10_000).id).toBe(`scripted:${big}`);
    expect(refusal(join(big, '..'))).toMatch(/^cannot read scripted model file /);
    const broken = file('broken.yaml', 'turns: [ {\n');
    expect(refusal(broken)).toMatch(new RegExp(`^scripted model file .*broken\\.yaml is not valid YAML: `));
  });

  it('a JSON file is YAML too; its turns answer in order', async () => {
    const path = file(
      'turns.json',
      JSON.stringify({ turns: [{ text: 'a' }, { text: 'b', usage: { inputTokens: 2, outputTokens: 3 } }] }),
    );
    const model = loadScriptedModel(path);
    expect(text(await model.call(request, { runId: 'r', nodeId: 'n', callIndex: 1 }))).toBe('b');
    const second = await model.call(request, { runId: 'r', nodeId: 'n', callIndex: 1 });
    expect(second.ok && second.usage).toEqual({ inputTokens: 2, outputTokens: 3, totalTokens: 5 });
  });
});
