/**
 * Finds a value in a text to highlight it: in pretty JSON (an evidence payload) or in plain text
 * (the user's words). Pure, so the approval card and the evidence view mark the same places.
 */

/** A piece of text, marked when it is (part of) the value. */
export interface Segment {
  text: string;
  mark: boolean;
}

/** The scalar leaves of a value (the value itself when it is a scalar). */
function leaves(value: unknown): (string | number | boolean)[] {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return [value];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(leaves);
  return [];
}

/** Every [start, end) where `needle` occurs in `text`; `whole` keeps a number from matching inside a longer one. */
function occurrences(text: string, needle: string, whole: boolean, fold: boolean): [number, number][] {
  const found: [number, number][] = [];
  if (needle === '') return found;
  const hay = fold ? text.toLowerCase() : text;
  const want = fold ? needle.toLowerCase() : needle;
  for (let at = hay.indexOf(want); at >= 0; at = hay.indexOf(want, at + want.length)) {
    const before = text[at - 1] ?? '';
    const after = text[at + want.length] ?? '';
    if (whole && (/[\w.]/.test(before) || /[\w.]/.test(after))) continue;
    found.push([at, at + want.length]);
  }
  return found;
}

/** Where the value's leaves occur in pretty JSON: strings as JSON strings (else inside one), numbers and booleans as tokens. */
function jsonRanges(text: string, value: unknown): [number, number][] {
  return leaves(value).flatMap((leaf) => {
    if (typeof leaf !== 'string') return occurrences(text, String(leaf), true, false);
    const quoted = JSON.stringify(leaf);
    const exact = occurrences(text, quoted, false, false);
    return exact.length > 0 ? exact : occurrences(text, quoted.slice(1, -1), false, false);
  });
}

/** Where the value's leaves occur in plain text (case-insensitive). */
function textRanges(text: string, value: unknown): [number, number][] {
  return leaves(value).flatMap((leaf) => occurrences(text, String(leaf), typeof leaf === 'number', true));
}

/**
 * Splits `text` into segments with every occurrence of `value` marked: `json` for pretty JSON text,
 * `text` for plain words. No occurrence gives one unmarked segment.
 */
export function markValue(text: string, value: unknown, mode: 'json' | 'text'): Segment[] {
  const ranges = (mode === 'json' ? jsonRanges(text, value) : textRanges(text, value)).sort(
    (a, b) => a[0] - b[0],
  );
  const segments: Segment[] = [];
  let at = 0;
  for (const [start, end] of ranges) {
    if (start < at) continue; // overlaps an earlier mark
    if (start > at) segments.push({ text: text.slice(at, start), mark: false });
    segments.push({ text: text.slice(start, end), mark: true });
    at = end;
  }
  if (at < text.length || segments.length === 0) segments.push({ text: text.slice(at), mark: false });
  return segments;
}

/** A payload as the console shows it: text as it is, anything else as pretty JSON. */
export function payloadText(payload: unknown): string {
  return typeof payload === 'string' ? payload : (JSON.stringify(payload ?? null, null, 2) ?? 'null');
}
