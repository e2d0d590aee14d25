import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../web/src/api.js';
import { emptyRun, foldEvents } from '../../web/src/trace-model.js';

describe('run.message in the console timeline', () => {
  it("shows a person's steering message in the round that read it", () => {
    const base = { runId: 'run_s', ts: '2026-01-01T00:00:00.000Z' };
    const events: TraceEvent[] = [
      { ...base, seq: 1, type: 'run.started', flowId: 'f', flowVersion: '1', input: {} },
      { ...base, seq: 2, type: 'node.started', nodeId: 'a' },
      { ...base, seq: 3, type: 'react.round', nodeId: 'a', round: 1 },
      { ...base, seq: 4, type: 'react.round', nodeId: 'a', round: 2 },
      {
        ...base,
        seq: 5,
        type: 'run.message',
        nodeId: 'a',
        round: 2,
        messageId: 'msg_1',
        messageSeq: 1,
        text: 'use the other card',
        who: 'olivia',
        acceptedAt: base.ts,
      },
    ] as TraceEvent[];
    const rounds = foldEvents(emptyRun(), events).nodes[0]?.items.filter((i) => i.kind === 'round');
    expect(rounds?.map((r) => (r.kind === 'round' ? r.messages : null))).toEqual([
      [],
      [{ text: 'use the other card', who: 'olivia' }],
    ]);
  });
});
