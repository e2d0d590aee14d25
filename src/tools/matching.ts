import { dateOf, findDateInText, sameDate } from './dates.js';
import { findNumberInText, numericValue, numbersIn, sameNumber } from './numbers.js';
import { containsEligible, findInText, type Span } from './text-match.js';

/**
 * Value matching shared by the param contract, the output validator and the follow-up checks
 * (pipeline step 3, docs/design.md). One normalisation, used on both sides of every comparison:
 *
 * - Unicode NFKC (full-width letters, digits and spaces fold to their half-width forms),
 * - lower case,
 * - every white-space character removed,
 * - optionally, every Unicode punctuation character (categories P*) removed — only where a check
 *   asks for it (the follow-up echo and same-question checks).
 */

/** Options of `normalise`. */
export interface NormaliseOptions {
  /** Remove Unicode punctuation (P*) too. Default false. */
  punctuation?: boolean;
}

const WHITE_SPACE = /\s+/gu;
const PUNCTUATION = /\p{P}+/gu;

/** The normalised form of a text (see the module comment). */
export function normalise(text: string, options: NormaliseOptions = {}): string {
  let out = text.normalize('NFKC').toLowerCase().replace(WHITE_SPACE, '');
  if (options.punctuation === true) out = out.replace(PUNCTUATION, '');
  return out;
}

/** A JSON scalar: what `scalarEquals` compares. */
export type Scalar = string | number | boolean | null;

/** True for a JSON scalar (null, string, number, boolean). */
export function isScalar(value: unknown): value is Scalar {
  return (
    value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
  );
}

/**
 * Scalar equality after normalisation: `"1"` equals `1`, `"ＡＢＣ"` equals `"abc"`, `"a b"` equals `"ab"`;
 * numbers as numbers, dates as dates (`"2025-01-11"` equals `"January 11th 2025"`, src/tools/dates.ts).
 * Equality, never containment. `null` equals only `null`.
 */
export function scalarEquals(a: Scalar, b: Scalar): boolean {
  if (a === null || b === null) return a === b;
  if (normalise(String(a)) === normalise(String(b))) return true;
  const x = numericValue(a);
  const y = x === null ? null : numericValue(b);
  if (x !== null && y !== null && sameNumber(x, y)) return true;
  const d = dateOf(a);
  const e = d === null ? null : dateOf(b);
  return d !== null && e !== null && sameDate(d, e);
}

/**
 * Structural equality whose leaves compare with `scalarEquals`: objects need the same keys,
 * arrays the same length and order.
 */
export function deepMatches(a: unknown, b: unknown): boolean {
  if (isScalar(a) || isScalar(b)) return isScalar(a) && isScalar(b) && scalarEquals(a, b);
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepMatches(item, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === undefined || b === undefined) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && deepMatches(left[key], right[key]));
}

/**
 * True when `value` occurs in `tree` (an evidence payload, or what a `path` selected): a scalar must
 * equal a scalar leaf (`scalarEquals`), an object or array must deep-match a sub-tree (`deepMatches`).
 */
export function occursIn(value: unknown, tree: unknown): boolean {
  return locate(value, tree) !== null;
}

/** A path inside a JSON value: object keys and array indexes, outermost first; [] is the value itself. */
export type JsonPath = (string | number)[];

/** Where `locate` found a value: the leaf (or sub-tree) and, for a match inside a text, its span. */
export interface Hit {
  path: JsonPath;
  /** Set for a `contains` match: [start, end) of the value inside the string leaf at `path`. */
  span?: Span;
}

/** Options of `locate`. */
export interface LocateOptions {
  /**
   * Also find a string value inside a longer string leaf, at token boundaries, when it is long
   * enough (src/tools/text-match.ts). Default false: whole leaves only.
   */
  contains?: boolean;
}

/**
 * Where `value` occurs in `tree`, or null: a scalar equal to a scalar leaf (`scalarEquals`, first in
 * document order), else — with `contains` and a long enough string — inside a string leaf at token
 * boundaries; an object or array deep-matching a sub-tree (`deepMatches`).
 */
