import { describe, expect, it } from 'vitest';
import { RunListeners } from '../../src/trace/run-listeners.js';

describe('RunListeners', () => {
  it("calls only the run's listeners, and forgets a run with its last listener", () => {
    const listeners = new RunListeners<number>();
    const seen: string[] = [];
    const offA = listeners.subscribe('a', (n) => seen.push(`a1:${n}`));
    const offA2 = listeners.subscribe('a', (n) => seen.push(`a2:${n}`));
    listeners.subscribe('b', (n) => seen.push(`b:${n}`));
    listeners.emit('a', 1);
    listeners.emit('c', 2);
    expect(seen).toEqual(['a1:1', 'a2:1']);
    offA();
    expect(listeners.has('a')).toBe(true);
    offA2();
    offA2();
    expect(listeners.has('a')).toBe(false);
    expect(listeners.has('b')).toBe(true);
  });

  it('lets a listener unsubscribe another during an emit (those subscribed when it started are called)', () => {
    const listeners = new RunListeners<string>();
    const seen: string[] = [];
    let offSecond = () => {};
    listeners.subscribe('r', (v) => {
      seen.push(`first:${v}`);
      offSecond();
      listeners.subscribe('r', (w) => seen.push(`late:${w}`));
    });
    offSecond = listeners.subscribe('r', (v) => seen.push(`second:${v}`));
    listeners.emit('r', 'x');
    expect(seen).toEqual(['first:x', 'second:x']);
  });
});
