import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  CODE_MODULE_PATTERN,
  DEFAULT_INPUT_SCHEMA,
  edgeTargets,
  EdgeSchema,
  FlowSchema,
  ID_PATTERN,
  LimitsSchema,
  MAX_EXPRESSION_LENGTH,
  MODEL_PATTERN,
  NodeSchema,
  OutputContractSchema,
  PriceSchema,
  ProviderSchema,
} from '../../src/domain/flow.js';

/**
 * The flow format as zod schemas (src/domain/flow.ts, docs/flows.md "Top level", "limits", "Nodes",
 * "Outputs", "Edges"): the shapes accepted, the defaults filled in, and what is refused with which words.
 */

const minimal = { id: 'f', nodes: [{ id: 'a' }] };

/** Each issue of a failed parse as `path: message` (the flow's own custom messages are exact). */
function issues(schema: z.ZodType, data: unknown): string[] {
  const parsed = schema.safeParse(data);
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

function parseFlow(data: Record<string, unknown>) {
  return FlowSchema.parse({ ...minimal, ...data });
}

describe('FlowSchema: the defaults of docs/flows.md "Top level"', () => {
  it('fills every documented default of a minimal flow', () => {
    const flow = FlowSchema.parse(minimal);
    expect(flow).toEqual({
      id: 'f',
      version: 1,
      locale: 'zh-CN',
      mcpServers: {},
      limits: { maxRounds: 30, maxStalls: 5, fingerprintRepeats: 2, toolTimeoutMs: 30_000 },
      aliases: {},
      input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      tools: {},
      nodes: [{ id: 'a', instructions: '', tools: [], outputs: {}, delegates: [] }],
      edges: [],
    });
  });

  it('gives each flow its own copy of the default input schema, never the frozen constant', () => {
    const one = FlowSchema.parse(minimal);
    const two = FlowSchema.parse(minimal);
    expect(one.input).toEqual(DEFAULT_INPUT_SCHEMA);
    expect(one.input).not.toBe(DEFAULT_INPUT_SCHEMA);
    expect(one.input).not.toBe(two.input);
    expect(Object.isFrozen(DEFAULT_INPUT_SCHEMA)).toBe(true);
    expect(Object.isFrozen(one.input)).toBe(false);
  });

  it('keeps what the flow gives instead of the defaults', () => {
    const flow = parseFlow({
      version: 'v2-beta',
      locale: 'en',
      description: 'a flow',
      $schema: '../schema/flow.schema.json',
      input: { type: 'object' },
      sandboxExpressions: true,
    });
    expect(flow.version).toBe('v2-beta');
    expect(flow.locale).toBe('en');
    expect(flow.description).toBe('a flow');
    expect(flow.$schema).toBe('../schema/flow.schema.json');
    expect(flow.input).toEqual({ type: 'object' });
    expect(flow.sandboxExpressions).toBe(true);
  });

  it('requires an id and at least one node', () => {
    expect(issues(FlowSchema, { nodes: [{ id: 'a' }] })).toEqual([
      'id: Invalid input: expected string, received undefined',
    ]);
    expect(issues(FlowSchema, { id: 'f', nodes: [] })).toEqual([
      'nodes: Too small: expected array to have >=1 items',
    ]);
    expect(issues(FlowSchema, { id: 'f' })).toHaveLength(1);
  });

  it('refuses unknown keys at the top level, in a node and in limits (no key is ignored)', () => {
    expect(FlowSchema.safeParse({ ...minimal, node: [] }).success).toBe(false);
    expect(FlowSchema.safeParse({ id: 'f', nodes: [{ id: 'a', tool: [] }] }).success).toBe(false);
    expect(FlowSchema.safeParse({ ...minimal, limits: { maxRound: 3 } }).success).toBe(false);
    const parsed = FlowSchema.safeParse({ ...minimal, requird: true });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['requird'] });
  });
});

