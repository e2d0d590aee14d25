import { describe, expect, it } from 'vitest';
import {
  deepMatches,
  echoes,
  isEmptyValue,
  isScalar,
  leavesUnderKey,
  locate,
  normalise,
  occursIn,
  pathOf,
  saidByUser,
  scalarEquals,
  scalarLeaves,
  showValue,
  valueAt,
  valuesNamed,
} from '../../src/tools/matching.js';

// Direct tests of src/tools/matching.ts; test/tools/guards/matching.test.ts covers the first cases of
// normalise, scalarEquals, occursIn, saidByUser and echoes.

describe('normalise', () => {
  it('folds NFKC compatibility forms, upper case of other scripts and every kind of white space', () => {
    expect(normalise('ＡＢＣ１２３')).toBe('abc123');
    expect(normalise('ÄÖÜ Σ')).toBe('äöüσ');
    expect(normalise('a\tb\nc\r\nd\u00a0e\u3000f')).toBe('abcdef');
    expect(normalise('㎏')).toBe('kg');
    expect(normalise('')).toBe('');
    expect(normalise('   ')).toBe('');
  });

  it('keeps punctuation unless asked, then removes every P* character (full-width ones too)', () => {
    expect(normalise('a.b-c')).toBe('a.b-c');
    expect(normalise('a.b-c', { punctuation: false })).toBe('a.b-c');
    expect(normalise('«a», (b)! ¿c?', { punctuation: true })).toBe('abc');
    // Symbols (S*) are not punctuation: they stay.
    expect(normalise('a+b=$5', { punctuation: true })).toBe('a+b=$5');
  });
});

describe('isScalar', () => {
  it('is true for JSON scalars only', () => {
    expect([null, '', 'x', 0, -1.5, true, false].map(isScalar)).toEqual(Array(7).fill(true));
    expect([undefined, {}, [], () => 1, Symbol('s'), 10n].map(isScalar)).toEqual(Array(6).fill(false));
  });
});

describe('scalarEquals', () => {
  it('null equals only null, never its text or an empty value', () => {
    expect(scalarEquals(null, null)).toBe(true);
    expect(scalarEquals(null, '')).toBe(false);
    expect(scalarEquals('', null)).toBe(false);
    expect(scalarEquals(null, 0)).toBe(false);
    expect(scalarEquals(false, null)).toBe(false);
  });

  it('compares numbers as numbers, within floating-point noise, never a leading-zero id', () => {
    expect(scalarEquals(0.1 + 0.2, 0.3)).toBe(true);
    expect(scalarEquals('0.30', 0.1 + 0.2)).toBe(true);
    expect(scalarEquals('+5', 5)).toBe(true);
    expect(scalarEquals('-5', 5)).toBe(false);
    expect(scalarEquals('1,000', 1000)).toBe(true);
    expect(scalarEquals('1000', '1,000.00')).toBe(true);
    expect(scalarEquals('007', '7')).toBe(false);
    expect(scalarEquals(1, 1.0001)).toBe(false);
  });

  it('folds width, case and white space but is never containment', () => {
    expect(scalarEquals('Ａ Ｂ', 'ab')).toBe(true);
    expect(scalarEquals('abc', 'ab')).toBe(false);
    expect(scalarEquals('ab', 'abc')).toBe(false);
    expect(scalarEquals(true, 'true')).toBe(true);
    expect(scalarEquals(false, 'true')).toBe(false);
    expect(scalarEquals(false, 0)).toBe(false);
    expect(scalarEquals(true, 1)).toBe(false);
  });

  it('compares dates as dates in both directions', () => {
    expect(scalarEquals('January 11th 2025', '2025-01-11')).toBe(true);
    expect(scalarEquals('2025/01/11', '11 January 2025')).toBe(true);
    expect(scalarEquals('Jan 11', '2025-01-11')).toBe(true); // no year: any year
    expect(scalarEquals('2025-01-11', '2025-01-12')).toBe(false);
    expect(scalarEquals('2025-01-11', 'on January 11th 2025 at noon')).toBe(false);
  });
});

