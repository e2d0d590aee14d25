import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint } from '../../src/domain/fingerprint.js';

/**
 * The identity of a call (docs/design.md, write gate and fingerprint steps): tool name plus the
 * arguments as canonical JSON — keys sorted at every level, so key order and white space never matter.
 */

const sha = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 24);

describe('canonicalJson', () => {
  it('sorts object keys at every level, inside arrays too', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
  });

  it('keeps the order of array items (a list in another order is another value)', () => {
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson({ ids: ['b', 'a'] })).not.toBe(canonicalJson({ ids: ['a', 'b'] }));
  });

  it('gives the same text for the same value written in any key order', () => {
    const one = JSON.parse('{"name":"shop","spaceId":"s1","opts":{"ssl":true,"region":"eu"}}') as unknown;
    const two = JSON.parse(
      '{ "opts": { "region": "eu", "ssl": true }, "spaceId": "s1", "name": "shop" }',
    ) as unknown;
    expect(canonicalJson(one)).toBe(canonicalJson(two));
    expect(canonicalJson(one)).toBe('{"name":"shop","opts":{"region":"eu","ssl":true},"spaceId":"s1"}');
  });

  it('writes scalars as JSON does', () => {
    expect(canonicalJson('a"b')).toBe('"a\\"b"');
    expect(canonicalJson(1.5)).toBe('1.5');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson('名字')).toBe('"名字"');
  });

  it('sorts keys by code unit, upper case before lower case, and numeric-looking keys as JSON orders them', () => {
    expect(canonicalJson({ b: 1, B: 2, a: 3, _: 4 })).toBe('{"B":2,"_":4,"a":3,"b":1}');
    expect(canonicalJson({ '10': 'x', '2': 'y', a: 'z' })).toBe('{"2":"y","10":"x","a":"z"}');
  });

  it('leaves out keys whose value is undefined, and writes undefined in a list as null (like JSON)', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
  });

  it('tells apart values JSON tells apart', () => {
    expect(canonicalJson({ a: '1' })).not.toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson({ a: [] })).not.toBe(canonicalJson({ a: {} }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });

  it('writes what JSON.stringify writes for a value with toJSON (a Date: its ISO string), keys sorted', () => {
    const at = new Date(0);
    expect(canonicalJson({ at })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    expect(canonicalJson({ v: { toJSON: () => ({ b: 1, a: 2 }) } })).toBe('{"v":{"a":2,"b":1}}');
    expect(canonicalJson({ at: new Date(1) })).not.toBe(canonicalJson({ at }));
  });

  it('does not change the value it is given', () => {
    const value = { b: [{ d: 1, c: 2 }], a: 0 };
    canonicalJson(value);
    expect(Object.keys(value)).toEqual(['b', 'a']);
    expect(Object.keys(value.b[0] ?? {})).toEqual(['d', 'c']);
  });
});

describe('fingerprint', () => {
  it('is `<tool>#` and the first 24 hex digits of the SHA-256 of the canonical arguments', () => {
    const args = { spaceId: 's1', name: 'shop' };
    expect(fingerprint('web_site_create', args)).toBe(
      `web_site_create#${sha('{"name":"shop","spaceId":"s1"}')}`,
    );
    expect(fingerprint('web_site_create', args)).toMatch(/^web_site_create#[0-9a-f]{24}$/);
    expect(fingerprint('space_list', {})).toBe(`space_list#${sha('{}')}`);
  });

  it('is the same for the same call with its keys in another order', () => {
    expect(fingerprint('t', { a: 1, b: { c: 2, d: 3 } })).toBe(fingerprint('t', { b: { d: 3, c: 2 }, a: 1 }));
  });

  it('differs by tool, by any argument value, and by list order', () => {
    const base = fingerprint('t', { a: 1, list: [1, 2] });
    expect(fingerprint('u', { a: 1, list: [1, 2] })).not.toBe(base);
    expect(fingerprint('t', { a: 2, list: [1, 2] })).not.toBe(base);
    expect(fingerprint('t', { a: '1', list: [1, 2] })).not.toBe(base);
    expect(fingerprint('t', { a: 1, list: [2, 1] })).not.toBe(base);
    expect(fingerprint('t', { a: 1, list: [1, 2], extra: null })).not.toBe(base);
  });

  it('the same digest follows whatever tool name precedes it', () => {
    const [, one] = fingerprint('a', { x: 1 }).split('#');
    const [, two] = fingerprint('b', { x: 1 }).split('#');
    expect(one).toBe(two);
  });
});
