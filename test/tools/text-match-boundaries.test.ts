import { describe, expect, it } from 'vitest';
import {
  containsEligible,
  findInText,
  foldText,
  isBoundary,
  MIN_CONTAINS_LENGTH,
  MIN_CONTAINS_LENGTH_UNSPACED,
} from '../../src/tools/text-match.js';

// Direct tests of src/tools/text-match.ts beyond test/tools/text-match.test.ts: the joiners, signs and
// scripts of token boundaries, folding, and the spans findInText maps back.

const found = (value: string, text: string): string | null => {
  const span = findInText(value, text);
  return span ? text.slice(span[0], span[1]) : null;
};

describe('foldText', () => {
  it('folds NFKC, case and white space as normalise does; punctuation stays', () => {
    expect(foldText('  Ｈｅｌｌｏ,\tWORLD ')).toBe('hello,world');
    expect(foldText('㎏')).toBe('kg');
    expect(foldText('')).toBe('');
    expect(foldText('CAFE\u0301')).toBe('café');
  });
});

describe('isBoundary: word joiners', () => {
  it(". - ' ’ @ between two word characters keep one token, on either side of the joiner", () => {
    for (const text of ['a.b', 'a-b', "a'b", 'a’b', 'a@b']) {
      expect([isBoundary(text, 1), isBoundary(text, 2)]).toEqual([false, false]);
    }
  });

  it('a joiner at the edge of a token is a boundary', () => {
    expect(isBoundary('ab.', 2)).toBe(true);
    expect(isBoundary('ab. c', 2)).toBe(true);
    expect(isBoundary('.ab', 1)).toBe(true);
    expect(isBoundary('a..b', 1)).toBe(true);
  });

  it(', : / join only two digits', () => {
    expect([isBoundary('1,000', 1), isBoundary('1,000', 2)]).toEqual([false, false]);
    expect([isBoundary('12:30', 2), isBoundary('12:30', 3)]).toEqual([false, false]);
    expect([isBoundary('3/4', 1), isBoundary('3/4', 2)]).toEqual([false, false]);
    expect(isBoundary('a,b', 1)).toBe(true);
    expect(isBoundary('a/b', 1)).toBe(true);
    expect(isBoundary('a:1', 1)).toBe(true);
    expect(isBoundary('1/a', 2)).toBe(true);
  });

  it('a digit right after - + . does not start a token; a letter does', () => {
    expect(isBoundary('-100', 1)).toBe(false);
    expect(isBoundary('+100', 1)).toBe(false);
    expect(isBoundary('.100', 1)).toBe(false);
    expect(isBoundary('-abc', 1)).toBe(true);
    expect(isBoundary('x 5', 2)).toBe(true);
  });

  it('other symbols and punctuation are boundaries; the underscore is a word character', () => {
    expect(isBoundary('a#b', 1)).toBe(true);
    expect(isBoundary('a(b', 1)).toBe(true);
    expect(isBoundary('a_b', 1)).toBe(false);
    expect(isBoundary('a_b', 2)).toBe(false);
  });
});

describe('isBoundary: scripts and marks', () => {
  it('between any two characters of a script written without spaces, and at their edges', () => {
    expect(isBoundary('张伟', 1)).toBe(true);
    expect(isBoundary('abc张', 3)).toBe(true);
    expect(isBoundary('张1', 1)).toBe(true);
    expect(isBoundary('สวัสดี', 1)).toBe(true);
  });

  it('Hangul, Cyrillic, Greek and Arabic are letters: no boundary inside a word', () => {
    expect(isBoundary('김철수', 1)).toBe(false);
    expect(isBoundary('привет', 3)).toBe(false);
    expect(isBoundary('αβγ', 1)).toBe(false);
    expect(isBoundary('مرحبا', 2)).toBe(false);
  });

  it('a combining mark stays with its letter', () => {
    const text = 'e\u0301x';
    expect(isBoundary(text, 2)).toBe(false);
    expect(isBoundary('e\u0301 x', 2)).toBe(true);
  });

  it('full-width letters and digits count as word characters', () => {
    expect(isBoundary('ＡＢ', 1)).toBe(false);
    expect(isBoundary('１２', 1)).toBe(false);
  });
});

