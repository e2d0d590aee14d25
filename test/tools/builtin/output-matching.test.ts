import { describe, expect, it } from 'vitest';
import type { FlowInput } from '../../../src/domain/flow.js';
import { defineTool } from '../../../src/tools/tool.js';
import { harness, parts, type Harness } from '../guards/fixtures.js';

// Outputs cited from evidence (docs/flows.md, outputs): inside a text by default, `match: equals`
// to opt out, each list element on its own, empty optional values, same-kind values in the next step.

const NOTES = 'Printer notes.\nOwner: Zhang Wei (facilities)\nMarkers: MARKER-SEVEN, MARKER-EIGHT';

const read = defineTool({
  name: 'read_notes',
  description: 'notes',
  write: false,
  inputSchema: { type: 'object', properties: {} },
  execute: () => ({ content: NOTES, owners: [{ owner: 'Zhang Wei' }, { owner: 'Li Lei' }] }),
});

const FLOW: FlowInput = {
  id: 'notes',
  locale: 'en',
  nodes: [
    {
      id: 'read',
      tools: ['read_notes'],
      outputs: {
        owner: { required: true, sources: ['evidence'], from: ['read_notes'] },
        exact: { required: false, sources: ['evidence'], from: ['read_notes'], match: 'equals' },
        markers: { required: false, sources: ['evidence'], from: ['read_notes'] },
        note: { required: false, sources: ['evidence'], from: ['read_notes'] },
      },
    },
  ],
};

async function setup(): Promise<Harness> {
  const h = harness({ flow: FLOW, localTools: [read], input: { text: 'summarise the notes' } });
  await h.call('read_notes', {});
  return h;
}

const set = (h: Harness, key: string, value: unknown, sourceRef: string | null = 'ev_1') =>
  h.call('builtin_output_set', { key, value, sourceType: 'evidence', ...(sourceRef ? { sourceRef } : {}) });

describe('builtin_output_set: values cited from inside a text', () => {
  it('a name inside the text is found at token boundaries; the match is stored and returned', async () => {
    const h = await setup();
    const { obs } = await set(h, 'owner', 'zhang  WEI');
    expect(obs.ok).toBe(true);
    const match = [{ at: [], source: 'evidence', evidenceId: 'ev_1', path: ['owners', 0, 'owner'] }];
    // A whole leaf is preferred to a place inside a text.
    expect(h.node.outputs.owner?.match).toEqual(match);
    expect(obs.data).toEqual({ key: 'owner', value: 'zhang  WEI', match });
    const { obs: marker } = await set(h, 'note', 'MARKER-EIGHT');
    expect(marker.ok).toBe(true);
    const span = h.node.outputs.note?.match?.[0]?.span as [number, number];
    expect(NOTES.slice(...span)).toBe('MARKER-EIGHT');
  });

  it('a part of a word, a too short value or a value not there is REJECTED; next offers values of the key', async () => {
    const h = await setup();
    for (const value of ['MARKER', 'Zh', 'Wang Fang']) {
      const { obs } = await set(h, 'owner', value);
      expect(parts(obs)).toMatchObject({
        outcome: 'REJECTED',
        code: 'OUTPUT_VALUE_MISMATCH',
        reason: `Source check failed: the result ev_1 of read_notes does not hold the value ${value}`,
      });
      expect(obs.next).toMatch(
        /^cite the evidence whose text holds the exact value: .*; values of \[owner\] in it: Zhang Wei, Li Lei$/,
      );
    }
  });

  it('`match: equals` takes no part of a text', async () => {
    const h = await setup();
    const { obs } = await set(h, 'exact', 'MARKER-SEVEN');
    expect(parts(obs)).toMatchObject({
      code: 'OUTPUT_VALUE_MISMATCH',
      next: 'cite the evidence that holds the exact value: it must equal a value of the result (this output takes no part of a text); you may also leave it unwritten and call builtin_node_finish',
    });
    expect((await set(h, 'exact', 'Li Lei')).obs.ok).toBe(true);
  });

  it('each element of a list is looked for on its own; one missing element names itself', async () => {
    const h = await setup();
    expect((await set(h, 'markers', ['MARKER-EIGHT', 'MARKER-SEVEN'])).obs.ok).toBe(true);
    expect(h.node.outputs.markers?.match?.map((m) => m.at)).toEqual([[0], [1]]);
    const { obs } = await set(h, 'markers', ['MARKER-SEVEN', 'MARKER-NINE']);
    expect(obs.reason).toBe(
      'Source check failed: the result ev_1 of read_notes does not hold the value MARKER-NINE',
    );
  });

  it('an empty string or null for an optional output needs no source; for a required one it does', async () => {
    const h = await setup();
    expect((await set(h, 'note', '', null)).obs.ok).toBe(true);
    expect((await set(h, 'note', null, null)).obs.ok).toBe(true);
    expect((await set(h, 'owner', '', null)).obs.errorCode).toBe('OUTPUT_SOURCE_REF_MISSING');
  });
});