describe('ids', () => {
  const idMessage = 'expected an id: a letter, then letters, digits, _ or -';

  it('are a letter, then letters, digits, _ or -', () => {
    for (const good of ['a', 'Z', 'site-builder', 'step_2', 'A-_9']) {
      expect(ID_PATTERN.test(good), good).toBe(true);
      expect(issues(FlowSchema, { ...minimal, id: good }), good).toEqual([]);
    }
    for (const bad of ['', '1st', '_a', '-a', 'a.b', 'a b', 'ä', 'a/b']) {
      expect(ID_PATTERN.test(bad), bad).toBe(false);
      expect(issues(FlowSchema, { ...minimal, id: bad }), bad).toEqual([`id: ${idMessage}`]);
    }
  });

  it('apply to node ids, output keys, server keys and provider keys, with the same words', () => {
    expect(issues(FlowSchema, { id: 'f', nodes: [{ id: 'a.b' }] })).toEqual([`nodes.0.id: ${idMessage}`]);
    const outputs = issues(FlowSchema, {
      id: 'f',
      nodes: [{ id: 'a', outputs: { 'bad key': { sources: ['model'] } } }],
    });
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toMatch(/^nodes\.0\.outputs\.bad key: /);
    expect(FlowSchema.safeParse({ ...minimal, mcpServers: { '9srv': { command: 'npx' } } }).success).toBe(
      false,
    );
    expect(
      FlowSchema.safeParse({
        ...minimal,
        providers: { 'my.llm': { type: 'openai-compatible', baseURL: 'https://x.example/v1' } },
      }).success,
    ).toBe(false);
  });
});

describe('version', () => {
  it('is a positive integer or a non-empty string', () => {
    expect(parseFlow({ version: 7 }).version).toBe(7);
    expect(parseFlow({ version: '2026.1' }).version).toBe('2026.1');
    // Values that are neither a number nor a string get the union's own words; a number or a string
    // that breaks its branch's bound gets that branch's issue (worded by src/flow/schema-issues.ts).
    const message = 'version: expected a positive integer or a non-empty string';
    for (const bad of [1.5, true, null, []])
      expect(issues(FlowSchema, { ...minimal, version: bad }), String(bad)).toEqual([message]);
    for (const bad of [0, -1, ''])
      expect(issues(FlowSchema, { ...minimal, version: bad }), String(bad)).toEqual([
        expect.stringMatching(/^version: Too small/),
      ]);
  });
});

describe('locale and model', () => {
  it('locale is zh-CN or en only', () => {
    expect(issues(FlowSchema, { ...minimal, locale: 'fr' })).toHaveLength(1);
    expect(issues(FlowSchema, { ...minimal, locale: 'zh' })).toHaveLength(1);
    expect(issues(FlowSchema, { ...minimal, locale: 'EN' })).toHaveLength(1);
  });

  it('model is <provider>:<model id>', () => {
    for (const good of ['openai:gpt-4.1', 'qwen:qwen-max', 'scripted:./turns.yaml', 'my_llm-2:x'])
      expect(MODEL_PATTERN.test(good), good).toBe(true);
    const message = 'model: expected <provider>:<model id>, e.g. openai:gpt-4.1 or scripted:./turns.yaml';
    for (const bad of ['gpt-4.1', 'openai:', ':gpt', '1openai:gpt', 'open ai:gpt'])
      expect(issues(FlowSchema, { ...minimal, model: bad }), bad).toEqual([message]);
  });

  it('prices are keyed by <provider>:<model id>, with non-negative input and output', () => {
    const flow = parseFlow({ prices: { 'openai:gpt-4.1': { input: 2, output: 8 } } });
    expect(flow.prices).toEqual({ 'openai:gpt-4.1': { input: 2, output: 8 } });
    expect(PriceSchema.safeParse({ input: 0, output: 0 }).success).toBe(true);
    expect(PriceSchema.safeParse({ input: -0.01, output: 1 }).success).toBe(false);
    expect(PriceSchema.safeParse({ input: 1 }).success).toBe(false);
    const bad = FlowSchema.safeParse({ ...minimal, prices: { 'gpt-4.1': { input: 1, output: 1 } } });
    expect(bad.error?.issues).toMatchObject([
      {
        code: 'invalid_key',
        path: ['prices', 'gpt-4.1'],
        issues: [{ message: 'expected <provider>:<model id>, e.g. openai:gpt-4.1' }],
      },
    ]);
  });

  it('providers are OpenAI-compatible endpoints with an absolute baseURL', () => {
    const provider = { type: 'openai-compatible', baseURL: 'https://dashscope.example/v1', apiKeyEnv: 'K' };
    expect(ProviderSchema.parse(provider)).toEqual(provider);
    expect(ProviderSchema.safeParse({ ...provider, type: 'anthropic' }).success).toBe(false);
    expect(ProviderSchema.safeParse({ ...provider, baseURL: '/v1' }).success).toBe(false);
    expect(ProviderSchema.safeParse({ ...provider, apiKeyEnv: '' }).success).toBe(false);
    expect(ProviderSchema.safeParse({ type: 'openai-compatible' }).success).toBe(false);
  });
});

