/**
 * Dates compare as dates in every match (docs/flows.md, "How values are matched"), as numbers compare
 * as numbers: a call value written as an ISO date or date-time (`2025-01-11`, `2025-01-11 14:00`,
 * `2025-01-11T14:00:00`, `2025/01/11`) equals the same day written in words ("January 11th 2025",
 * "11 January 2025", "Jan 11, 2025", "11th of January 2025", "2025年1月11日").
 *
 * - Ranges share their month and year: in "January 11th to January 15th 2025", "from the 13th to the
 *   17th of May 2024" and "January 11–15, 2025" both days are read with the year (and month) written
 *   once, after the last; a range across a new year ("December 28th to January 3rd 2025") puts the
 *   first day in the year before.
 * - A date written without a year ("May 1st") pins the month and the day, not the year: it matches that
 *   day in any year. People rarely say the year, and the run's clock is not the user's calendar.
 * - The time of day of a date-time value is held only where the text states times: there it must be
 *   one of them (`09:00`, `9 am`, "09:00 to 10:00 AM" gives 09:00 and 10:00; a date-time written in the
 *   text holds its own time). A text that states no time leaves the time free.
 * - Numeric day-month orders (`11/01/2025`) are ambiguous and are not read as dates; time zones are not
 *   read (a value with an offset stays text).
 */

/** A calendar day, with the time of day (seconds since midnight) when one was written. */
export interface DateValue {
  /** null: written without a year (matches any year). */
  year: number | null;
  month: number;
  day: number;
  time: number | null;
}

/** A date standing in a text, with its [start, end) span. */
export interface DateInText extends DateValue {
  span: [number, number];
}

