/**
 * Finding a value inside a longer text (docs/flows.md, "How values are matched"): the `contains`
 * matching of outputs and of `params.<name>.match: contains`.
 *
 * Both sides are folded as `normalise` does for `source: user` (NFKC, lower case, white space
 * removed), but one *segment* at a time — a character with the combining marks after it — so that
 * every folded character knows the span of the original text it came from. A match is an occurrence
 * of the folded value in the folded text that starts and ends on whole segments and whose original
 * span starts and ends at token boundaries of the original text:
 *
 * - letters, digits and marks (`word` characters; Hangul counts as letters) form tokens; a boundary
 *   lies between a word character and anything else;
 * - inside a token stay `.` `-` `'` `’` `@` between two word characters (`printer.md`, `ORD-17`,
 *   `a@b.io`), and `,` `:` `/` between two digits (`1,000`, `12:30`, `3/4`); a digit right after
 *   `-` `+` `.` does not start a token (`100` is not in `-100` or `.100`);
 * - scripts written without spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer,
 *   Myanmar, Tibetan) have a boundary between any two characters: nothing tells their words apart
 *   without a dictionary, which would fail on names and ids.
 *
 * Only values of a minimum length are looked for inside texts (`containsEligible`): at least 3
 * folded characters, or 2 when one of them is of a script written without spaces, and at least one
 * letter or digit. Shorter values match only a whole leaf.
 */

/** A [start, end) range of UTF-16 code units in an original text. */
export type Span = [number, number];

/** The fewest folded characters a value needs to be looked for inside a text. */
export const MIN_CONTAINS_LENGTH = 3;
/** The same for a value holding a character of a script written without spaces (`张伟`). */
export const MIN_CONTAINS_LENGTH_UNSPACED = 2;

const SEGMENT = /\P{M}\p{M}*|\p{M}+/gsu;
const WHITE_SPACE = /\s+/gu;
/** The scripts written without spaces, as the inside of a `u` character class. */
export const UNSPACED_SCRIPTS =
  '\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}\\p{scx=Thai}\\p{scx=Lao}\\p{scx=Khmer}\\p{scx=Myanmar}\\p{scx=Tibetan}';
const UNSPACED = new RegExp(`[${UNSPACED_SCRIPTS}]`, 'u');
const WORD = /[\p{L}\p{N}\p{M}_]/u;
const DIGIT = /\p{Nd}/u;
const WORD_JOINERS = new Set(['.', '-', "'", '’', '@']);
const DIGIT_JOINERS = new Set([',', ':', '/']);
const SIGNS = new Set(['-', '+', '.']);

type Kind = 'word' | 'unspaced' | 'other';

/** The folded text and, per folded UTF-16 unit, the original segment it came from. */
interface Folded {
  text: string;
  /** Original start of the segment of each folded unit. */
  from: number[];
  /** Original end of the segment of each folded unit. */
  to: number[];
}

function foldSegment(segment: string): string {
  return segment.normalize('NFKC').toLowerCase().replace(WHITE_SPACE, '');
}

function fold(text: string): Folded {
  const out: Folded = { text: '', from: [], to: [] };
  for (const m of text.matchAll(SEGMENT)) {
    const folded = foldSegment(m[0]);
    const end = m.index + m[0].length;
    for (let i = 0; i < folded.length; i += 1) {
      out.from.push(m.index);
      out.to.push(end);
    }
    out.text += folded;
  }
  return out;
}

/** The folded form of a value (what `findInText` looks for). */
export function foldText(text: string): string {
  return fold(text).text;
}

function kindOf(ch: string | undefined): Kind {
  if (ch === undefined) return 'other';
  const c = ch.normalize('NFKC');
  if (UNSPACED.test(c)) return 'unspaced';
  return WORD.test(c) ? 'word' : 'other';
}

/** The code point ending right before `at` and the one starting at `at` (undefined at the ends). */
function before(text: string, at: number): string | undefined {
  if (at <= 0) return undefined;
  const low = text.charCodeAt(at - 1);
  const pair = low >= 0xdc00 && low <= 0xdfff && at >= 2;
  return text.slice(pair ? at - 2 : at - 1, at);
}

function after(text: string, at: number): string | undefined {
  if (at >= text.length) return undefined;
  return String.fromCodePoint(text.codePointAt(at) as number);
}

/** The base character of the segment ending at `at` (skipping combining marks). */
function baseBefore(text: string, at: number): string | undefined {
  let p = at;
  for (;;) {
    const ch = before(text, p);
    if (ch === undefined || !/\p{M}/u.test(ch)) return ch;
    p -= ch.length;
  }
}

/** True when a token boundary lies at `at` in the original text (see the module comment). */
export function isBoundary(text: string, at: number): boolean {
  const a = baseBefore(text, at);
  const b = after(text, at);
  if (a === undefined || b === undefined) return true;
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka === 'word' && kb === 'word') return false;
  if (kb === 'word' && DIGIT.test(b) && SIGNS.has(a)) return false;
  // `x|.y`: the joiner after the cut is followed by a word character and preceded by one.
  if (ka === 'word' && joins(a, b, after(text, at + b.length))) return false;
  // `x.|y`: the joiner before the cut.
  if (kb === 'word' && joins(baseBefore(text, at - a.length), a, b)) return false;
  return true;
}

/** True when `joiner` between `left` and `right` keeps them in one token. */
function joins(left: string | undefined, joiner: string, right: string | undefined): boolean {
  if (kindOf(left) !== 'word' || kindOf(right) !== 'word') return false;
  if (WORD_JOINERS.has(joiner)) return true;
  return DIGIT_JOINERS.has(joiner) && DIGIT.test(left as string) && DIGIT.test(right as string);
}

/**
 * True when `value` is long enough to be looked for inside a text (see the module comment). Shorter
 * values, and values with no letter or digit, match only a whole leaf.
 */
export function containsEligible(value: string): boolean {
  const folded = [...foldText(value)];
  if (!folded.some((ch) => kindOf(ch) !== 'other')) return false;
  const min = folded.some((ch) => kindOf(ch) === 'unspaced')
    ? MIN_CONTAINS_LENGTH_UNSPACED
    : MIN_CONTAINS_LENGTH;
  return folded.length >= min;
}

/**
 * The span of `text` where `value` stands at token boundaries, after folding (the first such
 * occurrence), or null. Does not check `containsEligible`.
 */
export function findInText(value: string, text: string): Span | null {
  const needle = foldText(value);
  if (needle === '') return null;
  const hay = fold(text);
  for (let at = hay.text.indexOf(needle); at >= 0; at = hay.text.indexOf(needle, at + 1)) {
    const last = at + needle.length - 1;
    const start = hay.from[at] as number;
    const end = hay.to[last] as number;
    // The occurrence must cover whole segments: not start inside a folded `㎏`, nor end inside one.
    if (at > 0 && hay.from[at - 1] === start) continue;
    if (last + 1 < hay.text.length && hay.to[last + 1] === end) continue;
    if (isBoundary(text, start) && isBoundary(text, end)) return [start, end];
  }
  return null;
}