describe('limits', () => {
  it('giving some keys keeps the defaults of the others', () => {
    expect(parseFlow({ limits: { maxRounds: 3, maxCost: 0.5 } }).limits).toEqual({
      maxRounds: 3,
      maxStalls: 5,
      fingerprintRepeats: 2,
      toolTimeoutMs: 30_000,
      maxCost: 0.5,
    });
    expect(LimitsSchema.parse({})).toEqual({
      maxRounds: 30,
      maxStalls: 5,
      fingerprintRepeats: 2,
      toolTimeoutMs: 30_000,
    });
  });

  it('are positive integers, maxCost a positive number', () => {
    const keys = [
      'maxRounds',
      'maxStalls',
      'fingerprintRepeats',
      'toolTimeoutMs',
      'toolTotalTimeoutMs',
      'contextTokens',
      'maxOutputTokens',
      'maxTokens',
    ];
    expect(Object.keys(LimitsSchema.shape).sort()).toEqual([...keys, 'maxCost'].sort());
    for (const key of keys) {
      expect(LimitsSchema.safeParse({ [key]: 1 }).success, key).toBe(true);
      for (const bad of [0, -3, 2.5, '3', null])
        expect(LimitsSchema.safeParse({ [key]: bad }).success, `${key}=${String(bad)}`).toBe(false);
    }
    expect(LimitsSchema.parse({ maxCost: 0.01 }).maxCost).toBe(0.01);
    expect(LimitsSchema.safeParse({ maxCost: 0 }).success).toBe(false);
    expect(LimitsSchema.safeParse({ maxCost: -1 }).success).toBe(false);
  });

  it("a node's limits default nothing, so a key left out keeps the flow's value", () => {
    const flow = FlowSchema.parse({ id: 'f', nodes: [{ id: 'a', limits: { maxRounds: 10 } }] });
    expect(flow.nodes[0]?.limits).toEqual({ maxRounds: 10 });
    expect(NodeSchema.parse({ id: 'a', limits: {} }).limits).toEqual({});
    expect(NodeSchema.parse({ id: 'a' }).limits).toBeUndefined();
  });

  it("a node's limits take the same keys and refuse the same values as the flow's", () => {
    const node = (limits: unknown) => NodeSchema.safeParse({ id: 'a', limits }).success;
    for (const key of Object.keys(LimitsSchema.shape)) {
      expect(node({ [key]: 4 }), key).toBe(true);
      expect(node({ [key]: 0 }), key).toBe(false);
    }
    expect(node({ maxCost: 0.25 })).toBe(true);
    expect(node({ maxRounds: 1.5 })).toBe(false);
    expect(node({ rounds: 3 })).toBe(false);
  });
});

