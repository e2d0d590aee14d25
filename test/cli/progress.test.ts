import { describe, expect, it } from 'vitest';
import { ProgressWriter } from '../../src/cli/progress.js';
import { jsonLine, visible } from '../../src/cli/visible.js';

/** The CLI's stderr writer (ordering of held log lines, streamed lines) and the visible-text helpers. */
describe('cli: ProgressWriter', () => {
  function writer(): { w: ProgressWriter; out: () => string; at: (ms: number) => void } {
    let text = '';
    let now = 1000;
    const w = new ProgressWriter(
      (t) => (text += t),
      () => now,
    );
    return { w, out: () => text, at: (ms) => (now = ms) };
  }

  it('a log line waits for the events before it and goes before the later ones', () => {
    const { w, out, at } = writer();
    at(1005);
    w.log('INFO late');
    expect(out()).toBe('');
    w.lines('event at 1003\n', 1003);
    w.lines('event at 1007\n', 1007);
    expect(out()).toBe('event at 1003\nINFO late\nevent at 1007\n');
  });

  it('settle prints the log lines of the same millisecond after a call line', () => {
    const { w, out, at } = writer();
    at(1010);
    w.log('INFO TOOL invoked');
    w.lines('call line\n', Number.NEGATIVE_INFINITY);
    w.settle(1010);
    expect(out()).toBe('call line\nINFO TOOL invoked\n');
  });

  it('a streamed line is ended before anything else, and flush releases what is held', () => {
    const { w, out } = writer();
    w.stream('k', '  model ✎ ', 'Hel');
    w.stream('k', '  model ✎ ', 'lo');
    w.log('WARN x');
    w.flush();
    expect(out()).toBe('  model ✎ Hello\nWARN x\n');
  });
});

describe('cli: visible', () => {
  it('shows C0, DEL, C1, separators and bidi overrides; keeps line feeds only when asked', () => {
    expect(visible('a\x1b[2J\x07\r\nb\x7f\x9b\u2028\u202e')).toBe('a␛[2J␇␍␊b␡<U+009B><U+2028><U+202E>');
    expect(visible('a\nb\tc\r', { keepLines: true })).toBe('a\nb\tc␍');
    expect(visible('中文 ok')).toBe('中文 ok');
  });

  it('jsonLine is the same value for a parser with no raw C1 or separator', () => {
    const value = { s: 'x\x9b\u2028\x1b' };
    const line = jsonLine(value);
    expect(JSON.parse(line)).toEqual(value);
    // eslint-disable-next-line no-control-regex -- the point
    expect(/[\x00-\x1f\x7f-\x9f\u2028]/.test(line.trimEnd())).toBe(false);
  });
});
