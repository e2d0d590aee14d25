import { describe, expect, it } from 'vitest';
import {
  dateOf,
  dateValue,
  datesIn,
  findDateInText,
  sameDate,
  timesIn,
  type DateValue,
} from '../../src/tools/dates.js';

// Direct tests of src/tools/dates.ts beyond test/tools/dates.test.ts: the bounds of ISO values, the
// spans and forms of dates in texts, times of day, and the rules of sameDate and findDateInText.

const H = 3600;
const M = 60;
const d = (year: number | null, month: number, day: number, time: number | null = null): DateValue => ({
  year,
  month,
  day,
  time,
});
const days = (text: string) => datesIn(text).map((x) => [x.year, x.month, x.day]);
const spans = (text: string) => datesIn(text).map((x) => text.slice(...x.span));

describe('dateValue', () => {
  it('reads one-digit months and days, seconds and a fraction of a second', () => {
    expect(dateValue('2025-1-5')).toEqual(d(2025, 1, 5));
    expect(dateValue('2025-01-11T09:05')).toEqual(d(2025, 1, 11, 9 * H + 5 * M));
    expect(dateValue('2025-01-11 23:59:59')).toEqual(d(2025, 1, 11, 23 * H + 59 * M + 59));
    expect(dateValue('2025-01-11T14:00:00.123')).toEqual(d(2025, 1, 11, 14 * H));
    expect(dateValue('2025-01-11T00:00')).toEqual(d(2025, 1, 11, 0));
  });

  it('trims, and folds full-width digits', () => {
    expect(dateValue('  2025-01-11 ')).toEqual(d(2025, 1, 11));
    expect(dateValue('２０２５-０１-１１')).toEqual(d(2025, 1, 11));
  });

  it('checks the calendar: month lengths and leap years', () => {
    expect(dateValue('2024-02-29')).toEqual(d(2024, 2, 29));
    expect(dateValue('2025-02-29')).toBeNull();
    expect(dateValue('1900-02-29')).toBeNull();
    expect(dateValue('2000-02-29')).toEqual(d(2000, 2, 29));
    expect(dateValue('2025-04-31')).toBeNull();
    expect(dateValue('2025-12-31')).toEqual(d(2025, 12, 31));
    expect(dateValue('2025-00-10')).toBeNull();
    expect(dateValue('2025-01-00')).toBeNull();
  });

  it('refuses impossible times and other shapes', () => {
    expect(dateValue('2025-01-11 24:00')).toBeNull();
    expect(dateValue('2025-01-11 12:60')).toBeNull();
    expect(dateValue('2025-01-11 12:00:60')).toBeNull();
    expect(dateValue('2025-01-11 12')).toBeNull();
    expect(dateValue('2025-01-11Z')).toBeNull();
    expect(dateValue('25-01-11')).toBeNull();
    expect(dateValue('2025-001-11')).toBeNull();
    expect(dateValue('January 11th 2025')).toBeNull();
    expect([null, undefined, 5, {}, ['2025-01-11']].map(dateValue)).toEqual(Array(5).fill(null));
  });
});

describe('dateOf', () => {
  it('an ISO value, or a text that is exactly one date in words', () => {
    expect(dateOf('2025-01-11 10:00')).toEqual(d(2025, 1, 11, 10 * H));
    expect(dateOf('the 1st of May')).toMatchObject(d(null, 5, 1));
    expect(dateOf('January 11th 2025')).toMatchObject(d(2025, 1, 11));
    expect(dateOf('2025年1月11日')).toMatchObject(d(2025, 1, 11));
  });

  it('sentence punctuation at the end and surrounding white space are allowed', () => {
    expect(dateOf('  January 11th 2025.  ')).toMatchObject(d(2025, 1, 11));
    expect(dateOf('Jan 11, 2025!?')).toMatchObject(d(2025, 1, 11));
  });

  it('null for two dates, a date among other words, words without digits and non-strings', () => {
    expect(dateOf('January 11th to January 15th 2025')).toBeNull();
    expect(dateOf('on January 11th 2025')).toBeNull();
    expect(dateOf('January')).toBeNull();
    expect(dateOf('11th')).toBeNull(); // a day with no month is no date
    expect(dateOf(20250111)).toBeNull();
    expect(dateOf(null)).toBeNull();
  });
});

