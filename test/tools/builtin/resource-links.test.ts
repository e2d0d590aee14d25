import { describe, expect, it } from 'vitest';
import type { EvidenceRecord } from '../../../src/records/run-state.js';
import type { ToolDescriptor } from '../../../src/tools/tool.js';
import { hasResourceLink, resourceLinks } from '../../../src/tools/builtin/resource-read.js';

function record(
  n: number,
  tool: string,
  payload: unknown,
  outcome: 'SUCCESS' | 'FAILED' = 'SUCCESS',
): EvidenceRecord {
  return {
    id: `ev_${n}`,
    tool,
    args: {},
    fingerprint: `${tool}#${n}`,
    outcome,
    errorCode: null,
    payload,
    ts: '2026-12-04T00:00:00.000Z',
    nodeId: 'main',
    callId: `c${n}`,
  };
}

const link = (uri: string) => ({ type: 'resource_link', uri, name: uri });
const descriptor = (name: string, server?: string) =>
  ({ name, ...(server ? { server } : {}) }) as ToolDescriptor;
const tools = new Map([
  ['docs_search', descriptor('docs_search', 'docs')],
  ['local_lookup', descriptor('local_lookup')],
]);

describe('resource links of a run (what builtin_resource_read may read)', () => {
  it('lists links newest call first, in payload order within a call, as the evidence grows in place', () => {
    const evidence: EvidenceRecord[] = [];
    const run = { evidence } as never;
    expect(hasResourceLink({ run, tools })).toBe(false);
    evidence.push(record(1, 'docs_search', [link('doc://a'), { type: 'text', text: 'x' }, link('doc://b')]));
    expect(resourceLinks({ run, tools })).toEqual([
      { uri: 'doc://a', server: 'docs' },
      { uri: 'doc://b', server: 'docs' },
    ]);
    // A failed call, a local tool's result and a non-array payload give no link.
    evidence.push(
      record(2, 'docs_search', [link('doc://failed')], 'FAILED'),
      record(3, 'local_lookup', [link('doc://local')]),
      record(4, 'docs_search', { uri: 'doc://object' }),
      record(5, 'docs_search', [link('doc://c')]),
    );
    expect(resourceLinks({ run, tools }).map((l) => l.uri)).toEqual(['doc://c', 'doc://a', 'doc://b']);
    expect(hasResourceLink({ run, tools })).toBe(true);
  });

  it('reads a replaced or shortened evidence array afresh, and a tool that gained a server counts', () => {
    const evidence = [
      record(1, 'docs_search', [link('doc://a')]),
      record(2, 'docs_search', [link('doc://b')]),
    ];
    const run = { evidence } as never;
    expect(resourceLinks({ run, tools }).map((l) => l.uri)).toEqual(['doc://b', 'doc://a']);
    evidence.pop();
    expect(resourceLinks({ run, tools }).map((l) => l.uri)).toEqual(['doc://a']);
    const other = { evidence: [record(1, 'local_lookup', [link('doc://l')])] } as never;
    expect(hasResourceLink({ run: other, tools })).toBe(false);
    const relisted = new Map([...tools, ['local_lookup', descriptor('local_lookup', 'docs')]]);
    expect(resourceLinks({ run: other, tools: relisted })).toEqual([{ uri: 'doc://l', server: 'docs' }]);
  });

  it('reads only the records appended since the last look, however long the run', () => {
    const records = Array.from({ length: 5000 }, (_, i) => record(i + 1, 'docs_search', { id: i }));
    let reads = 0;
    const evidence = new Proxy(records, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    const run = { evidence } as never;
    expect(hasResourceLink({ run, tools })).toBe(false);
    expect(reads).toBe(5000);
    reads = 0;
    evidence.push(record(5001, 'docs_search', [link('doc://new')]));
    expect(hasResourceLink({ run, tools })).toBe(true);
    expect(resourceLinks({ run, tools })).toEqual([{ uri: 'doc://new', server: 'docs' }]);
    expect(reads).toBe(1);
  });
});
