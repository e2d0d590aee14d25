import { describe, expect, it } from 'vitest';
import { markPayload, payloadText } from '../../web/src/highlight.js';

// The console highlights the very span the runtime recorded for a value found inside a text
// (`matches` of a pending approval, `match` of an output), in the payload as the console shows it.

const marked = (segments: { text: string; mark: boolean }[]) =>
  segments.filter((s) => s.mark).map((s) => s.text);

describe('markPayload', () => {
  it('renders exactly the pretty JSON the console shows, with the recorded span of a text leaf marked', () => {
    const payload = { content: 'Owner: Zhang  Wei\n"quoted"', n: 3, list: [], obj: {} };
    const segments = markPayload(payload, [{ path: ['content'], span: [7, 17] }]);
    expect(segments.map((s) => s.text).join('')).toBe(payloadText(payload));
    expect(marked(segments)).toEqual(['Zhang  Wei']);
  });

  it('marks a whole leaf or sub-tree when no span was recorded, and several places at once', () => {
    const payload = { items: [{ item_id: '115' }, { item_id: '498' }], total: 12 };
    const segments = markPayload(payload, [{ path: ['items', 1, 'item_id'] }, { path: ['total'] }]);
    expect(segments.map((s) => s.text).join('')).toBe(payloadText(payload));
    expect(marked(segments)).toEqual(['"498"', '12']);
    expect(marked(markPayload(payload, [{ path: ['items', 0] }]))).toEqual([
      '{\n      "item_id": "115"\n    }',
    ]);
  });

  it('a text payload is marked as it is; marks naming no place mark nothing', () => {
    const text = 'Successfully wrote to /tmp/t/printer.md';
    expect(marked(markPayload(text, [{ path: [], span: [22, 39] }]))).toEqual(['/tmp/t/printer.md']);
    expect(marked(markPayload({ a: 'x' }, [{ path: ['b'] }, { path: ['a'], span: [5, 9] }]))).toEqual([]);
  });

  it('escapes inside the span as JSON does (new lines, quotes, non-ASCII)', () => {
    const payload = { note: 'a\n"张伟"\nb' };
    const segments = markPayload(payload, [{ path: ['note'], span: [2, 6] }]);
    expect(segments.map((s) => s.text).join('')).toBe(payloadText(payload));
    expect(marked(segments)).toEqual(['\\"张伟\\"']);
  });
});