describe('sameDate', () => {
  it('a missing year on either side matches any year', () => {
    expect(sameDate(d(null, 5, 1), d(2024, 5, 1))).toBe(true);
    expect(sameDate(d(2024, 5, 1), d(null, 5, 1))).toBe(true);
    expect(sameDate(d(null, 5, 1), d(null, 5, 1))).toBe(true);
    expect(sameDate(d(2024, 5, 1), d(2025, 5, 1))).toBe(false);
  });

  it('month and day must match; the time too, null only with null', () => {
    expect(sameDate(d(2024, 5, 1), d(2024, 5, 2))).toBe(false);
    expect(sameDate(d(2024, 5, 1), d(2024, 6, 1))).toBe(false);
    expect(sameDate(d(2024, 5, 1, 0), d(2024, 5, 1))).toBe(false);
    expect(sameDate(d(2024, 5, 1, 9 * H), d(2024, 5, 1, 9 * H))).toBe(true);
    expect(sameDate(d(2024, 5, 1, 9 * H), d(2024, 5, 1, 10 * H))).toBe(false);
  });
});

describe('datesIn: forms and spans', () => {
  it('spans cover the date without trailing commas or white space', () => {
    expect(spans('On Jan 11, 2025, we met.')).toEqual(['Jan 11, 2025']);
    expect(spans('on March 3rd, then')).toEqual(['March 3rd']);
    expect(spans('from 2025-01-11T09:00 on')).toEqual(['2025-01-11T09:00']);
  });

  it('full and short month names, with or without a dot, in any case', () => {
    expect(days('Sept 3 2024')).toEqual([[2024, 9, 3]]);
    expect(days('sep. 3rd')).toEqual([[null, 9, 3]]);
    expect(days('DECEMBER 25TH 2025')).toEqual([[2025, 12, 25]]);
    expect(days('3 Feb 2025')).toEqual([[2025, 2, 3]]);
    expect(days('June 1 and July 2')).toEqual([
      [null, 6, 1],
      [null, 7, 2],
    ]);
  });

  it('a month name glued to letters is no month; a day glued to letters is no day', () => {
    expect(days('Marching 3rd band')).toEqual([]);
    expect(days('Jan 11x')).toEqual([]);
    expect(days('Mayday 5')).toEqual([]);
  });

  it('ISO dates in a text carry their time; one glued to letters or digits is not read', () => {
    expect(datesIn('start 2025-01-11 14:30 sharp')).toEqual([
      { ...d(2025, 1, 11, 14 * H + 30 * M), span: [6, 22] },
    ]);
    expect(days('id2025-01-11')).toEqual([]);
    expect(days('2025-01-111')).toEqual([]);
    expect(days('2025-02-30 and 2025-02-28')).toEqual([[2025, 2, 28]]);
  });

  it('Chinese dates, with 日 or 号, with or without the year', () => {
    expect(days('2025年1月11日')).toEqual([[2025, 1, 11]]);
    expect(days('1月11号出发')).toEqual([[null, 1, 11]]);
    expect(days('2025 年 12 月 1 日')).toEqual([[2025, 12, 1]]);
    expect(days('13月1日')).toEqual([]);
  });

  it('"may" is a month with an ordinal or a year, the verb otherwise (lower case)', () => {
    expect(days('may 2 people come')).toEqual([]);
    expect(days('may 2nd')).toEqual([[null, 5, 2]]);
    expect(days('may 2 2025')).toEqual([[2025, 5, 2]]);
    expect(days('May 2')).toEqual([[null, 5, 2]]);
  });

  it('a lone ordinal is a day only in a range with a month written after it', () => {
    expect(days('the 3rd floor')).toEqual([]);
    expect(days('the 3rd to the 5th of June')).toEqual([
      [null, 6, 3],
      [null, 6, 5],
    ]);
    expect(days('the 3rd, the 5th of June')).toEqual([[null, 6, 5]]);
  });

  it('a list joined by `and` shares the month and the year written once', () => {
    expect(days('the 3rd and the 5th of June 2026')).toEqual([
      [2026, 6, 3],
      [2026, 6, 5],
    ]);
    expect(days('the 3rd or the 5th of June')).toEqual([[null, 6, 5]]);
  });

  it('a range into a new year puts the first day in the year before', () => {
    expect(days('from December 30th to January 2nd 2026')).toEqual([
      [2025, 12, 30],
      [2026, 1, 2],
    ]);
    expect(days('from March 30th to April 2nd 2026')).toEqual([
      [2026, 3, 30],
      [2026, 4, 2],
    ]);
  });

  it('a range tail after a month-first date: "May 1 to 5", "Jan 30 - 2"', () => {
    const text = 'May 1 to 5';
    expect(datesIn(text).map((x) => [x.month, x.day, text.slice(...x.span)])).toEqual([
      [5, 1, 'May 1'],
      [5, 5, '5'],
    ]);
    expect(days('January 11 - 15, 2025')).toEqual([
      [2025, 1, 11],
      [2025, 1, 15],
    ]);
  });

  it('a day the month does not have is dropped', () => {
    expect(days('February 29th 2024')).toEqual([[2024, 2, 29]]);
    expect(days('February 29th 2025')).toEqual([]);
    expect(days('April 31')).toEqual([]);
    expect(days('February 29th')).toEqual([[null, 2, 29]]); // any year: a leap year has it
  });
});

