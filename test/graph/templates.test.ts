import { describe, expect, it } from 'vitest';
import { lookupReference, renderInstructions } from '../../src/graph/templates.js';

/** Node instructions filled with earlier outputs, the run input and a map's item. */

const scope = {
  input: { text: 'ship it', order: { id: 'o-7', lines: [{ sku: 'a' }, { sku: 'b' }] } },
  nodes: { plan: { steps: ['pack', 'ship'], title: 'Plan A', empty: '' }, check: {} },
};

describe('renderInstructions', () => {
  it('fills strings as they are, other values as JSON, white space inside the braces allowed', () => {
    expect(
      renderInstructions(
        'Do {{ nodes.plan.outputs.title }} for {{input.order.id}}: {{nodes.plan.outputs.steps}}',
        scope,
      ),
    ).toBe('Do Plan A for o-7: ["pack","ship"]');
    expect(renderInstructions('{{input}}', { input: 'plain', nodes: {} })).toBe('plain');
    expect(renderInstructions('{{nodes.plan.outputs}}', scope)).toBe(JSON.stringify(scope.nodes.plan));
  });

  it('fills an empty string, null and 0, and leaves what names nothing as written', () => {
    expect(renderInstructions('[{{nodes.plan.outputs.empty}}]', scope)).toBe('[]');
    expect(renderInstructions('{{input.v}}|{{input.n}}', { input: { v: null, n: 0 }, nodes: {} })).toBe(
      'null|0',
    );
    const unknown = '{{nodes.nope.outputs.x}} {{input.missing.deeper}} {{nodes.check.outputs.x}} {{other}}';
    expect(renderInstructions(unknown, scope)).toBe(unknown);
  });

  it('fills {{item}} only inside a map body (a scope with an item)', () => {
    const item = { sku: 'a', qty: 2 };
    expect(renderInstructions('pack {{item.sku}} x{{item.qty}} of {{item}}', { ...scope, item })).toBe(
      'pack a x2 of {"sku":"a","qty":2}',
    );
    expect(renderInstructions('pack {{item.sku}}', scope)).toBe('pack {{item.sku}}');
    expect(renderInstructions('{{item}}', { ...scope, item: null })).toBe('null');
  });

  it('does not treat a template-like value as a template again', () => {
    const input = { text: '{{input.secret}}', secret: 'hidden' };
    expect(renderInstructions('say {{input.text}}', { input, nodes: {} })).toBe('say {{input.secret}}');
  });
});

describe('lookupReference', () => {
  it('walks input, item and node outputs by path, into arrays by index', () => {
    expect(lookupReference('input.order.lines.1.sku', scope)).toBe('b');
    expect(lookupReference('nodes.plan.outputs.steps.0', scope)).toBe('pack');
    expect(lookupReference('item.a', { ...scope, item: { a: [1] } })).toEqual([1]);
  });

  it('names nothing for other heads, a missing `outputs` word, or a path through a non-object', () => {
    expect(lookupReference('outputs.plan', scope)).toBeUndefined();
    expect(lookupReference('nodes.plan', scope)).toBeUndefined();
    expect(lookupReference('nodes.plan.inputs.title', scope)).toBeUndefined();
    expect(lookupReference('nodes.plan.outputs.title.length', scope)).toBeUndefined();
    expect(lookupReference('input.text.0', scope)).toBeUndefined();
    expect(lookupReference('item', scope)).toBeUndefined();
  });
});
