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

/** Where a value was found in an evidence payload, as the runtime recorded it (docs/flows.md, matching). */
export interface PayloadMark {
  /** The leaf (or sub-tree) in the payload: object keys and array indexes; [] is the payload itself. */
  path: (string | number)[];
  /** A match inside a text: [start, end) in the string at `path`, in UTF-16 code units. */
  span?: [number, number];
}

const samePath = (a: readonly (string | number)[], b: readonly (string | number)[]): boolean =>
  a.length === b.length && a.every((step, i) => String(step) === String(b[i]));

/** A string's JSON escaping without its quotes. */
const escaped = (text: string): string => JSON.stringify(text).slice(1, -1);

/**
 * The payload as `payloadText` shows it (pretty JSON, or a text as it is), split into segments with
 * each recorded mark highlighted: the span inside a string leaf (its JSON-escaped characters), or the
 * whole leaf or sub-tree. Marks that name no place in the payload mark nothing.
 */
export function markPayload(payload: unknown, marks: readonly PayloadMark[]): Segment[] {
  const out: Segment[] = [];
  const emit = (text: string, mark: boolean): void => {
    if (text === '') return;
    const last = out[out.length - 1];
    if (last && last.mark === mark) last.text += text;
    else out.push({ text, mark });
  };
  const markAt = (path: (string | number)[]) => marks.filter((m) => samePath(m.path, path));
  if (typeof payload === 'string') {
    emitString(payload, markAt([]), emit, false);
    return out.length > 0 ? out : [{ text: '', mark: false }];
  }
  const walk = (value: unknown, path: (string | number)[], indent: string, marked: boolean): void => {
    const here = markAt(path);
    const whole = marked || here.some((m) => m.span === undefined);
    if (typeof value === 'string') return emitString(value, whole ? [] : here, emit, true, whole);
    if (value === null || typeof value !== 'object') return emit(JSON.stringify(value) ?? 'null', whole);
    const inner = `${indent}  `;
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((v, i) => [i, v])
      : Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return emit(`${open}${close}`, whole);
    emit(`${open}\n`, whole);
    entries.forEach(([key, child], i) => {
      emit(inner, whole);
      if (typeof key === 'string') emit(`${JSON.stringify(key)}: `, whole);
      walk(child, [...path, key], inner, whole);
      emit(i < entries.length - 1 ? ',\n' : '\n', whole);
    });
    emit(`${indent}${close}`, whole);
  };
  walk(payload ?? null, [], '', false);
  return out;
}

/** A string leaf with its spans marked; `quoted`: as a JSON string (pretty JSON), else as it is. */
function emitString(
  text: string,
  marks: readonly PayloadMark[],
  emit: (text: string, mark: boolean) => void,
  quoted: boolean,
  whole = false,
): void {
  const show = quoted ? escaped : (t: string) => t;
  if (quoted) emit('"', whole);
  let at = 0;
  const spans = marks
    .flatMap((m) => (m.span ? [m.span] : []))
    .filter(([s, e]) => s >= 0 && e <= text.length && s < e)
    .sort((a, b) => a[0] - b[0]);
  for (const [start, end] of spans) {
    if (start < at) continue;
    emit(show(text.slice(at, start)), whole);
    emit(show(text.slice(start, end)), true);
    at = end;
  }
  emit(show(text.slice(at)), whole || (!quoted && marks.some((m) => m.span === undefined)));
  if (quoted) emit('"', whole);
}