describe('nodes', () => {
  it('fill instructions, tools, outputs and delegates, and leave the optional keys out', () => {
    expect(NodeSchema.parse({ id: 'n' })).toEqual({
      id: 'n',
      instructions: '',
      tools: [],
      outputs: {},
      delegates: [],
    });
  });

  it('name tools by what model APIs accept: 1-64 letters, digits, _ or -', () => {
    const message = 'expected a tool name: 1-64 letters, digits, _ or -';
    expect(NodeSchema.safeParse({ id: 'n', tools: ['x'.repeat(64), 'a-b_C9'] }).success).toBe(true);
    expect(issues(NodeSchema, { id: 'n', tools: ['x'.repeat(65)] })).toEqual([`tools.0: ${message}`]);
    expect(issues(NodeSchema, { id: 'n', tools: ['cloud.list'] })).toEqual([`tools.0: ${message}`]);
    expect(issues(NodeSchema, { id: 'n', tools: [''] })).toEqual([`tools.0: ${message}`]);
  });

  it('refuse an empty delegate path', () => {
    expect(NodeSchema.safeParse({ id: 'n', delegates: ['child.yaml'] }).success).toBe(true);
    expect(NodeSchema.safeParse({ id: 'n', delegates: [''] }).success).toBe(false);
  });

  it('take a code module as ./<path>#<export name>', () => {
    for (const good of ['./steps.mjs#sum', './lib/a.js#$run', './x#_y1'])
      expect(CODE_MODULE_PATTERN.test(good), good).toBe(true);
    const message =
      "module: expected <relative path of an ES module>#<export name>, e.g. ./steps.mjs#sum (inside the flow's folder)";
    for (const bad of ['steps.mjs#sum', './steps.mjs', './steps.mjs#', './a#b#c', './a#1x', '/abs.mjs#f'])
      expect(issues(NodeSchema, { id: 'n', module: bad }), bad).toEqual([message]);
  });

  it('take run: inline only, answer: text only, sees: request only, reply: { untrusted: refuse } only', () => {
    expect(NodeSchema.parse({ id: 'n', run: 'inline' }).run).toBe('inline');
    expect(NodeSchema.safeParse({ id: 'n', run: 'module' }).success).toBe(false);
    expect(NodeSchema.parse({ id: 'n', answer: 'text' }).answer).toBe('text');
    expect(NodeSchema.safeParse({ id: 'n', answer: 'json' }).success).toBe(false);
    expect(NodeSchema.parse({ id: 'n', sees: 'request' }).sees).toBe('request');
    expect(NodeSchema.safeParse({ id: 'n', sees: 'all' }).success).toBe(false);
    expect(NodeSchema.parse({ id: 'n', reply: { untrusted: 'refuse' } }).reply).toEqual({
      untrusted: 'refuse',
    });
    expect(NodeSchema.safeParse({ id: 'n', reply: {} }).success).toBe(false);
  });

  it('name resources by server id', () => {
    expect(NodeSchema.parse({ id: 'n', resources: ['docs'] }).resources).toEqual(['docs']);
    expect(NodeSchema.safeParse({ id: 'n', resources: ['docs/x'] }).success).toBe(false);
  });

  it('describe the node kinds', () => {
    expect(NodeSchema.description).toBe(
      'A node of one kind: a code node runs its function (run or module) instead of a model; a model node runs the model with its tools.',
    );
  });
});