const YEAR = '((?:19|20)\\d{2})(?![\\d:])';
const ORD = '(?:st|nd|rd|th)';
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?(?!\\p{L})';
const DAY = `(\\d{1,2})${ORD}?(?![\\p{L}\\d])`;
const TIME = '(?:(?:T|\\s+)(\\d{1,2}):(\\d{2})(?::(\\d{2})(?:\\.\\d+)?)?)?';
const ISO_VALUE = new RegExp(`^(\\d{4})[-/](\\d{1,2})[-/](\\d{1,2})${TIME}$`, 'u');
const ISO_IN_TEXT = new RegExp(`(?<![\\p{L}\\d])(\\d{4})[-/](\\d{1,2})[-/](\\d{1,2})${TIME}(?![\\d])`, 'gu');
const MONTH_FIRST = new RegExp(
  `(?<![\\p{L}\\d])${MONTH}\\s*(?:the\\s+)?${DAY}(?:\\s*,\\s*|\\s+)?(?:${YEAR})?`,
  'giu',
);
const DAY_FIRST = new RegExp(
  `(?<![\\p{L}\\d])(?:the\\s+)?${DAY}\\s*(?:of\\s+)?${MONTH}(?:\\s*,?\\s*${YEAR})?`,
  'giu',
);
const DAY_ONLY = new RegExp(`(?<![\\p{L}\\d])(?:the\\s+)?(\\d{1,2})${ORD}(?![\\p{L}\\d])`, 'giu');
const CJK = /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]/gu;
/** What joins the two days of a range, or two dates of a list: they share a month and year written once. */
const RANGE_GAP = /^\s*(?:-|–|—|~|至|到|to|till|until|through|thru|and)\s*$/iu;
/** A second day after a month-first date: "January 11–15, 2025", "May 1 to 5". */
const RANGE_TAIL = new RegExp(
  `^\\s*(?:-|–|—|to|till|until|through|thru)\\s*(?:the\\s+)?(\\d{1,2})${ORD}?(?![\\p{L}\\d:])(?:\\s*,?\\s*${YEAR})?`,
  'iu',
);
const TIME_RANGE =
  /(?<![\d:.])(\d{1,2})(?::(\d{2}))?\s*(?:-|–|to|until|till)\s*(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?/giu;
const TIME_CLOCK = /(?<![\d:.])(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([ap])\.?m\b\.?)?/giu;
const TIME_BARE = /(?<![\d:.,])(\d{1,2})\s*([ap])\.?m\b\.?/giu;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The date an ISO date or date-time string stands for (see the module comment), or null. */
export function dateValue(value: unknown): DateValue | null {
  if (typeof value !== 'string') return null;
  const m = ISO_VALUE.exec(value.normalize('NFKC').trim());
  return m ? isoDate(m) : null;
}

/**
 * The date a whole text stands for: an ISO value (`dateValue`), or a text that is one date in words
 * and nothing else ("January 11th 2025", "the 1st of May"); null otherwise.
 */
export function dateOf(value: unknown): DateValue | null {
  const iso = dateValue(value);
  if (iso !== null || typeof value !== 'string' || !/\d/.test(value)) return iso;
  const text = value
    .normalize('NFKC')
    .trim()
    .replace(/[.,;!?]+$/u, '');
  const found = datesIn(text);
  const only = found[0];
  return found.length === 1 && only && only.span[0] === 0 && only.span[1] === text.length ? only : null;
}

/** True when two dates are the same day (a missing year matches any) and the same time of day (or neither has one). */
export function sameDate(a: DateValue, b: DateValue): boolean {
  return sameDay(a, b) && a.time === b.time;
}

function sameDay(a: DateValue, b: DateValue): boolean {
  return (a.year === null || b.year === null || a.year === b.year) && a.month === b.month && a.day === b.day;
}

/** Every date written in `text` (see the module comment), in order. */
export function datesIn(text: string): DateInText[] {
  const pieces: (Omit<DateInText, 'month'> & { month: number | null })[] = [];
  const add = (m: RegExpMatchArray, d: Omit<DateValue, 'month'> & { month: number | null }): void => {
    const at = m.index ?? 0;
    pieces.push({ ...d, span: [at, at + m[0].trimEnd().replace(/[\s,]+$/u, '').length] });
  };
  for (const m of text.matchAll(ISO_IN_TEXT)) {
    const d = isoDate(m);
    if (d) add(m, d);
  }
  for (const m of text.matchAll(MONTH_FIRST)) {
    // "may 2 people": a lower-case "may" with neither an ordinal nor a year is the verb.
    if (m[3] === undefined && m[0].startsWith('may') && !/\d(?:st|nd|rd|th)/iu.test(m[0])) continue;
    add(m, { year: num(m[3]), month: monthOf(m[1]), day: Number(m[2]), time: null });
  }
  for (const m of text.matchAll(DAY_FIRST))
    add(m, { year: num(m[3]), month: monthOf(m[2]), day: Number(m[1]), time: null });
  for (const m of text.matchAll(DAY_ONLY)) add(m, { year: null, month: null, day: Number(m[1]), time: null });
  for (const m of text.matchAll(CJK))
    add(m, { year: num(m[1]), month: Number(m[2]), day: Number(m[3]), time: null });
  pieces.sort((a, b) => a.span[0] - b.span[0] || b.span[1] - a.span[1]);
  const kept: typeof pieces = [];
  for (const p of pieces) {
    const last = kept[kept.length - 1];
    if (!last || p.span[0] >= last.span[1]) kept.push(p);
  }
  for (let i = 0; i < kept.length; i++) {
    const p = kept[i] as (typeof kept)[number];
    const next = kept[i + 1];
    const tail = p.month === null ? null : RANGE_TAIL.exec(text.slice(p.span[1]));
    if (!tail || (next && next.span[0] < p.span[1] + tail[0].length)) continue;
    const start = p.span[1] + tail[0].search(/\d/u);
    const year = num(tail[2]);
    p.year ??= year;
    kept.splice(i + 1, 0, {
      year,
      month: p.month,
      day: Number(tail[1]),
      time: null,
      span: [start, p.span[1] + tail[0].length],
    });
  }
  for (let i = kept.length - 2; i >= 0; i--) {
    const [p, q] = [kept[i], kept[i + 1]] as [(typeof kept)[number], (typeof kept)[number]];
    if (q.month === null || !RANGE_GAP.test(text.slice(p.span[1], q.span[0]))) continue;
    p.month ??= q.month;
    if (p.year === null && q.year !== null) p.year = p.month > q.month ? q.year - 1 : q.year;
  }
  return kept.filter((p): p is DateInText => p.month !== null && validDay(p.year ?? 2000, p.month, p.day));
}

/** Every time of day written in `text`, in seconds since midnight: `14:00`, `9 am`, `9:30 p.m.`, "9 to 11 pm". */
export function timesIn(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(TIME_RANGE)) {
    const pm = (m[5] as string).toLowerCase() === 'p';
    const end = (Number(m[3]) % 12) + (pm ? 12 : 0);
    const first = Number(m[1]) % 12;
    out.push(hm(pm && first + 12 <= end ? first + 12 : first, m[2]), hm(end, m[4]));
  }
  for (const m of text.matchAll(TIME_CLOCK)) out.push(hm(hour(Number(m[1]), m[4]), m[2], m[3]));
  for (const m of text.matchAll(TIME_BARE)) out.push(hm(hour(Number(m[1]), m[2]), undefined));
  return [...new Set(out)].filter((t) => t < 24 * 3600);
}

/**
 * Where `wanted` stands in `text` as a date, or null: a date of the same day (a text date without a
 * year matches any year); for a value with a time of day, that time must be the text date's own, or one
 * of the times the text states, when it states any.
 */
export function findDateInText(wanted: DateValue, text: string): [number, number] | null {
  const times = wanted.time === null ? [] : timesIn(text);
  const hit = datesIn(text).find((d) => {
    if (!sameDay(wanted, d)) return false;
    if (wanted.time === null) return true;
    if (d.time !== null) return d.time === wanted.time;
    return times.length === 0 || times.includes(wanted.time);
  });
  return hit ? hit.span : null;
}

function isoDate(m: RegExpMatchArray): DateValue | null {
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDay(year, month, day)) return null;
  if (m[4] === undefined) return { year, month, day, time: null };
  const time = hm(Number(m[4]), m[5], m[6]);
  return Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6] ?? 0) < 60 ? { year, month, day, time } : null;
}

function validDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function monthOf(name: string | undefined): number {
  return MONTHS.indexOf((name ?? '').slice(0, 3).toLowerCase()) + 1;
}

function num(text: string | undefined): number | null {
  return text === undefined ? null : Number(text);
}

function hour(h: number, meridiem: string | undefined): number {
  if (meridiem === undefined) return h;
  return (h % 12) + (meridiem.toLowerCase() === 'p' ? 12 : 0);
}

function hm(h: number, minutes: string | undefined, seconds?: string): number {
  return h * 3600 + Number(minutes ?? 0) * 60 + Number(seconds ?? 0);
}
