import { describe, expect, it } from 'vitest';
import { loadFlow } from '../../src/flow/load.js';
import { resolveRunInput, validateRunInput } from '../../src/flow/input.js';
import { RunError } from '../../src/domain/run-error.js';
import { tempFiles } from './helpers.js';

const textFlow = (await loadFlow({ id: 't', nodes: [{ id: 'a' }] })).flow;
const orderFlow = (
  await loadFlow({
    id: 'order',
    input: {
      type: 'object',
      properties: {
        buyer: { type: 'string' },
        plan: { enum: ['basic', 'pro'] },
        items: { type: 'array', items: { type: 'object', properties: { qty: { type: 'integer' } } } },
      },
      required: ['buyer'],
      additionalProperties: false,
    },
    nodes: [{ id: 'a' }],
  })
).flow;

async function failure(promise: Promise<unknown>): Promise<RunError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toMatchObject({ code: 'INPUT_INVALID' });
  return error as RunError;
}

describe('resolveRunInput', () => {
  it('--input TEXT gives {text} on the default schema', async () => {
    await expect(resolveRunInput(textFlow, { text: '建一个站点' })).resolves.toEqual({ text: '建一个站点' });
  });

  it('--input on a flow whose schema does not accept {text} is a usage error naming the fields', async () => {
    const error = await failure(resolveRunInput(orderFlow, { text: 'hi' }));
    expect(error.message).toMatch(
      /^--input gives \{text\}, which flow "order" does not accept as input; give --input-json/,
    );
    expect(error.problems).toEqual(['buyer: required', 'text: unknown field (not allowed by the schema)']);
  });

  it('--input-json JSON is parsed and validated, naming each failing field', async () => {
    await expect(resolveRunInput(orderFlow, { json: '{"buyer":"张三","plan":"pro"}' })).resolves.toEqual({
      buyer: '张三',
      plan: 'pro',
    });
    const error = await failure(
      resolveRunInput(orderFlow, { json: '{"buyer":1,"plan":"gold","items":[{"qty":"x"}]}' }),
    );
    expect(error.message.split('\n')[0]).toBe('--input-json does not match the input schema of flow "order"');
    expect(error.problems).toEqual([
      'buyer: expected string',
      'plan: expected one of: "basic", "pro"',
      'items[0].qty: expected integer',
    ]);
  });

  it('--input-json @file reads the file relative to cwd', async () => {
    const dir = await tempFiles({ 'in.json': '{"buyer":"李四"}', 'bad.json': '{buyer' });
    await expect(resolveRunInput(orderFlow, { json: '@in.json' }, { cwd: dir })).resolves.toEqual({
      buyer: '李四',
    });
    expect((await failure(resolveRunInput(orderFlow, { json: '@bad.json' }, { cwd: dir }))).message).toMatch(
      /^--input-json file bad\.json is not valid JSON: /,
    );
    expect((await failure(resolveRunInput(orderFlow, { json: '@nope.json' }, { cwd: dir }))).message).toBe(
      '--input-json file nope.json: file not found',
    );
  });

  it('rejects JSON that does not parse, both options, and no input when one is required', async () => {
    expect((await failure(resolveRunInput(textFlow, { json: '{text:' }))).message).toMatch(
      /^--input-json is not valid JSON: /,
    );
    expect((await failure(resolveRunInput(textFlow, { text: 'a', json: '{}' }))).message).toBe(
      'give either --input or --input-json, not both',
    );
    const none = await failure(resolveRunInput(textFlow, {}));
    expect(none.message).toMatch(/^flow "t" needs an input: give --input TEXT or --input-json JSON\|@file/);
    expect(none.problems).toEqual(['text: required']);
  });

  it('accepts no input when the schema allows {}', async () => {
    const flow = (await loadFlow({ id: 'free', input: { type: 'object' }, nodes: [{ id: 'a' }] })).flow;
    await expect(resolveRunInput(flow, {})).resolves.toEqual({});
  });

  it('a non-object JSON value is refused even when the schema would take it', async () => {
    const flow = (await loadFlow({ id: 'any', input: {}, nodes: [{ id: 'a' }] })).flow;
    expect((await failure(resolveRunInput(flow, { json: '[1]' }))).message).toBe(
      '--input-json must be a JSON object',
    );
  });

  it('validateRunInput validates library input the same way', () => {
    expect(validateRunInput(textFlow, { text: 'x' })).toEqual([]);
    expect(validateRunInput(textFlow, { text: 3 })).toEqual(['text: expected string']);
    expect(validateRunInput(textFlow, 'x')).toEqual(['(input): expected object']);
  });
});
