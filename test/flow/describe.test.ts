import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { FlowSchema } from '../../src/domain/flow.js';
import { describeFlow } from '../../src/flow/describe.js';

/** The published interface of a flow: its input, each node's outputs, and the schema of a run's outputs. */

const flow = FlowSchema.parse({
  id: 'orders',
  version: 3,
  description: 'Takes an order',
  input: {
    type: 'object',
    properties: { text: { type: 'string' }, customer: { type: 'string' } },
    required: ['text'],
  },
  mcpServers: { shop: { url: 'https://shop.example/mcp', headers: { authorization: 'Bearer secret' } } },
  nodes: [
    {
      id: 'find',
      instructions: 'Find the order (private instructions).',
      tools: ['order_get'],
      outputs: {
        orderId: { required: true, sources: ['evidence'], from: ['order_get'], match: 'equals' },
        note: { sources: ['model'], description: 'a remark', schema: { type: 'string', maxLength: 20 } },
      },
    },
    { id: 'tell', instructions: 'Tell the user.' },
  ],
  edges: [{ from: 'find', to: 'tell' }],
});

describe('describeFlow', () => {
  it('publishes the id, version, description, input and each node outputs, in file order', () => {
    const described = describeFlow(flow);
    expect(described).toMatchObject({
      flowId: 'orders',
      version: 3,
      description: 'Takes an order',
      input: flow.input,
    });
    expect(described.nodes).toEqual([
      {
        id: 'find',
        outputs: {
          orderId: { required: true, sources: ['evidence'], from: ['order_get'] },
          note: {
            required: false,
            sources: ['model'],
            description: 'a remark',
            schema: { type: 'string', maxLength: 20 },
          },
        },
      },
      { id: 'tell', outputs: {} },
    ]);
  });

  it('leaves out what a viewer may not see: servers, their headers, tools, instructions, edges', () => {
    const text = JSON.stringify(describeFlow(flow));
    for (const hidden of ['secret', 'shop.example', 'private instructions', '"tools"', '"edges"'])
      expect(text, hidden).not.toContain(hidden);
    expect(Object.keys(describeFlow(flow)).sort()).toEqual([
      'description',
      'flowId',
      'input',
      'nodes',
      'outputsSchema',
      'version',
    ]);
    const { description: _description, ...undescribed } = flow;
    expect('description' in describeFlow(undescribed)).toBe(false);
  });

  it('gives a JSON Schema that accepts the outputs of a run and refuses what a run never has', () => {
    const valid = new Ajv({ strict: false }).compile(describeFlow(flow).outputsSchema);
    expect(valid({})).toBe(true);
    expect(valid({ find: { orderId: 'o-1' }, tell: {} })).toBe(true);
    expect(valid({ find: { orderId: 42, note: 'short' } })).toBe(true); // no schema: any JSON
    expect(valid({ find: { note: 'short' } })).toBe(false); // a required output is missing
    expect(valid({ find: { orderId: 'o-1', note: 'x'.repeat(21) } })).toBe(false); // its schema
    expect(valid({ find: { orderId: 'o-1', other: 1 } })).toBe(false); // not declared
    expect(valid({ ghost: {} })).toBe(false); // not a node
  });
});
