import { describe, expect, it } from 'vitest';
import { code } from '../../src/domain/error-codes.js';
import { GUARD_CODES, GUARD_TEXTS, isUserCodeNumber, USER_CODE_RANGE } from '../../src/domain/guard-codes.js';
import { hint } from '../../src/domain/hints.js';

/** The numbers user guards number their codes in, and the runtime's codes for a guard that broke its contract. */

describe('user code numbers', () => {
  it('are the whole numbers from 60000 to 69999, both ends included', () => {
    expect(USER_CODE_RANGE).toEqual({ min: 60000, max: 69999 });
    expect(Object.isFrozen(USER_CODE_RANGE)).toBe(true);
    for (const no of [60000, 61001, 69999]) expect(isUserCodeNumber(no)).toBe(true);
    for (const no of [59999, 70000, 60000.5, -60000, NaN, Infinity, '61001', null, undefined])
      expect(isUserCodeNumber(no), String(no)).toBe(false);
  });

  it('hold none of the runtime codes', () => {
    for (const [name, c] of Object.entries(GUARD_CODES)) {
      expect(isUserCodeNumber(c.no), name).toBe(false);
      expect(code(name as keyof typeof GUARD_CODES).no).toBe(c.no);
    }
  });
});

describe('the codes of a guard that broke its contract', () => {
  it('are FAILED, with reasons in both locales naming the guard, the tool and what went wrong', () => {
    for (const name of ['GUARD_ERROR', 'GUARD_VERDICT_INVALID'] as const) {
      const c = code(name);
      expect(c.outcome).toBe('FAILED');
      const params = { guard: 'refund-limit', tool: 'refund', detail: 'boom' };
      for (const locale of ['en', 'zh-CN'] as const) {
        const reason = c.reason(locale, params);
        for (const part of Object.values(params)) expect(reason, `${name} ${locale}`).toContain(part);
        expect(reason).not.toMatch(/\{\w+\}/);
      }
    }
  });

  it('share one next step telling the model not to repeat the call', () => {
    expect(hint('en', 'NEXT_GUARD_ERROR')).toBe(GUARD_TEXTS.NEXT_GUARD_ERROR.en);
    expect(hint('zh-CN', 'NEXT_GUARD_ERROR')).toBe(GUARD_TEXTS.NEXT_GUARD_ERROR['zh-CN']);
    expect(GUARD_TEXTS.NEXT_GUARD_ERROR.en).toContain('do not repeat it');
  });
});