export function locate(value: unknown, tree: unknown, options: LocateOptions = {}): Hit | null {
  if (value === undefined) return null;
  if (!isScalar(value)) {
    const sub = subTrees(tree, []).find((s) => deepMatches(value, s.value));
    return sub ? { path: sub.path } : null;
  }
  const wanted = value === null ? null : normalise(String(value));
  const number = numericValue(value);
  const date = dateOf(value);
  const equal = firstLeaf(tree, (leaf) => {
    if (wanted === null || leaf === null) return leaf === wanted;
    if (normalise(String(leaf)) === wanted) return true;
    const other = number === null ? null : numericValue(leaf);
    if (other !== null && sameNumber(number as number, other)) return true;
    if (date === null) return false;
    const day = dateOf(leaf);
    return day !== null && sameDate(date, day);
  });
  if (equal) return { path: equal.path };
  if (options.contains === true && date !== null) {
    let at: Span | null = null;
    const inside = firstLeaf(
      tree,
      (leaf) => typeof leaf === 'string' && (at = findDateInText(date, leaf)) !== null,
    );
    if (inside && at) return { path: inside.path, span: at };
  }
  if (options.contains === true && number !== null) {
    let at: Span | null = null;
    const inside = firstLeaf(
      tree,
      (leaf) => typeof leaf === 'string' && (at = findNumberInText(number, leaf)) !== null,
    );
    if (inside && at) return { path: inside.path, span: at };
  }
  if (options.contains !== true || typeof value !== 'string' || !containsEligible(value)) return null;
  let span: Span | null = null;
  const inside = firstLeaf(
    tree,
    (leaf) => typeof leaf === 'string' && (span = findInText(value, leaf)) !== null,
  );
  return inside && span ? { path: inside.path, span } : null;
}

/** The first scalar leaf (document order) that `test` accepts, with its path; one path stack, copied on a hit. */
function firstLeaf(tree: unknown, test: (leaf: Scalar) => boolean): { path: JsonPath } | null {
  const stack: JsonPath = [];
  const walk = (node: unknown): boolean => {
    if (isScalar(node)) return test(node);
    if (node === null || typeof node !== 'object') return false;
    const entries: [string | number, unknown][] = Array.isArray(node)
      ? node.map((v, i) => [i, v])
      : Object.entries(node as Record<string, unknown>);
    for (const [key, child] of entries) {
      stack.push(key);
      if (walk(child)) return true;
      stack.pop();
    }
    return false;
  };
  return walk(tree) ? { path: [...stack] } : null;
}

/** The value at `path` inside `tree` (undefined when there is none). */
export function valueAt(tree: unknown, path: JsonPath): unknown {
  let node = tree;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}

interface Entry {
  path: JsonPath;
  value: unknown;
}

function leafEntries(tree: unknown, path: JsonPath): { path: JsonPath; value: Scalar }[] {
  if (isScalar(tree)) return [{ path, value: tree }];
  if (Array.isArray(tree)) return tree.flatMap((item, i) => leafEntries(item, [...path, i]));
  if (tree !== null && typeof tree === 'object')
    return Object.entries(tree).flatMap(([k, v]) => leafEntries(v, [...path, k]));
  return [];
}

/** Every scalar leaf of a JSON value, in document order. */
export function scalarLeaves(tree: unknown): Scalar[] {
  if (isScalar(tree)) return [tree];
  if (Array.isArray(tree)) return tree.flatMap(scalarLeaves);
  if (tree !== null && typeof tree === 'object') return Object.values(tree).flatMap(scalarLeaves);
  return [];
}

/**
 * Scalar leaves stored under a key named like `key`, at any depth, with case, width, white space
 * and punctuation folded (`orderId` names `order_id`); a list of scalars under such a key gives its
 * items.
 */
export function leavesUnderKey(tree: unknown, key: string): Scalar[] {
  const wanted = normalise(key, { punctuation: true });
  const out: Scalar[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      const named = normalise(k, { punctuation: true }) === wanted;
      if (named && isScalar(v)) out.push(v);
      else if (named && Array.isArray(v) && v.every(isScalar)) out.push(...v);
      else walk(v);
    }
  };
  walk(tree);
  return out;
}

function subTrees(tree: unknown, path: JsonPath): Entry[] {
  if (isScalar(tree) || tree === undefined) return [];
  const children: [string | number, unknown][] = Array.isArray(tree)
    ? tree.map((v, i) => [i, v])
    : Object.entries(tree as Record<string, unknown>);
  return [{ path, value: tree }, ...children.flatMap(([k, v]) => subTrees(v, [...path, k]))];
}

const NUMERIC = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;