describe('deepMatches', () => {
  it('matches scalars by scalarEquals and refuses a scalar against a structure', () => {
    expect(deepMatches('10', 10)).toBe(true);
    expect(deepMatches(null, null)).toBe(true);
    expect(deepMatches('x', ['x'])).toBe(false);
    expect(deepMatches(['x'], 'x')).toBe(false);
    expect(deepMatches({ a: 1 }, null)).toBe(false);
    expect(deepMatches(null, {})).toBe(false);
  });

  it('objects need exactly the same keys, any order; values compared deeply', () => {
    expect(deepMatches({ a: 1, b: 'X' }, { b: 'x', a: '1' })).toBe(true);
    expect(deepMatches({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepMatches({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(deepMatches({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(deepMatches({}, {})).toBe(true);
    expect(deepMatches({ a: { b: [1, { c: 'Ｚ' }] } }, { a: { b: ['1', { c: 'z' }] } })).toBe(true);
    expect(deepMatches({ a: { b: [1, { c: 'y' }] } }, { a: { b: [1, { c: 'z' }] } })).toBe(false);
  });

  it('arrays need the same length and order; an array never matches an object', () => {
    expect(deepMatches([], [])).toBe(true);
    expect(deepMatches([1, 2], [1, 2, 3])).toBe(false);
    expect(deepMatches([1], { 0: 1 })).toBe(false);
    expect(deepMatches({ 0: 1 }, [1])).toBe(false);
  });
});

describe('locate and occursIn', () => {
  const tree = {
    a: { id: 'X-1', n: 5 },
    list: [{ id: 'x-1' }, 'tail', null, 7.5],
    note: 'Total 1,250.00 EUR on January 11th 2025 for ORD-17',
  };

  it('returns the path of the first equal leaf in document order', () => {
    expect(locate('x-1', tree)).toEqual({ path: ['a', 'id'] });
    expect(locate('tail', tree)).toEqual({ path: ['list', 1] });
    expect(locate('7.50', tree)).toEqual({ path: ['list', 3] });
    expect(locate(5, tree)).toEqual({ path: ['a', 'n'] });
    expect(locate(null, tree)).toEqual({ path: ['list', 2] });
  });

  it('undefined is never found; a missing value is null', () => {
    expect(locate(undefined, tree)).toBeNull();
    expect(occursIn(undefined, tree)).toBe(false);
    expect(locate('nothing', tree)).toBeNull();
    expect(locate(null, { a: 'null' })).toBeNull();
  });

  it('a scalar tree is its own leaf, at the empty path', () => {
    expect(locate('abc', 'ABC')).toEqual({ path: [] });
    expect(locate(3, '3.0')).toEqual({ path: [] });
    expect(locate('abc', undefined)).toBeNull();
  });

  it('an object or array value must deep-match a sub-tree; the tree itself counts', () => {
    expect(locate({ id: 'X-1' }, tree)).toEqual({ path: ['list', 0] });
    expect(locate({ n: '5', id: 'x-1' }, tree)).toEqual({ path: ['a'] });
    expect(locate([], { a: [] })).toEqual({ path: ['a'] });
    expect(locate({ a: 1 }, { a: 1 })).toEqual({ path: [] });
    expect(locate({ a: 1 }, [{ a: 1, b: 2 }])).toBeNull();
    expect(occursIn(['x-1'], tree)).toBe(false);
  });

  it('without contains, nothing is found inside a text', () => {
    expect(locate('ORD-17', tree)).toBeNull();
    expect(locate(1250, tree)).toBeNull();
    expect(locate('2025-01-11', tree)).toBeNull();
  });

  it('with contains, numbers, dates and long enough strings are found inside a text, with their span', () => {
    const note = tree.note;
    const n = locate(1250, tree, { contains: true });
    expect(n).toEqual({ path: ['note'], span: [6, 14] });
    expect(note.slice(6, 14)).toBe('1,250.00');
    const d = locate('2025-01-11', tree, { contains: true });
    expect(d?.path).toEqual(['note']);
    expect(note.slice(...(d?.span as [number, number]))).toBe('January 11th 2025');
    const s = locate('ord-17', tree, { contains: true });
    expect(s?.path).toEqual(['note']);
    expect(note.slice(...(s?.span as [number, number]))).toBe('ORD-17');
    expect(locate('ORD', tree, { contains: true })).toBeNull(); // part of a token
    expect(locate('EU', tree, { contains: true })).toBeNull(); // too short
  });

  it('a whole leaf wins over a place inside an earlier text', () => {
    expect(locate('tail', { a: 'the tail end', b: 'tail' }, { contains: true })).toEqual({ path: ['b'] });
  });

  it('a numeric string inside a text is found as a number, never inside a longer one', () => {
    expect(locate('250', { t: 'paid 1,250 today' }, { contains: true })).toBeNull();
    expect(locate('1250', { t: 'paid 1,250 today' }, { contains: true })).toEqual({
      path: ['t'],
      span: [5, 10],
    });
    expect(locate('25', { t: 'paid 1.25 today' }, { contains: true })).toBeNull();
  });

  it('a number inside an id token is not found (ORD-17, INV-2024-001), nor 100 in -100', () => {
    expect(locate('17', { t: 'order ORD-17 shipped' }, { contains: true })).toBeNull();
    expect(locate(2024, { t: 'see INV-2024-001' }, { contains: true })).toBeNull();
    expect(locate(100, { t: 'balance -100' }, { contains: true })).toBeNull();
    expect(locate(-100, { t: 'balance -100' }, { contains: true })).toEqual({ path: ['t'], span: [8, 12] });
    expect(locate(12345, { t: '订单12345已发货' }, { contains: true })).toEqual({
      path: ['t'],
      span: [2, 7],
    });
  });
});

describe('valueAt', () => {
  const tree = { a: [{ b: 'x' }, null], c: 0 };

  it('walks keys and indexes; [] is the tree itself', () => {
    expect(valueAt(tree, [])).toBe(tree);
    expect(valueAt(tree, ['a', 0, 'b'])).toBe('x');
    expect(valueAt(tree, ['c'])).toBe(0);
    expect(valueAt(tree, ['a', 1])).toBeNull();
  });

  it('is undefined past a scalar, a null or a missing key', () => {
    expect(valueAt(tree, ['a', 1, 'b'])).toBeUndefined();
    expect(valueAt(tree, ['c', 'd'])).toBeUndefined();
    expect(valueAt(tree, ['zzz', 'y'])).toBeUndefined();
    expect(valueAt('text', [0])).toBeUndefined();
  });
});

describe('scalarLeaves', () => {
  it('lists scalar leaves in document order, nulls included, nothing for undefined', () => {
    expect(scalarLeaves({ a: 1, b: [null, 'x', { c: true }], d: {} })).toEqual([1, null, 'x', true]);
    expect(scalarLeaves('x')).toEqual(['x']);
    expect(scalarLeaves(undefined)).toEqual([]);
    expect(scalarLeaves([])).toEqual([]);
  });
});

describe('leavesUnderKey', () => {
  const tree = {
    orderId: 'A1',
    items: [{ order_id: 'B2' }, { ORDER_ID: ['C3', 4] }, { orderId: { nested: 'D4' } }],
    other: { 'Order-Id': null },
  };

  it('finds keys named alike at any depth, case, width and punctuation folded', () => {
    expect(leavesUnderKey(tree, 'order id')).toEqual(['A1', 'B2', 'C3', 4, null]);
    expect(leavesUnderKey(tree, 'ＯＲＤＥＲ＿ＩＤ')).toEqual(['A1', 'B2', 'C3', 4, null]);
  });

  it('does not take an object under the key; it looks inside it for the key again', () => {
    expect(leavesUnderKey({ id: { id: 'inner', x: 'no' } }, 'id')).toEqual(['inner']);
    expect(leavesUnderKey({ id: [{ id: 'z' }] }, 'id')).toEqual(['z']);
  });

  it('is empty for a scalar tree or no such key', () => {
    expect(leavesUnderKey('orderId', 'orderId')).toEqual([]);
    expect(leavesUnderKey(tree, 'customer')).toEqual([]);
  });
});

describe('valuesNamed', () => {
  it('the key first, then its singular (`-s`, then `-es`)', () => {
    expect(valuesNamed({ item_ids: ['a'], item_id: 'b' }, 'item_ids')).toEqual(['a']);
    expect(valuesNamed({ item_id: 'b' }, 'item_ids')).toEqual(['b']);
    expect(valuesNamed({ box: 'b1' }, 'boxes')).toEqual(['b1']);
  });

  it('never other leaves, nor a singular of a key not ending in a letter and s', () => {
    expect(valuesNamed({ name: 'x', id: 1 }, 'item_ids')).toEqual([]);
    expect(valuesNamed({ item_: 'x' }, 'item_s')).toEqual([]);
  });
});

describe('saidByUser', () => {
  it('is false for undefined, null, empty and white-space values', () => {
    expect(saidByUser(undefined, ['anything'])).toBe(false);
    expect(saidByUser(null, ['null'])).toBe(false);
    expect(saidByUser('', ['x'])).toBe(false);
    expect(saidByUser('  ', ['a  b'])).toBe(false);
    expect(saidByUser('x', [])).toBe(false);
  });

  it('an object or array is said when every scalar leaf is; an empty one never is', () => {
    expect(saidByUser({ to: 'Alice', amount: 5 }, ['send 5 to alice'])).toBe(true);
    expect(saidByUser({ to: 'Alice', amount: 6 }, ['send 5 to alice'])).toBe(false);
    expect(saidByUser(['alice', 'bob'], ['alice', 'and bob'])).toBe(true);
    expect(saidByUser([], ['x'])).toBe(false);
    expect(saidByUser({}, ['x'])).toBe(false);
    expect(saidByUser([null], ['null'])).toBe(false);
  });

  it('looks in every text, folding width, case and white space', () => {
    expect(saidByUser('Zhang Wei', ['hi', 'owner: zhangwei'])).toBe(true);
    expect(saidByUser('ＳＰ_1', ['use sp_1'])).toBe(true);
    expect(saidByUser('sp_2', ['use sp_1'])).toBe(false);
  });

  it('numbers only where no digit or decimal point touches them', () => {
    expect(saidByUser(10, ['costs 10.'])).toBe(true);
    expect(saidByUser(10, ['10'])).toBe(true);
    expect(saidByUser(10, ['10.000'])).toBe(true); // the same number
    expect(saidByUser(10, ['2.10'])).toBe(false);
    expect(saidByUser('5', ['5-star'])).toBe(true);
    expect(saidByUser(5, ['a5'])).toBe(true);
    expect(saidByUser(5, ['1.5'])).toBe(false);
    expect(saidByUser(1.5, ['about 1.50 kg'])).toBe(true);
    expect(saidByUser('１０', ['costs 10'])).toBe(true);
  });

  it('a grouped number gives none of its groups: 10 and 000 are not in 10,000', () => {
    expect(saidByUser(10, ['10,000 people'])).toBe(false);
    expect(saidByUser('000', ['10,000 people'])).toBe(false);
    expect(saidByUser(10000, ['10,000 people'])).toBe(true);
    expect(saidByUser(10, ['pick 10, 20 or 30'])).toBe(true);
    expect(saidByUser(98.7, ['价格98.70元'])).toBe(true);
  });

  it('a leading-zero id is text: found where its digits stand whole', () => {
    expect(saidByUser('007', ['agent 007 here'])).toBe(true);
    expect(saidByUser('007', ['agent 7 here'])).toBe(false);
    expect(saidByUser('007', ['agent 1007 here'])).toBe(false);
  });

  it('booleans are said as their words', () => {
    expect(saidByUser(true, ['yes that is TRUE'])).toBe(true);
    expect(saidByUser(false, ['yes'])).toBe(false);
  });
});

describe('echoes', () => {
  it('a question folded and without punctuation, contained in a text, is an echo', () => {
    expect(echoes('Zhang Wei?', ['The owner is zhang-wei.'])).toBe(true);
    expect(echoes('Which owner?', ['The owner is zhang wei'])).toBe(false);
    expect(echoes('', ['x'])).toBe(false);
    expect(echoes('   ', ['x'])).toBe(false);
    expect(echoes('x', [])).toBe(false);
  });
});

describe('showValue', () => {
  it('shows strings bare and other values as JSON', () => {
    expect(showValue('abc')).toBe('abc');
    expect(showValue(5)).toBe('5');
    expect(showValue(null)).toBe('null');
    expect(showValue({ a: [1, '2'] })).toBe('{"a":[1,"2"]}');
    expect(showValue(undefined)).toBe('undefined');
  });

  it('cuts at max characters, the last one an ellipsis', () => {
    expect(showValue('x'.repeat(80))).toBe('x'.repeat(80));
    expect(showValue('x'.repeat(81))).toBe(`${'x'.repeat(79)}…`);
    expect(showValue('abcdef', 4)).toBe('abc…');
    expect(showValue('abcd', 4)).toBe('abcd');
    expect(showValue([1, 2, 3, 4], 5)).toBe('[1,2…');
  });
});

describe('isEmptyValue', () => {
  it('null and blank strings say nothing; every other value does', () => {
    expect([null, '', '  ', '\n\t'].map(isEmptyValue)).toEqual([true, true, true, true]);
    expect([0, false, 'x', [], {}, undefined].map(isEmptyValue)).toEqual(Array(6).fill(false));
  });
});

describe('pathOf', () => {
  const tree = { a: [1, '1', { b: null }], c: { d: [true] } };

  it('finds a scalar by strict identity, not by matching', () => {
    expect(pathOf(tree, '1')).toEqual(['a', 1]);
    expect(pathOf(tree, 1)).toEqual(['a', 0]);
    expect(pathOf(tree, null)).toEqual(['a', 2, 'b']);
    expect(pathOf(tree, true)).toEqual(['c', 'd', 0]);
    expect(pathOf(tree, 'B')).toBeNull();
    expect(pathOf(tree, 1.0000001)).toBeNull();
  });

  it('finds a structure by its exact JSON; the tree itself is []', () => {
    expect(pathOf(tree, { b: null })).toEqual(['a', 2]);
    expect(pathOf(tree, [true])).toEqual(['c', 'd']);
    expect(pathOf(tree, tree)).toEqual([]);
    expect(pathOf(tree, { B: null })).toBeNull();
    expect(pathOf(tree, ['true'])).toBeNull();
  });
});