describe('timesIn', () => {
  it('clock times with seconds; noon and midnight with am/pm', () => {
    expect(timesIn('at 14:05:30')).toEqual([14 * H + 5 * M + 30]);
    expect(timesIn('at 12 pm')).toEqual([12 * H]);
    expect(timesIn('at 12:30 am')).toEqual([30 * M]);
    expect(timesIn('at 9 A.M.')).toEqual([9 * H]);
    expect(timesIn('7pm')).toEqual([19 * H]);
  });

  it('a range shares its am/pm; the first hour stays in the morning when it would pass the end', () => {
    expect(timesIn('9-11 am')).toEqual([9 * H, 11 * H]);
    expect(timesIn('10 to 2 pm')).toEqual([10 * H, 14 * H]);
    expect(timesIn('1:30 - 3:45 pm')).toEqual(expect.arrayContaining([13 * H + 30 * M, 15 * H + 45 * M]));
  });

  it('each time once; hours past the day are dropped; numbers glued to digits are no time', () => {
    expect(timesIn('10:00 and again 10:00')).toEqual([10 * H]);
    expect(timesIn('at 25:00')).toEqual([]);
    expect(timesIn('version 1.10:00')).toEqual([]);
    expect(timesIn('5 apples')).toEqual([]);
    expect(timesIn('')).toEqual([]);
  });
});

describe('findDateInText', () => {
  it('a value without a time matches the day whatever times the text states', () => {
    expect(findDateInText(d(2025, 1, 2), 'a reminder on January 2nd 2025 at 9 am')).toEqual([14, 30]);
  });

  it('a value with a time matches a text without times at any time of the day', () => {
    const text = 'a reminder on January 2nd 2025';
    expect(findDateInText(d(2025, 1, 2, 0), text)).toEqual([14, 30]);
    expect(findDateInText(d(2025, 1, 2, 23 * H + 59 * M), text)).toEqual([14, 30]);
  });

  it("a date-time written in the text holds its own time, whatever the text's other times", () => {
    const text = 'slot 2025-01-02T10:00, also 11:00';
    expect(findDateInText(d(2025, 1, 2, 10 * H), text)).toEqual([5, 21]);
    expect(findDateInText(d(2025, 1, 2, 11 * H), text)).toBeNull();
  });

  it('the first date of the same day; a text date without year matches any year', () => {
    expect(findDateInText(d(2030, 3, 4), 'March 4 2029 or March 4th')).toEqual([16, 25]);
    expect(findDateInText(d(2030, 3, 5), 'March 4 2029 or March 4th')).toBeNull();
    expect(findDateInText(d(2025, 1, 1), '')).toBeNull();
  });
});