describe('containsEligible', () => {
  it('states its thresholds', () => {
    expect(MIN_CONTAINS_LENGTH).toBe(3);
    expect(MIN_CONTAINS_LENGTH_UNSPACED).toBe(2);
  });

  it('counts folded characters: width, white space and expansions', () => {
    expect(containsEligible('ＡＢＣ')).toBe(true);
    expect(containsEligible(' a b ')).toBe(false);
    expect(containsEligible('㎏')).toBe(false); // `kg`: 2 characters
    expect(containsEligible('5㎏')).toBe(true); // `5kg`
  });

  it('punctuation counts towards the length once a letter or digit is there', () => {
    expect(containsEligible('a.b')).toBe(true);
    expect(containsEligible('a-')).toBe(false);
    expect(containsEligible('-.-')).toBe(false);
    expect(containsEligible('')).toBe(false);
  });

  it('two characters with a kana or Han one; Hangul needs three', () => {
    expect(containsEligible('カナ')).toBe(true);
    expect(containsEligible('张a')).toBe(true);
    expect(containsEligible('김철')).toBe(false);
    expect(containsEligible('김철수')).toBe(true);
  });
});

describe('findInText', () => {
  it('an empty value, or one that folds to nothing, is never found', () => {
    expect(findInText('', 'anything')).toBeNull();
    expect(findInText('   ', 'a   b')).toBeNull();
  });

  it('the first occurrence at token boundaries, skipping earlier ones inside tokens', () => {
    expect(findInText('cat', 'concatenate the cat')).toEqual([16, 19]);
    expect(findInText('cat', 'cat, cat')).toEqual([0, 3]);
    expect(found('ab', 'xab ab')).toBe('ab');
  });

  it('the whole text is found whole', () => {
    expect(findInText('hello world', 'Hello World')).toEqual([0, 11]);
  });

  it('white space inside the value or the text is ignored, and kept in the span', () => {
    expect(found('12 34', 'code 1234!')).toBe('1234');
    expect(found('1234', 'code 12 34!')).toBe('12 34');
  });

  it('a value that ends in a joiner may stand before a word character only if the text splits there', () => {
    expect(found('a.b', 'x a.b.c')).toBeNull();
    expect(found('a.b', 'x a.b. c')).toBe('a.b');
  });

  it('an e-mail address, a URL and a path stand whole in prose', () => {
    const text = 'Write to alice@example.com or see https://ex.io/a?b=1 (file /tmp/x.md).';
    expect(found('alice@example.com', text)).toBe('alice@example.com');
    expect(found('example.com', text)).toBeNull();
    expect(found('https://ex.io/a?b=1', text)).toBe('https://ex.io/a?b=1');
    expect(found('/tmp/x.md', text)).toBe('/tmp/x.md');
    expect(found('x.md', text)).toBe('x.md'); // `/` is a boundary between letters
  });

  it('digits joined by , : / make one number: no part of it is found', () => {
    expect(found('000', 'pay 1,000 now')).toBeNull();
    expect(found('30', 'at 12:30')).toBeNull();
    expect(found('4', 'take 3/4 cup')).toBeNull();
    expect(found('1,000', 'pay 1,000, now')).toBe('1,000');
  });

  it('a value with Han characters inside Latin text, and Latin inside Han text', () => {
    expect(found('ORD-17', '订单ORD-17已发货')).toBe('ORD-17');
    expect(found('ORD', '订单ORD-17已发货')).toBeNull();
    expect(found('已发货', '订单ORD-17已发货')).toBe('已发货');
  });

  it('Hangul words are found only whole', () => {
    expect(found('김철수', '담당: 김철수 님')).toBe('김철수');
    expect(found('철수님', '담당 김철수님')).toBeNull();
  });

  it('full-width text maps back to the original code units', () => {
    const text = '型号：ＡＢＣ－１２３。';
    expect(found('abc-123', text)).toBe('ＡＢＣ－１２３');
  });

  it('astral characters keep the span in UTF-16 units', () => {
    const text = '😀 hello 😀';
    expect(findInText('hello', text)).toEqual([3, 8]);
  });
});
