import { describe, expect, it } from 'vitest';
import { locate, saidByUser } from '../../src/tools/matching.js';
import { containsEligible, findInText, isBoundary } from '../../src/tools/text-match.js';

/** The original text a match covers, or null. */
function found(value: string, text: string): string | null {
  const span = findInText(value, text);
  return span ? text.slice(span[0], span[1]) : null;
}

describe('findInText: a value inside a text, at token boundaries, after folding', () => {
  it('finds a path in a prose result, and maps the span back to the original text', () => {
    const text = 'Successfully wrote to /tmp/t/printer.md';
    expect(findInText('/tmp/t/printer.md', text)).toEqual([22, 39]);
    expect(found('Successfully wrote', text)).toBe('Successfully wrote');
  });

  it('never inside a longer word or number', () => {
    expect(found('printer', 'wrote to /tmp/t/printer.md')).toBeNull(); // `printer.md` is one token
    expect(found('MARKER', 'see MARKERS here')).toBeNull();
    expect(found('ORD', 'order ORD-17 shipped')).toBeNull();
    expect(found('alice', 'mail alice@example.com')).toBeNull();
    expect(found('100', 'costs 1000')).toBeNull();
    expect(found('100', 'costs 100.5')).toBeNull();
    expect(found('100', 'costs -100')).toBeNull();
    expect(found('1,000', 'costs 21,000 now')).toBeNull();
    expect(found('100', 'costs $100, not 1000')).toBe('100');
    expect(found('12:30', 'at 12:30.')).toBe('12:30');
    expect(found('MARKER-SEVEN', 'the MARKER-SEVEN line')).toBe('MARKER-SEVEN');
    expect(found('printer.md', 'wrote printer.md.')).toBe('printer.md');
  });

  it('folds case, width and white space like `source: user`; the span covers the original characters', () => {
    expect(found('zhang wei', 'Owner:  Zhang\n  Wei.')).toBe('Zhang\n  Wei');
    expect(found('ＭＡＲＫＥＲ-7', 'marker-7 is set')).toBe('marker-7');
    expect(found('café', 'Le CAFE\u0301 ouvert')).toBe('CAFE\u0301'); // a combining accent stays with its letter
    expect(found('ab', 'xa b')).toBeNull(); // `xa` is one token
  });

  it('a match never starts or ends inside a character that folds to several (`㎏` → `kg`)', () => {
    expect(found('5kg', 'weighs 5㎏ now')).toBe('5㎏');
    expect(found('5k', 'weighs 5㎏ now')).toBeNull();
  });

  it('CJK: a boundary between any two Han characters, and between Han and Latin or digits', () => {
    expect(found('张伟', '负责人：张伟。')).toBe('张伟');
    expect(found('张伟', '由张伟负责')).toBe('张伟');
    expect(found('12345', '订单12345已发货')).toBe('12345');
    expect(found('1234', '订单12345已发货')).toBeNull();
    expect(found('カタカナ', 'これはカタカナです')).toBe('カタカナ');
    // Hangul is written with spaces: its syllables are letters.
    expect(found('김철', '김철수 님')).toBeNull();
  });

  it('isBoundary at the ends and between kinds', () => {
    expect(isBoundary('abc', 0)).toBe(true);
    expect(isBoundary('abc', 3)).toBe(true);
    expect(isBoundary('abc', 1)).toBe(false);
    expect(isBoundary('a b', 1)).toBe(true);
    expect(isBoundary('a😀b', 1)).toBe(true);
    expect(isBoundary('a😀b', 3)).toBe(true);
  });
});

describe('containsEligible: the minimum length', () => {
  it('3 folded characters, 2 with a Han or kana character, and at least one letter or digit', () => {
    expect(containsEligible('ab')).toBe(false);
    expect(containsEligible('a b')).toBe(false);
    expect(containsEligible('abc')).toBe(true);
    expect(containsEligible('42')).toBe(false);
    expect(containsEligible('420')).toBe(true);
    expect(containsEligible('张')).toBe(false);
    expect(containsEligible('张伟')).toBe(true);
    expect(containsEligible('...')).toBe(false);
    expect(containsEligible('  ')).toBe(false);
  });
});

describe('locate', () => {
  const payload = { content: 'Owner: Zhang Wei\nMarker: MARKER-SEVEN', list: ['a', 'MARKER-SEVEN'] };

  it('prefers a whole leaf; with contains, a long enough string inside a text, with its span', () => {
    expect(locate('MARKER-SEVEN', payload)).toEqual({ path: ['list', 1] });
    expect(locate('Zhang Wei', payload)).toBeNull();
    expect(locate('Zhang Wei', payload, { contains: true })).toEqual({ path: ['content'], span: [7, 16] });
    expect(locate('Zh', payload, { contains: true })).toBeNull();
    expect(locate('a', payload, { contains: true })).toEqual({ path: ['list', 0] });
  });

  it('a text payload is its own leaf', () => {
    expect(locate('/tmp/x.md', 'Successfully wrote to /tmp/x.md', { contains: true })).toEqual({
      path: [],
      span: [22, 31],
    });
  });
});

describe('saidByUser: numbers', () => {
  it('a number at the end of a sentence is said; one inside a longer number or a decimal is not', () => {
    expect(saidByUser('19122', ['You are Yusuf Rossi in zip code 19122.'])).toBe(true);
    expect(saidByUser(10, ['costs 10.5'])).toBe(false);
    expect(saidByUser(10, ['version .10'])).toBe(false);
    expect(saidByUser(10, ['costs 100'])).toBe(false);
  });
});
