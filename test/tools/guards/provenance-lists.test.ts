import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../../src/domain/flow.js';
import { Observation } from '../../../src/domain/observation.js';
import { catalogGuard } from '../../../src/tools/catalog.js';
import { argPolicyGuard } from '../../../src/tools/guards/arg-policy.js';
import { paramContractGuard } from '../../../src/tools/guards/param-contract.js';
import { defineTool } from '../../../src/tools/tool.js';
import { answering, harness, parts, type Harness } from './fixtures.js';

// Element-by-element and field-by-field provenance, source lists, empty optional values, `match:
// contains` and the same-kind values of a mismatch's next step, on a small shop.

const ORDER = {
  order_id: '#W100',
  user_id: 'yusuf_1',
  items: [
    { item_id: '1151293680', name: 'Keyboard' },
    { item_id: '4983901480', name: 'Thermostat' },
  ],
  note: 'Deliver to the back door; contact Zhang Wei before 5pm.',
};
const USER = {
  user_id: 'yusuf_1',
  address: { address1: '1 Main St', address2: '', city: 'Austin' },
  payment_methods: { credit_card_9513926: { id: 'credit_card_9513926' }, gift_card_1: { id: 'gift_card_1' } },
};

const tools = [
  defineTool({
    name: 'get_order',
    description: 'order',
    write: false,
    inputSchema: { type: 'object', properties: { order_id: { type: 'string' } } },
    execute: () => ORDER,
  }),
  defineTool({
    name: 'get_user',
    description: 'user',
    write: false,
    inputSchema: { type: 'object', properties: {} },
    execute: () => USER,
  }),
  defineTool({
    name: 'return_items',
    description: 'return',
    write: true,
    inputSchema: {
      type: 'object',
      properties: {
        order_id: { type: 'string' },
        item_ids: { type: 'array', items: { type: 'string' } },
        payment_method_id: { type: 'string' },
        reason: {},
        contact: { type: 'string' },
        address: { type: 'object' },
        address2: { type: ['string', 'null'] },
      },
      required: ['order_id', 'item_ids'],
    },
    execute: () => ({ ok: true }),
  }),
];

const FLOW: FlowInput = {
  id: 'shop',
  locale: 'en',
  tools: {
    return_items: {
      params: {
        order_id: { source: ['user', 'evidence'], from: ['get_order'], path: 'order_id' },
        item_ids: { source: evidence(), from: ['get_order'], path: 'items.item_id' },
        payment_method_id: { source: 'evidence', from: ['get_user'] },
        reason: { enum: ['damaged', 'wrong size'] },
        contact: { source: 'evidence', from: ['get_order'], match: 'contains' },
        address: {
          fields: {
            address1: { source: ['evidence', 'user'], from: ['get_user'] },
            address2: { source: ['evidence', 'user'], from: ['get_user'] },
            city: { source: ['evidence', 'user'], from: ['get_user'] },
          },
        },
        address2: { source: 'user' },
      },
    },
  },
  nodes: [{ id: 'serve', tools: ['get_order', 'get_user', 'return_items'] }],
};

function evidence(): 'evidence' {
  return 'evidence';
}

const reached = answering(Observation.success('reached'), false);
const guards = () => [catalogGuard(), argPolicyGuard(), paramContractGuard()];

async function shop(
  text = 'I am Yusuf. Return items of order #W100; I moved to 9 Elm Rd, Dallas.',
): Promise<Harness> {
  const h = harness({ flow: FLOW, localTools: tools, input: { text } });
  await h.call('get_order', { order_id: '#W100' });
  await h.call('get_user', {});
  return h;
}

const base = { order_id: '#W100', item_ids: ['1151293680'] };
const send = (h: Harness, args: Record<string, unknown>) =>
  h.through(guards(), 'return_items', args, reached);

