import { describe, expect, it } from 'vitest';
import { dateOf, dateValue, datesIn, findDateInText, timesIn } from '../../src/tools/dates.js';
import { locate, saidByUser, scalarEquals } from '../../src/tools/matching.js';

const day = (text: string) => datesIn(text).map((d) => [d.year, d.month, d.day]);
const H = 3600;

describe('dates compare as dates', () => {
  it('dateValue: ISO dates and date-times; anything else stays text', () => {
    expect(dateValue('2025-01-11')).toEqual({ year: 2025, month: 1, day: 11, time: null });
    expect(dateValue('2025-01-11 14:00')).toEqual({ year: 2025, month: 1, day: 11, time: 14 * H });
    expect(dateValue('2025-01-11T14:00:30')).toEqual({ year: 2025, month: 1, day: 11, time: 14 * H + 30 });
    expect(dateValue('2025/01/11')?.day).toBe(11);
    expect(
      [
        '2025-02-30',
        '2025-13-01',
        '2025-01-11 25:00',
        '2025-01-11T14:00:00+02:00',
        '11/01/2025',
        20250111,
      ].map(dateValue),
    ).toEqual([null, null, null, null, null, null]);
  });

  it('datesIn: the usual ways of writing a day', () => {
    expect(day('January 11th 2025')).toEqual([[2025, 1, 11]]);
    expect(day('on 11 January 2025.')).toEqual([[2025, 1, 11]]);
    expect(day('Jan 11, 2025')).toEqual([[2025, 1, 11]]);
    expect(day('Jan. 11 2025')).toEqual([[2025, 1, 11]]);
    expect(day('2025/01/11')).toEqual([[2025, 1, 11]]);
    expect(day('the 11th of January 2025')).toEqual([[2025, 1, 11]]);
    expect(day('2025年1月11日')).toEqual([[2025, 1, 11]]);
    expect(day('on October 15th')).toEqual([[null, 10, 15]]);
    expect(day('for the 14th of November')).toEqual([[null, 11, 14]]);
  });

  it('datesIn: ranges share the month and the year written once', () => {
    expect(day('from January 11th to January 15th 2025')).toEqual([
      [2025, 1, 11],
      [2025, 1, 15],
    ]);
    expect(day('from the 13th to the 17th of May 2024')).toEqual([
      [2024, 5, 13],
      [2024, 5, 17],
    ]);
    expect(day('May 1st to May 5th')).toEqual([
      [null, 5, 1],
      [null, 5, 5],
    ]);
    expect(day('January 11–15, 2025')).toEqual([
      [2025, 1, 11],
      [2025, 1, 15],
    ]);
    expect(day('December 28th to January 3rd 2025')).toEqual([
      [2024, 12, 28],
      [2025, 1, 3],
    ]);
  });

  it('datesIn: no date where none is written', () => {
    expect(day('Room 11, 2 nights, the 3rd floor, may 2 people come, March madness, 11/01/2025')).toEqual([]);
    expect(day('February 30th 2025')).toEqual([]);
  });

  it('timesIn: clock times, am/pm and ranges sharing their am/pm', () => {
    expect(timesIn('09:00 to 10:00 AM')).toEqual(expect.arrayContaining([9 * H, 10 * H]));
    expect(timesIn('from 9 to 11 pm')).toEqual([21 * H, 23 * H]);
    expect(timesIn('at 7:30 p.m.')).toEqual([19 * H + 30 * 60]);
    expect(timesIn('at 12 am')).toEqual([0]);
    expect(timesIn('5 amazing rooms, 2 people')).toEqual([]);
  });

  it('findDateInText: the day, any year for a date without one; the time only where the text states times', () => {
    const v = (s: string) => dateValue(s) as NonNullable<ReturnType<typeof dateValue>>;
    expect(findDateInText(v('2025-01-11'), 'stay from January 11th to January 15th 2025')).toEqual([10, 22]);
    expect(findDateInText(v('2024-01-11'), 'stay from January 11th to January 15th 2025')).toBeNull();
    expect(
      findDateInText(v('2023-10-15 19:00'), 'a reminder for October 15th to book a table'),
    ).not.toBeNull();
    expect(
      findDateInText(v('2024-05-01 09:00'), 'on May 1st, 2024, for example 09:00 to 10:00 AM'),
    ).not.toBeNull();
    expect(
      findDateInText(v('2024-05-01 10:00'), 'on May 1st, 2024, for example 09:00 to 10:00 AM'),
    ).not.toBeNull();
    expect(
      findDateInText(v('2024-05-01 14:00'), 'on May 1st, 2024, for example 09:00 to 10:00 AM'),
    ).toBeNull();
    expect(findDateInText(v('2024-05-15 11:00'), '{"start": "2024-05-15T10:00:00"} at 11:00')).toBeNull();
  });

  it('in equals, contains and user matching; dates never match other days', () => {
    expect(scalarEquals('2025-01-11', 'January 11th 2025')).toBe(true);
    expect(scalarEquals('2025-01-11 14:00', '2025-01-11T14:00:00')).toBe(true);
    expect(scalarEquals('2025-01-11', '2025-01-11T00:00:00')).toBe(false);
    expect(scalarEquals('2025-01-11', 'January 12th 2025')).toBe(false);
    expect(dateOf('Arrive January 11th 2025')).toBeNull();
    expect(locate('2025-01-11', { day: 'Jan 11, 2025' })).toEqual({ path: ['day'] });
    expect(locate('2025-01-11', { note: 'Check-in on 11 January 2025.' }, { contains: true })).toEqual({
      path: ['note'],
      span: [12, 27],
    });
    expect(locate('2025-01-12', { note: 'Check-in on 11 January 2025.' }, { contains: true })).toBeNull();
    const user = ['Please book it from January 11th to January 15th 2025. Thanks!'];
    expect(['2025-01-11', '2025-01-15', '2025-01-13', '2024-05-01'].map((d) => saidByUser(d, user))).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(saidByUser('2024-05-01', ['Can you add an event for May 1st to May 5th?'])).toBe(true);
    expect(saidByUser('2026-05-01 09:00', ['an event on May 1st, 2024'])).toBe(false);
  });

  it('leaves matching without dates unchanged', () => {
    expect(scalarEquals('Le Marais', 'le marais')).toBe(true);
    expect(saidByUser('11', ['January 11th 2025'])).toBe(true);
    expect(saidByUser('Room 2025', ['January 11th 2025'])).toBe(false);
  });
});
