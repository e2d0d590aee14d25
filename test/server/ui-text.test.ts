import { describe, expect, it } from 'vitest';
import { UiTexts } from '../../src/server/ui-text.js';
import type { ModelDeltaEvent } from '../../src/trace/live.js';

/** The text parts of the chat stream: live pieces, held while the committed events are behind them. */

const delta = (round: number, text: string): ModelDeltaEvent => ({
  type: 'model.delta',
  runId: 'run_1',
  nodeId: 'talk',
  round,
  ts: '2026-01-01T00:00:00.000Z',
  text,
  toolCalls: [],
});

describe('UiTexts', () => {
  it('streams the new piece of each delta and ends the part with the rest of the response', () => {
    const t = new UiTexts();
    expect(t.delta(delta(1, '  Hel'))).toEqual([
      { type: 'text-start', id: 'text_1' },
      { type: 'text-delta', id: 'text_1', delta: 'Hel' },
    ]);
    expect(t.delta(delta(1, '  Hello wor'))).toEqual([{ type: 'text-delta', id: 'text_1', delta: 'lo wor' }]);
    expect(t.delta(delta(1, '  Hello wor'))).toEqual([]);
    expect(t.response('talk', 1, '  Hello world.', 0)).toEqual([
      { type: 'text-delta', id: 'text_1', delta: 'ld.' },
      { type: 'text-end', id: 'text_1' },
    ]);
    expect(t.last).toBe('Hello world.');
    // A late delta of a round already answered says nothing.
    expect(t.delta(delta(1, 'Hello world.'))).toEqual([]);
  });

  it('holds a delta while tool calls of the last response wait for their results', () => {
    const t = new UiTexts();
    expect(t.response('talk', 1, 'Looking.', 2)).toEqual([
      { type: 'text-start', id: 'text_1' },
      { type: 'text-delta', id: 'text_1', delta: 'Looking.' },
      { type: 'text-end', id: 'text_1' },
    ]);
    expect(t.delta(delta(2, 'Found'))).toEqual([]);
    expect(t.delta(delta(2, 'Found it'))).toEqual([]);
    expect(t.settled()).toEqual([]);
    expect(t.settled()).toEqual([
      { type: 'text-start', id: 'text_2' },
      { type: 'text-delta', id: 'text_2', delta: 'Found it' },
    ]);
  });

  it('holds a delta of a round whose previous round was not read yet; its response says the whole text', () => {
    const t = new UiTexts();
    t.response('talk', 1, '', 0);
    expect(t.delta(delta(3, 'Later text'))).toEqual([]);
    expect(t.response('talk', 2, '', 0)).toEqual([]);
    expect(t.response('talk', 3, 'Later text.', 0)).toEqual([
      { type: 'text-start', id: 'text_1' },
      { type: 'text-delta', id: 'text_1', delta: 'Later text.' },
      { type: 'text-end', id: 'text_1' },
    ]);
  });
});