describe('provenance of lists, fields, source lists and empty values', () => {
  it('each element of a list is checked on its own, in any order and any subset', async () => {
    const h = await shop();
    const both = await send(h, { ...base, item_ids: ['4983901480', '1151293680'] });
    expect(both.obs.reason).toBe('reached');
    expect(both.report.provenance.item_ids).toBe('ev_1');
    expect(both.report.matches.item_ids).toEqual([
      { at: [0], source: 'evidence', evidenceId: 'ev_1', path: ['items', 1, 'item_id'] },
      { at: [1], source: 'evidence', evidenceId: 'ev_1', path: ['items', 0, 'item_id'] },
    ]);
  });

  it('a swapped element is REJECTED naming the element; next lists values of the same kind only', async () => {
    const h = await shop();
    const { obs } = await send(h, { ...base, item_ids: ['1151293680', '9999999999'] });
    expect(parts(obs)).toMatchObject({
      outcome: 'REJECTED',
      code: 'PARAM_PROVENANCE_MISMATCH',
      reason: 'The value 9999999999 of argument [item_ids[1]] is not in the results of get_order',
      next: 'use a value from the results of get_order, for example: 1151293680, 4983901480',
    });
  });

  it('without path, the next step offers only values under a key named like the argument', async () => {
    const h = await shop();
    const invented = await send(h, { ...base, payment_method_id: 'credit_card_0000' });
    expect(invented.obs.errorCode).toBe('PARAM_PROVENANCE_MISMATCH');
    // `payment_method_id` names no key of get_user's result: nothing unrelated (user ids, cities) is offered.
    expect(invented.obs.next).toBe(
      'ask the user for argument [payment_method_id] with builtin_node_follow_up, then use the value they give',
    );
    const ok = await send(h, { ...base, payment_method_id: 'gift_card_1' });
    expect(ok.obs.reason).toBe('reached');
  });

  it('`source: [user, evidence]`: either holds; neither → next names both', async () => {
    const h = harness({ flow: FLOW, localTools: tools, input: { text: 'Return order #W100 please' } });
    // The user said the order id: no query is needed first.
    const said = await send(h, { order_id: '#W100', item_ids: [] });
    expect(said.obs.reason).toBe('reached');
    expect(said.report.userProvenance.order_id).toBe('Return order #W100 please');
    const neither = await send(h, { order_id: '#W200', item_ids: [] });
    expect(parts(neither.obs)).toMatchObject({
      code: 'PARAM_PROVENANCE_QUERY_FIRST',
      next: 'call get_order first and call return_items with a value from its result, or use a value the user said',
    });
    await h.call('get_order', { order_id: '#W100' });
    const mismatch = await send(h, { order_id: '#W200', item_ids: [] });
    expect(parts(mismatch.obs)).toMatchObject({
      code: 'PARAM_PROVENANCE_MISMATCH',
      next: 'use a value from the results of get_order (for example: #W100), or one the user said',
    });
  });

  it('fields: each field of an object on its own, from the profile or the user; an empty optional field needs nothing', async () => {
    const h = await shop();
    const profile = await send(h, {
      ...base,
      address: { address1: '1 Main St', address2: '', city: 'Austin' },
    });
    expect(profile.obs.reason).toBe('reached');
    const spoken = await send(h, {
      ...base,
      address: { address1: '9 Elm Rd', address2: '', city: 'Dallas' },
    });
    expect(spoken.obs.reason).toBe('reached');
    expect(spoken.report.matches.address).toEqual([
      { at: ['address1'], source: 'user' },
      { at: ['city'], source: 'user' },
    ]);
    const invented = await send(h, { ...base, address: { address1: '9 Elm Rd', city: 'Houston' } });
    expect(parts(invented.obs)).toMatchObject({
      code: 'PARAM_PROVENANCE_MISMATCH',
      reason: 'The value Houston of argument [address.city] is not in the results of get_user',
      next: 'use a value from the results of get_user (for example: Austin), or one the user said',
    });
  });

  it('an empty string or null for an optional argument needs no provenance; for a required one it does', async () => {
    const h = await shop();
    expect((await send(h, { ...base, address2: '' })).obs.reason).toBe('reached');
    expect((await send(h, { ...base, address2: null })).obs.reason).toBe('reached');
    expect((await send(h, { ...base, address2: 'Apt 4' })).obs.errorCode).toBe('PARAM_PROVENANCE_ASK_FIRST');
    // order_id is required by the tool's schema: an empty one must still come from somewhere.
    expect((await send(h, { ...base, order_id: '' })).obs.errorCode).toBe('PARAM_PROVENANCE_MISMATCH');
  });

  it('enum applies to each element of a list', async () => {
    const h = await shop();
    expect((await send(h, { ...base, reason: 'damaged' })).obs.reason).toBe('reached');
    const { obs } = await send(h, { ...base, reason: ['damaged', 'late'] });
    expect(parts(obs)).toMatchObject({
      code: 'PARAM_PROVENANCE_REJECTED',
      reason: 'The value late of argument [reason[1]] is not allowed',
    });
  });

  it('`match: contains` opts a parameter into finding a value inside a text, with the span recorded', async () => {
    const h = await shop();
    const { obs, report } = await send(h, { ...base, contact: 'Zhang Wei' });
    expect(obs.reason).toBe('reached');
    expect(report.matches.contact).toEqual([
      { at: [], source: 'evidence', evidenceId: 'ev_1', path: ['note'], span: [34, 43] },
    ]);
    expect(ORDER.note.slice(34, 43)).toBe('Zhang Wei');
    const partial = await send(h, { ...base, contact: 'Zhang W' });
    expect(parts(partial.obs)).toMatchObject({
      code: 'PARAM_PROVENANCE_MISMATCH',
      next: 'ask the user for argument [contact] with builtin_node_follow_up, then use the value they give',
    });
    // Without `match: contains`, parameters keep equality: the same text value is not accepted from a note.
    const strict = await send(h, { ...base, payment_method_id: 'Zhang Wei' });
    expect(strict.obs.errorCode).toBe('PARAM_PROVENANCE_MISMATCH');
  });
});
