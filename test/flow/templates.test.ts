import { describe, expect, it } from 'vitest';
import { parseTemplateRefs } from '../../src/flow/templates.js';

/** The `{{…}}` references of node instructions, as validation reads them. */

describe('parseTemplateRefs', () => {
  it('reads node outputs (whole or by key, deeper segments allowed), input paths and items, in order', () => {
    expect(
      parseTemplateRefs(
        'A {{nodes.plan.outputs}} B {{ nodes.plan.outputs.lines.0.sku }} C {{input}} D {{input.order.id}} E {{item.sku}} F {{item}}',
      ),
    ).toEqual([
      { kind: 'node', raw: '{{nodes.plan.outputs}}', node: 'plan' },
      { kind: 'node', raw: '{{ nodes.plan.outputs.lines.0.sku }}', node: 'plan', key: 'lines' },
      { kind: 'input', raw: '{{input}}', path: [] },
      { kind: 'input', raw: '{{input.order.id}}', path: ['order', 'id'] },
      { kind: 'item', raw: '{{item.sku}}' },
      { kind: 'item', raw: '{{item}}' },
    ]);
  });

  it.each([
    '{{nodes.plan}}',
    '{{nodes.plan.output.x}}',
    '{{nodes.9plan.outputs}}',
    '{{nodes.plan.outputs.9key}}',
    '{{inputs.x}}',
    '{{input..x}}',
    '{{items}}',
    '{{ }}',
    '{{$now()}}',
  ])('marks %s invalid, so that a typo never reaches the model as text', (text) => {
    expect(parseTemplateRefs(`before ${text} after`)).toEqual([{ kind: 'invalid', raw: text }]);
  });

  it('finds nothing in text without double braces, and ignores single braces', () => {
    expect(parseTemplateRefs('a {json: 1} and {input}')).toEqual([]);
    expect(parseTemplateRefs('')).toEqual([]);
  });
});
