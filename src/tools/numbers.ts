import { UNSPACED_SCRIPTS } from './text-match.js';

/**
 * Numbers compare as numbers in every match (docs/flows.md, "How values are matched"): `98.70`
 * equals `98.7`, `1,100.00` equals `1100`. A value is numeric when it is a JSON number or a string
 * written as one: an optional sign, digits (grouped by `,` in threes, or not grouped) and an optional
 * decimal part. Strings with a leading zero (`007`, ids) and more than 15 significant digits (account
 * numbers) are not numeric: they stay text, matched character by character.
 */

const NUMBER_TEXT = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$/;
/**
 * A number inside a text: not right after a digit, `.`, `,`, a sign (`ORD-17`; a sign is read with its
 * number: `-100` is -100, never 100) or a letter of a script written with spaces (`ORD17`); right after
 * a character of one written without them it is (`共100个`: text-match.ts's boundary). Not followed by
 * a digit.
 */
const NUMBER_IN_TEXT = new RegExp(
  `(?<![\\d.,+-])(?<!(?![${UNSPACED_SCRIPTS}])\\p{L})[+-]?(?:\\d{1,3}(?:,\\d{3})+|\\d+)(?:\\.\\d+)?(?!\\d|[.,]\\d)`,
  'gu',
);
const MAX_DIGITS = 15;

/** The number a scalar stands for (see the module comment), or null. */
export function numericValue(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const text = value.normalize('NFKC').trim();
  if (!NUMBER_TEXT.test(text)) return null;
  const digits = text.replace(/[^\d]/g, '');
  const integer = text.replace(/^[+-]/, '').split('.')[0] as string;
  if (integer.length > 1 && integer.startsWith('0')) return null;
  if (digits.replace(/^0+/, '').length > MAX_DIGITS) return null;
  return Number(text.replace(/,/g, ''));
}

/** True when two numbers are equal up to floating-point noise (`0.1 + 0.2` equals `0.3`). */
export function sameNumber(a: number, b: number): boolean {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

/** A number standing in a text, with its [start, end) span. */
export interface NumberInText {
  value: number;
  span: [number, number];
  text: string;
}

/** Every number written in `text` (see the module comment), in order. */
export function numbersIn(text: string): NumberInText[] {
  const out: NumberInText[] = [];
  for (const m of text.matchAll(NUMBER_IN_TEXT)) {
    const value = numericValue(m[0]);
    if (value !== null) out.push({ value, span: [m.index, m.index + m[0].length], text: m[0] });
  }
  return out;
}

/** The first place `wanted` stands in `text` as a number, or null. */
export function findNumberInText(wanted: number, text: string): [number, number] | null {
  return numbersIn(text).find((n) => sameNumber(n.value, wanted))?.span ?? null;
}
