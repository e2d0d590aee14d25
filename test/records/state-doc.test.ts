import { describe, expect, it } from 'vitest';
import {
  BranchSchema,
  GraphStateSchema,
  HeldQuestionSchema,
  StateDocSchema,
  nodeRunKey,
  type RunStateDoc,
} from '../../src/records/state-doc.js';
import { newNodeState } from '../../src/records/run-state.js';
import { runState } from '../../src/testing/store-contract/helpers.js';

/** The state document a store keeps per run (docs/design.md, "Run document"). */

const loop = { wave: null, suspended: null, resolved: null };
const elicitation = {
  server: 'shop',
  tool: 'order_place',
  fingerprint: 'fp1',
  mode: 'form' as const,
  message: 'Pick a size',
};

function accepts(doc: unknown): boolean {
  return StateDocSchema.safeParse(doc).success;
}

describe('nodeRunKey', () => {
  it('is `<nodeId>#<nodeRuns>`', () => {
    expect(nodeRunKey(runState('r1', { nodeId: 'pay', nodeRuns: 3 }))).toBe('pay#3');
    expect(nodeRunKey(runState('r1', { nodeId: 'pay', nodeRuns: 0 }))).toBe('pay#0');
  });

  it('stands `-` for the node of a run that has none (completed, cancelled or in parallel branches)', () => {
    expect(nodeRunKey(runState('r1', { nodeId: null, nodeRuns: 7 }))).toBe('-#7');
  });
});

describe('StateDocSchema', () => {
  it('reads the document a store writes at version 1', () => {
    const doc = runState('r1');
    expect(StateDocSchema.parse(doc)).toEqual(doc);
  });

  it('is version 1 exactly: another schema number does not fit', () => {
    for (const schema of [0, 2, '1', undefined])
      expect(accepts({ ...runState('r1'), schema }), String(schema)).toBe(false);
  });

  it('keeps evidence out of the document: the run part is the run state without it', () => {
    const doc = runState('r1');
    const parsed = StateDocSchema.parse({ ...doc, run: { ...doc.run, evidence: [{ id: 'ev_1' }] } });
    expect(parsed.run).not.toHaveProperty('evidence');
    // Everything else of the run state is required.
    const { inputTexts: _, ...noTexts } = doc.run;
    expect(accepts({ ...doc, run: noTexts })).toBe(false);
  });

  it('refuses a negative or fractional count of node runs, and a nodeId that is missing', () => {
    expect(accepts(runState('r1', { nodeRuns: -1 }))).toBe(false);
    expect(accepts(runState('r1', { nodeRuns: 1.5 }))).toBe(false);
    const { nodeId: _, ...noNode } = runState('r1');
    expect(accepts(noNode)).toBe(false);
    expect(accepts(runState('r1', { nodeId: null }))).toBe(true);
  });

  it('takes cancelRequested only as true', () => {
    expect(accepts(runState('r1', { cancelRequested: true }))).toBe(true);
    expect(accepts(runState('r1', { cancelRequested: false }))).toBe(false);
  });

  it('reads the optional parts of a run in a thread, forked, with a reply and a cost', () => {
    const doc = runState('r1', {
      thread: { id: 'T1', history: [{ role: 'user', text: 'hello' }] },
      forkedFrom: { runId: 'r0', seq: 12 },
      reply: 'Hi.',
      cost: 0.0042,
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      parentCallId: 'call_1',
      nodeModelCalls: { a: 2, b: 0 },
    });
    expect(StateDocSchema.parse(doc)).toEqual(doc);
    expect(accepts({ ...doc, forkedFrom: { runId: 'r0', seq: 1.5 } })).toBe(false);
    expect(accepts({ ...doc, thread: { id: 'T1' } })).toBe(false);
  });

  it('reads parallel branches and the graph state beside them', () => {
    const doc = runState('r1', {
      nodeId: null,
      branches: [
        { nodeId: 'a', nodeRuns: 2, node: newNodeState('a'), loop },
        { nodeId: 'b', nodeRuns: 3, node: null, loop },
      ],
      graph: { joins: ['join'], failed: { nodeId: 'a', reason: 'NO_PROGRESS' } },
    });
    expect(StateDocSchema.parse(doc)).toEqual(doc);
  });
});

describe('BranchSchema', () => {
  const branch = { nodeId: 'price', nodeRuns: 4, node: null, loop };

  it('reads a map branch: its items, the results so far and how many started', () => {
    const map = { items: [10, 20, 30], results: [{ total: 11 }, null, null], started: 2 };
    expect(BranchSchema.parse({ ...branch, map })).toEqual({ ...branch, map });
    const failed = { ...map, failed: { reason: 'MAP_ITEMS', message: 'not a list' } };
    expect(BranchSchema.parse({ ...branch, map: failed }).map?.failed).toEqual(failed.failed);
  });

  it('reads a map item branch: the map node run, the index and the value', () => {
    const item = { of: 4, index: 1, value: { sku: 'A' } };
    expect(BranchSchema.parse({ ...branch, item }).item).toEqual(item);
    expect(BranchSchema.safeParse({ ...branch, item: { of: 4, index: 0.5, value: 1 } }).success).toBe(false);
  });

  it('refuses a negative started count, and a result that is not an object or null', () => {
    const map = { items: [1], results: [null], started: -1 };
    expect(BranchSchema.safeParse({ ...branch, map }).success).toBe(false);
    expect(BranchSchema.safeParse({ ...branch, map: { ...map, started: 0, results: [3] } }).success).toBe(
      false,
    );
  });
});

describe('GraphStateSchema', () => {
  it('needs the joins list; the failure and its message are optional', () => {
    expect(GraphStateSchema.parse({ joins: [] })).toEqual({ joins: [] });
    expect(GraphStateSchema.safeParse({}).success).toBe(false);
    expect(GraphStateSchema.safeParse({ joins: [], failed: { nodeId: 'a' } }).success).toBe(false);
  });
});

describe('HeldQuestionSchema', () => {
  const held = { id: 'hld_1f', nodeId: 'pay', until: 1_767_225_600_000, elicitation };

  it('reads a held question and its answer with who gave it', () => {
    expect(HeldQuestionSchema.parse(held)).toEqual(held);
    const answer = { server: 'shop', tool: 'order_place', fingerprint: 'fp1', action: 'accept', who: null };
    expect(HeldQuestionSchema.parse({ ...held, answer }).answer).toEqual(answer);
  });

  it('needs `who` on the answer (null for an unknown person) and an epoch-ms `until`', () => {
    const answer = { server: 'shop', tool: 'order_place', fingerprint: 'fp1', action: 'decline' };
    expect(HeldQuestionSchema.safeParse({ ...held, answer }).success).toBe(false);
    expect(HeldQuestionSchema.safeParse({ ...held, until: '2026-01-01T00:00:00Z' }).success).toBe(false);
  });

  it('is part of the state document under `held`', () => {
    const doc: RunStateDoc = runState('r1', { held });
    expect(StateDocSchema.parse(doc).held).toEqual(held);
    expect(accepts(runState('r1', { held: { ...held, elicitation: { ...elicitation, mode: 'sms' } } }))).toBe(
      false,
    );
  });
});
