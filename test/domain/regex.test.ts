import { describe, expect, it } from 'vitest';
import { linearTimeProblem, schemaRegExp } from '../../src/domain/regex.js';

/** Regexes a flow carries: schema patterns compiled for V8's linear-time fall-back, and the linear-time check. */

describe('schemaRegExp', () => {
  it('drops the u flag Ajv asks for from a pattern without unicode-only syntax, matching the same strings', () => {
    const regex = schemaRegExp('^[A-Z]{2}-\\d+$', 'u');
    expect(regex.flags).toBe('');
    expect(regex.test('AB-12')).toBe(true);
    expect(regex.test('ab-12')).toBe(false);
    expect(schemaRegExp('^a+$', 'gu').flags).toBe('g');
  });

  it('keeps u for \\p{…}, \\u{…}, surrogate escapes and characters outside the BMP', () => {
    expect(schemaRegExp('^\\p{L}+$', 'u').flags).toBe('u');
    expect(schemaRegExp('^\\p{L}+$', 'u').test('héllo')).toBe(true);
    expect(schemaRegExp('^\\u{1F600}$', 'u').test('😀')).toBe(true);
    expect(schemaRegExp('^\\uD83D\\uDE00$', 'u').flags).toBe('u');
    expect(schemaRegExp('^[😀]$', 'u').test('😀')).toBe(true);
  });

  it('counts a character outside the BMP as two once u is dropped (the documented difference)', () => {
    expect(schemaRegExp('^.$', 'u').test('😀')).toBe(false);
    expect(schemaRegExp('^..$', 'u').test('😀')).toBe(true);
    expect(new RegExp('^.$', 'u').test('😀')).toBe(true);
  });

  it('leaves a pattern compiled without u as it is, and throws for one that is invalid with u', () => {
    expect(schemaRegExp('^a$', '').flags).toBe('');
    // Valid without u, invalid with it: the pattern is refused as Ajv would refuse it.
    expect(() => schemaRegExp('\\-', 'u')).toThrow(SyntaxError);
  });
});

describe('linearTimeProblem', () => {
  it('accepts what the linear engine runs', () => {
    for (const regex of [/^(a+)+$/, /ab|cd/g, /[aA]pple/, /x+/, /x{1,16}/, /(?:a|b)*c/])
      expect(linearTimeProblem(regex)).toBeUndefined();
  });

  it.each([
    [/(a)\1/, 'a backreference, a lookahead, a lookbehind or a counted repetition above 16'],
    [/a(?=b)/, 'a backreference, a lookahead'],
    [/x{1,64}/, 'counted repetition above 16'],
    [/apple/i, 'it is case-insensitive (flag i)'],
    [/\p{L}/u, 'unicode-only syntax'],
    [new RegExp('a', 'v'), 'unicode-only syntax'],
  ])('refuses %s, saying why and what to write instead', (regex, why) => {
    const problem = linearTimeProblem(regex);
    expect(problem).toContain(`regex ${JSON.stringify(regex.source)} cannot be run in linear time`);
    expect(problem).toContain(why);
    expect(problem).toContain('write [aA] instead of flag i, x+ with maxLength instead of x{1,64}');
  });
});
