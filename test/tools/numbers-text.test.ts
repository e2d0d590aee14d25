import { describe, expect, it } from 'vitest';
import { findNumberInText, numbersIn, numericValue, sameNumber } from '../../src/tools/numbers.js';

// Direct tests of src/tools/numbers.ts beyond test/tools/numbers.test.ts: the edges of what is a
// number, the tolerance of sameNumber, and the numbers read inside a text with their spans.

describe('numericValue', () => {
  it('a JSON number is itself; a non-finite one is no number', () => {
    expect(numericValue(0)).toBe(0);
    expect(numericValue(-0.25)).toBe(-0.25);
    expect(numericValue(1e21)).toBe(1e21);
    expect(numericValue(Number.NaN)).toBeNull();
    expect(numericValue(Number.POSITIVE_INFINITY)).toBeNull();
    expect(numericValue(Number.NEGATIVE_INFINITY)).toBeNull();
  });

  it('only numbers and strings: booleans, null, objects are not numeric', () => {
    expect([true, false, null, undefined, [], {}, [5]].map(numericValue)).toEqual(Array(7).fill(null));
  });

  it('signs, decimals, surrounding white space and full-width digits', () => {
    expect(numericValue('+5')).toBe(5);
    expect(numericValue('-0.5')).toBe(-0.5);
    expect(numericValue('  42 ')).toBe(42);
    expect(numericValue('１２３')).toBe(123);
    expect(numericValue('０.５')).toBe(0.5);
    expect(numericValue('0')).toBe(0);
    expect(numericValue('-0')).toBe(-0);
    expect(numericValue('12.50')).toBe(12.5);
  });

  it('grouping by commas in threes only, the first group of one to three digits', () => {
    expect(numericValue('1,000')).toBe(1000);
    expect(numericValue('12,345,678.9')).toBe(12345678.9);
    expect(numericValue('-1,000.5')).toBe(-1000.5);
    expect(numericValue('1000,000')).toBeNull();
    expect(numericValue('1,0000')).toBeNull();
    expect(numericValue(',100')).toBeNull();
    expect(numericValue('1,000,00')).toBeNull();
  });

  it('what is not written as a number stays text', () => {
    const texts = [
      '.5',
      '5.',
      '1e3',
      '0x10',
      '1 000',
      '5%',
      '$5',
      '--5',
      '+-5',
      '1.2.3',
      'NaN',
      'Infinity',
      ' ',
    ];
    expect(texts.map(numericValue)).toEqual(Array(texts.length).fill(null));
  });

  it('a leading zero makes an id, except the zero of a decimal or a lone zero', () => {
    expect(numericValue('007')).toBeNull();
    expect(numericValue('-007')).toBeNull();
    expect(numericValue('00')).toBeNull();
    expect(numericValue('0.07')).toBe(0.07);
    expect(numericValue('-0.07')).toBe(-0.07);
    expect(numericValue('0,123')).toBeNull();
  });

  it('at most 15 significant digits; leading zeros of a decimal do not count', () => {
    expect(numericValue('123456789012345')).toBe(123456789012345);
    expect(numericValue('1234567890123456')).toBeNull();
    expect(numericValue('1234567890.12345')).toBe(1234567890.12345);
    expect(numericValue('1234567890.123456')).toBeNull();
    expect(numericValue('123,456,789,012,345')).toBe(123456789012345);
    expect(numericValue('0.000000000000001')).toBe(1e-15);
  });
});

describe('sameNumber', () => {
  it('equal numbers, and numbers apart by floating-point noise', () => {
    expect(sameNumber(1, 1)).toBe(true);
    expect(sameNumber(0.1 + 0.2, 0.3)).toBe(true);
    expect(sameNumber(0, -0)).toBe(true);
  });

  it('an absolute tolerance of 1e-9 below one, relative above', () => {
    expect(sameNumber(0, 1e-9)).toBe(true);
    expect(sameNumber(0, 2e-9)).toBe(false);
    expect(sameNumber(1e12, 1e12 + 1)).toBe(true);
    expect(sameNumber(1e12, 1e12 + 10000)).toBe(false);
    expect(sameNumber(100, 100.01)).toBe(false);
    expect(sameNumber(-5, 5)).toBe(false);
  });
});

describe('numbersIn', () => {
  it('lists every number with its value, span and text as written, in order', () => {
    const text = 'Pay 1,250.00 EUR, then -5 and +3.5 before 2025.';
    expect(numbersIn(text)).toEqual([
      { value: 1250, span: [4, 12], text: '1,250.00' },
      { value: -5, span: [23, 25], text: '-5' },
      { value: 3.5, span: [30, 34], text: '+3.5' },
      { value: 2025, span: [42, 46], text: '2025' },
    ]);
  });

  it('no number glued after a letter, a dot or a comma', () => {
    expect(numbersIn('abc123')).toEqual([]);
    expect(numbersIn('v2')).toEqual([]);
    expect(numbersIn('.5')).toEqual([]);
  });

  it('no number followed by a digit or by a decimal point and a digit that do not belong to it', () => {
    expect(numbersIn('1,00')).toEqual([]);
    expect(numbersIn('1.2.3')).toEqual([]);
  });

  it('a sentence-ending point or comma is not part of the number', () => {
    expect(numbersIn('it costs 10.')).toEqual([{ value: 10, span: [9, 11], text: '10' }]);
    expect(numbersIn('10, 20')).toEqual([
      { value: 10, span: [0, 2], text: '10' },
      { value: 20, span: [4, 6], text: '20' },
    ]);
  });

  it('leaves out what numericValue refuses (ids with a leading zero, long account numbers)', () => {
    expect(numbersIn('agent 007 and 5')).toEqual([{ value: 5, span: [14, 15], text: '5' }]);
    expect(numbersIn('IBAN 1234567890123456789')).toEqual([]);
  });

  it('a number after Han punctuation or a space, or before a Han character', () => {
    expect(numbersIn('共 100 个')).toEqual([{ value: 100, span: [2, 5], text: '100' }]);
    expect(numbersIn('价格：98.70元')).toEqual([{ value: 98.7, span: [3, 8], text: '98.70' }]);
  });

  it('a number right after a character of a script written without spaces is read (共100个)', () => {
    expect(numbersIn('共100个')).toEqual([{ value: 100, span: [1, 4], text: '100' }]);
    expect(numbersIn('价格98.70元')).toEqual([{ value: 98.7, span: [2, 7], text: '98.70' }]);
    expect(numbersIn('ORD17')).toEqual([]);
    expect(numbersIn('ORD-17 and -5')).toEqual([{ value: -5, span: [11, 13], text: '-5' }]);
  });

  it('is empty for a text without digits', () => {
    expect(numbersIn('')).toEqual([]);
    expect(numbersIn('no numbers, here.')).toEqual([]);
  });
});

describe('findNumberInText', () => {
  it('the span of the first number equal to the wanted one', () => {
    expect(findNumberInText(98.7, 'was 98.7, now 98.70')).toEqual([4, 8]);
    expect(findNumberInText(1100, 'send 1,100.00 now')).toEqual([5, 13]);
    expect(findNumberInText(-5, 'moved -5 units')).toEqual([6, 8]);
  });

  it('null where the number stands only inside another', () => {
    expect(findNumberInText(100, 'pay 1000')).toBeNull();
    expect(findNumberInText(100, 'pay -100')).toBeNull();
    expect(findNumberInText(5, 'rated 5.5')).toBeNull();
    expect(findNumberInText(7, 'agent 007')).toBeNull();
    expect(findNumberInText(1, '')).toBeNull();
  });
});
