import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../web/src/api.js';
import { emptyRun, foldEvents } from '../../web/src/trace-model.js';

/** The console's timeline model: a running call shows its tool's latest progress report. */
describe('tool.progress in the console timeline', () => {
  const base = { runId: 'run_p', ts: '2026-01-01T00:00:00.000Z' };
  const start: TraceEvent[] = [
    { ...base, seq: 1, type: 'run.started', flowId: 'f', flowVersion: '1', input: {} },
    { ...base, seq: 2, type: 'node.started', nodeId: 'a' },
    { ...base, seq: 3, type: 'react.round', nodeId: 'a', round: 1 },
    {
      ...base,
      seq: 4,
      type: 'model.response',
      nodeId: 'a',
      round: 1,
      toolCalls: [{ callId: 'c1', tool: 'report_build' }],
      text: '',
    },
  ];
  const progress = (seq: number, value: number, message?: string): TraceEvent => ({
    ...base,
    seq,
    type: 'tool.progress',
    nodeId: 'a',
    round: 1,
    callId: 'c1',
    tool: 'report_build',
    progress: value,
    total: 5,
    ...(message ? { message } : {}),
  });
  const callOf = (events: TraceEvent[]) => {
    const round = foldEvents(emptyRun(), events).nodes[0]?.items[0];
    return round?.kind === 'round' ? round.calls[0] : undefined;
  };

  it('keeps the latest report of the waiting call, folded event by event as SSE delivers them', () => {
    expect(callOf(start)?.progress).toBeNull();
    const first = foldEvents(emptyRun(), [...start, progress(5, 1, 'page 1')]);
    const later = foldEvents(first, [progress(6, 3)]);
    const round = later.nodes[0]?.items[0];
    const call = round?.kind === 'round' ? round.calls[0] : undefined;
    expect(call).toMatchObject({ outcome: null, progress: { progress: 3, total: 5, message: null } });
    expect(round?.kind === 'round' && round.calls).toHaveLength(1);
  });

  it('the outcome replaces the bar once the call ended', () => {
    const ended = callOf([
      ...start,
      progress(5, 2),
      {
        ...base,
        seq: 6,
        type: 'tool.invoked',
        nodeId: 'a',
        round: 1,
        callId: 'c1',
        tool: 'report_build',
        args: {},
        outcome: 'SUCCESS',
        errorCode: null,
        message: 'ok',
        evidenceId: 'ev_1',
        executed: true,
        level: 'info',
        lookBack: false,
      },
    ]);
    expect(ended).toMatchObject({ outcome: 'SUCCESS', progress: { progress: 2 } });
  });

  it('shows the bar of a call whose round is not committed yet, and keeps one round and one call once it is', () => {
    const early = [start[0], start[1], progress(3, 1), progress(4, 2)] as TraceEvent[];
    const live = callOf(early);
    expect(live).toMatchObject({ callId: 'c1', outcome: null, progress: { progress: 2, total: 5 } });
    const later: TraceEvent[] = [
      { ...base, seq: 5, type: 'react.round', nodeId: 'a', round: 1 },
      { ...(start[3] as TraceEvent), seq: 6 },
      {
        ...base,
        seq: 7,
        type: 'tool.invoked',
        nodeId: 'a',
        round: 1,
        callId: 'c1',
        tool: 'report_build',
        args: {},
        outcome: 'SUCCESS',
        errorCode: null,
        message: 'ok',
        evidenceId: 'ev_1',
        executed: true,
        level: 'info',
        lookBack: false,
      },
    ];
    const node = foldEvents(foldEvents(emptyRun(), early), later).nodes[0];
    expect(node?.items).toHaveLength(1);
    const round = node?.items[0];
    expect(round?.kind === 'round' && round.calls.map((c) => [c.callId, c.outcome])).toEqual([
      ['c1', 'SUCCESS'],
    ]);
  });
});
