import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStderrLogger, formatRecord, MAX_FIELD_CHARS } from '../../src/log/logger.js';
import { SEC, startTarget, type Target } from './helpers.js';

/**
 * Finding 11 of issue 27: a flow's `version` put raw escape, backspace and line-separator bytes into
 * the server log (a forged line, a retitled terminal). Every value from a request is now escaped in
 * the log and cut at a bounded length.
 */

/** Bytes a log line must never carry raw: C0 and C1 controls, DEL, line/paragraph separators, bidi overrides. */
// eslint-disable-next-line no-control-regex -- the point of the test
const RAW = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\ufeff]/u;

const lines: string[] = [];
let t: Target;

beforeAll(async () => {
  t = await startTarget({ server: { logger: createStderrLogger({ write: (line) => lines.push(line) }) } });
});
afterAll(async () => {
  await t.stop();
});

const HOSTILE =
  '1\u001b]0;pwned\u0007\u001b[2J\b\b\rINFO SERVER forged\nERROR x\u2028y\u2029z\u0085\u202egnp.exe\u200b\u009b31m';

describe('the server log', () => {
  it("escapes a request's labels: no control, separator or bidi character reaches a line", async () => {
    const response = await t.call('POST', '/v1/flows', {
      token: SEC.admin,
      json: { id: 'esc', version: HOSTILE, locale: 'en', nodes: [{ id: 'main' }] },
    });
    expect(response.status).toBe(201);
    const registered = lines.filter((l) => l.includes('FLOWS registered'));
    expect(registered).toHaveLength(1);
    const [line] = registered as [string];
    expect(line).not.toMatch(RAW);
    expect(line).toContain('\\u001b]0;pwned\\u0007');
    expect(line).toContain('\\u2028');
    expect(line).toContain('\\u202e');
    expect(line.split('\n')).toHaveLength(1);
  });

  it('cuts long labels and escapes keys, messages and object fields too', () => {
    const long = formatRecord('info', 'X', { model: `openai:${'m'.repeat(400_000)}` });
    expect(long.length).toBeLessThan(MAX_FIELD_CHARS + 100);
    expect(long).toContain('…(+');
    const all = formatRecord('warn', 'A\u001b[2Jmsg\u2028', {
      ['k\u001b']: 'v',
      obj: { v: 'a\u2028\u001b\u0085' },
      error: new Error('boom\u001b[31m'),
    });
    expect(all).not.toMatch(RAW);
    expect(all.split('\n')).toHaveLength(1);
    // Plain values stay bare and readable, in any script.
    expect(formatRecord('info', 'FLOWS registered', { flowId: '官网-v2', version: 3 })).toBe(
      'INFO FLOWS registered flowId=官网-v2 version=3',
    );
  });
});