describe('map', () => {
  it('defaults concurrency to 4 and bounds it to 1-16', () => {
    expect(NodeSchema.parse({ id: 'm', map: { over: 'outputs.plan.lines', node: 'body' } }).map).toEqual({
      over: 'outputs.plan.lines',
      node: 'body',
      concurrency: 4,
    });
    const map = (concurrency: unknown) =>
      NodeSchema.safeParse({ id: 'm', map: { over: 'x', node: 'b', concurrency } }).success;
    expect(map(1)).toBe(true);
    expect(map(16)).toBe(true);
    expect(map(0)).toBe(false);
    expect(map(17)).toBe(false);
    expect(map(2.5)).toBe(false);
  });

  it('needs over and a node id, and an over of at most the expression limit', () => {
    expect(NodeSchema.safeParse({ id: 'm', map: { node: 'b' } }).success).toBe(false);
    expect(NodeSchema.safeParse({ id: 'm', map: { over: '', node: 'b' } }).success).toBe(false);
    expect(NodeSchema.safeParse({ id: 'm', map: { over: 'x', node: '1b' } }).success).toBe(false);
    const at = 'a'.repeat(MAX_EXPRESSION_LENGTH);
    expect(NodeSchema.safeParse({ id: 'm', map: { over: at, node: 'b' } }).success).toBe(true);
    expect(issues(NodeSchema, { id: 'm', map: { over: `${at}a`, node: 'b' } })).toEqual([
      `map.over: expected a JSONata expression of at most ${MAX_EXPRESSION_LENGTH} characters`,
    ]);
  });
});

describe('outputs', () => {
  it('default required to false and need at least one source', () => {
    expect(OutputContractSchema.parse({ sources: ['evidence'], from: ['space_list'] })).toEqual({
      required: false,
      sources: ['evidence'],
      from: ['space_list'],
    });
    expect(OutputContractSchema.safeParse({ sources: [] }).success).toBe(false);
    expect(OutputContractSchema.safeParse({}).success).toBe(false);
  });

  it('take the source types evidence, user, node, model and code only', () => {
    expect(
      OutputContractSchema.parse({ sources: ['evidence', 'user', 'node', 'model', 'code'] }).sources,
    ).toHaveLength(5);
    expect(OutputContractSchema.safeParse({ sources: ['tool'] }).success).toBe(false);
  });

  it('take match equals or contains, a non-empty from list and a JSON Schema object', () => {
    expect(OutputContractSchema.parse({ sources: ['evidence'], match: 'equals' }).match).toBe('equals');
    expect(OutputContractSchema.safeParse({ sources: ['evidence'], match: 'regex' }).success).toBe(false);
    expect(OutputContractSchema.safeParse({ sources: ['evidence'], from: [] }).success).toBe(false);
    expect(OutputContractSchema.safeParse({ sources: ['model'], schema: { type: 'string' } }).success).toBe(
      true,
    );
    expect(OutputContractSchema.safeParse({ sources: ['model'], schema: 'string' }).success).toBe(false);
  });
});

describe('edges', () => {
  it('lead to one node or to a non-empty list of nodes', () => {
    expect(EdgeSchema.parse({ from: 'a', to: 'b' })).toEqual({ from: 'a', to: 'b' });
    expect(EdgeSchema.parse({ from: 'a', to: ['b', 'c'], when: "status = 'completed'" })).toEqual({
      from: 'a',
      to: ['b', 'c'],
      when: "status = 'completed'",
    });
    expect(issues(EdgeSchema, { from: 'a', to: [] })).toEqual([
      'to: Too small: expected array to have >=1 items',
    ]);
    expect(issues(EdgeSchema, { from: 'a', to: 3 })).toEqual([
      'to: expected a node id or a non-empty list of node ids',
    ]);
    expect(EdgeSchema.safeParse({ from: 'a', to: 'b', when: '' }).success).toBe(false);
    expect(EdgeSchema.safeParse({ from: 'a', to: 'b', if: 'x' }).success).toBe(false);
  });

  it('edgeTargets gives to as a list, a copy of a list', () => {
    expect(edgeTargets({ to: 'b' })).toEqual(['b']);
    const to = ['b', 'c'];
    const targets = edgeTargets({ to });
    expect(targets).toEqual(['b', 'c']);
    targets.push('d');
    expect(to).toEqual(['b', 'c']);
  });
});