/**
 * True when the user said `value` in one of `texts` (pipeline step 3, docs/design.md, `source: user`): a normalised
 * text match. A number (or a numeric string) matches only where its digits stand with no digit or
 * decimal point right before or after (`10` is not found in `100` or `10.5`); a date also where the
 * same day is written in words (src/tools/dates.ts). An object or array matches when every scalar
 * leaf does.
 */
export function saidByUser(value: unknown, texts: readonly string[]): boolean {
  if (value === undefined) return false;
  if (!isScalar(value)) {
    const leaves = scalarLeaves(value);
    return leaves.length > 0 && leaves.every((leaf) => saidByUser(leaf, texts));
  }
  if (value === null) return false;
  const needle = normalise(String(value));
  if (needle === '') return false;
  const number = numericValue(value);
  if (
    number !== null &&
    texts.some((t) => numbersIn(t.normalize('NFKC')).some((n) => sameNumber(n.value, number)))
  )
    return true;
  const date = dateOf(value);
  if (date !== null && texts.some((t) => findDateInText(date, t.normalize('NFKC')) !== null)) return true;
  const haystacks = texts.map((t) => normalise(t));
  if (NUMERIC.test(needle)) return haystacks.some((h) => containsNumber(h, needle));
  return haystacks.some((h) => h.includes(needle));
}

/**
 * True when `digits` stand in `haystack` with no digit or decimal point right before, and no digit, nor
 * a decimal point or group separator followed by a digit, right after: `10` is not in `100`, `10.5`,
 * `10,000` or `.10`, but it is in `10.` at the end of a sentence and in `10, 20`.
 */
function containsNumber(haystack: string, digits: string): boolean {
  const clearBefore = (at: number): boolean => {
    const ch = haystack[at - 1];
    if (ch === undefined) return true;
    if (/[\d.]/.test(ch)) return false;
    // `000` is not in `10,000`: a group after a digit and `,` is part of that number.
    return !(ch === ',' && /\d/.test(haystack[at - 2] ?? ''));
  };
  const clearAfter = (at: number): boolean => {
    const ch = haystack[at];
    if (ch === undefined) return true;
    if (/\d/.test(ch)) return false;
    // `10` is not in `10.5` nor in `10,000`.
    return !((ch === '.' || ch === ',') && /\d/.test(haystack[at + 1] ?? ''));
  };
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(digits, from);
    if (at < 0) return false;
    if (clearBefore(at) && clearAfter(at + digits.length)) return true;
    from = at + 1;
  }
}

/**
 * True when `question` only repeats what the user said (docs/observations.md follow-up echo): the question,
 * normalised and without punctuation, is non-empty and contained in one of `texts` normalised the same way.
 */
export function echoes(question: string, texts: readonly string[]): boolean {
  const q = normalise(question, { punctuation: true });
  if (q === '') return false;
  return texts.some((t) => normalise(t, { punctuation: true }).includes(q));
}

/** A short JSON rendering of a value for texts shown to the model (strings unquoted, long values cut). */
export function showValue(value: unknown, max = 80): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * True for a value that says nothing: `null`, or a string that is empty once white space is removed.
 * An optional argument or output holding one needs no provenance (docs/flows.md).
 */
export function isEmptyValue(value: unknown): boolean {
  return value === null || (typeof value === 'string' && value.trim() === '');
}

/** The path of the first leaf or sub-tree of `tree` that is exactly `value` (same JSON), or null. */
export function pathOf(tree: unknown, value: unknown): JsonPath | null {
  if (isScalar(value)) return leafEntries(tree, []).find((leaf) => leaf.value === value)?.path ?? null;
  const wanted = JSON.stringify(value);
  return subTrees(tree, []).find((sub) => JSON.stringify(sub.value) === wanted)?.path ?? null;
}

/**
 * Values "of the same kind" as an argument or output named `key`, for a next step to offer: the
 * scalar leaves under a key named like it (`leavesUnderKey`), else like its singular (`item_ids` →
 * `item_id`). Never other leaves: a list of unrelated values would mislead.
 */
export function valuesNamed(tree: unknown, key: string): Scalar[] {
  const names = [key];
  if (/[a-z]s$/iu.test(key)) names.push(key.slice(0, -1));
  if (/[a-z]es$/iu.test(key)) names.push(key.slice(0, -2));
  for (const name of names) {
    const found = leavesUnderKey(tree, name);
    if (found.length > 0) return found;
  }
  return [];
}
