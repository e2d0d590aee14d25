import { describe, expect, it } from 'vitest';
import { fromJson, jsonClone, toJson } from '../../src/store/json.js';

/** The JSON encoding every store shares: exactly what a round trip through SQLite gives. */

describe('toJson', () => {
  it('undefined and null become SQL NULL, not the text "null"', () => {
    expect(toJson(undefined)).toBeNull();
    expect(toJson(null)).toBeNull();
  });

  it('other values become their JSON text, falsy ones included', () => {
    expect(toJson(0)).toBe('0');
    expect(toJson(false)).toBe('false');
    expect(toJson('')).toBe('""');
    expect(toJson([])).toBe('[]');
    expect(toJson({ a: [1, 'x', null] })).toBe('{"a":[1,"x",null]}');
  });

  it('drops undefined fields and turns dates into ISO strings', () => {
    expect(toJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(toJson({ at: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)) })).toBe('{"at":"2026-01-02T03:04:05.000Z"}');
    expect(toJson([undefined, 1])).toBe('[null,1]');
  });

  it('keeps non-ASCII text as it is', () => {
    expect(toJson({ name: '官网' })).toBe('{"name":"官网"}');
  });
});

describe('fromJson', () => {
  it('NULL becomes null; text is parsed', () => {
    expect(fromJson(null)).toBeNull();
    expect(fromJson('{"a":1}')).toEqual({ a: 1 });
    expect(fromJson('"x"')).toBe('x');
    expect(fromJson('null')).toBeNull();
  });

  it('throws on text that is not JSON (a damaged column is not silently read)', () => {
    expect(() => fromJson('{a:1}')).toThrow(SyntaxError);
    expect(() => fromJson('')).toThrow(SyntaxError);
  });
});

describe('jsonClone', () => {
  it('gives a deep copy the caller owns', () => {
    const value = { run: { approvals: [{ who: 'a' }] } };
    const copy = jsonClone(value);
    expect(copy).toEqual(value);
    expect(copy).not.toBe(value);
    expect(copy.run.approvals).not.toBe(value.run.approvals);
    copy.run.approvals.push({ who: 'b' });
    expect(value.run.approvals).toHaveLength(1);
  });

  it('has JSON semantics: undefined fields go, dates become strings, NaN and Infinity become null', () => {
    const copy = jsonClone({ a: undefined, at: new Date(0), n: Number.NaN, i: Infinity, m: -0 }) as Record<
      string,
      unknown
    >;
    expect(copy).toEqual({ at: '1970-01-01T00:00:00.000Z', n: null, i: null, m: 0 });
    expect('a' in copy).toBe(false);
  });

  it('a null or undefined value comes back as null', () => {
    expect(jsonClone(null)).toBeNull();
    expect(jsonClone(undefined)).toBeNull();
  });

  it('a frozen value gives an unfrozen copy', () => {
    const copy = jsonClone(Object.freeze({ list: Object.freeze([1]) }));
    expect(Object.isFrozen(copy)).toBe(false);
    expect(Object.isFrozen(copy.list)).toBe(false);
  });
});
