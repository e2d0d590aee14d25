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
 * Scalar equality after normalisation: `"1"` equals `1`, `"ＡＢＣ"` equals `"abc"`, `"a b"` equals `"ab"`.
 * Equality, never containment. `null` equals only `null`.
 */
export function scalarEquals(a: Scalar, b: Scalar): boolean {
  if (a === null || b === null) return a === b;
  return normalise(String(a)) === normalise(String(b));
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
  if (value === undefined) return false;
  if (isScalar(value)) return scalarLeaves(tree).some((leaf) => scalarEquals(value, leaf));
  return subTrees(tree).some((sub) => deepMatches(value, sub));
}

/** Every scalar leaf of a JSON value, in document order. */
export function scalarLeaves(tree: unknown): Scalar[] {
  if (isScalar(tree)) return [tree];
  if (Array.isArray(tree)) return tree.flatMap(scalarLeaves);
  if (tree !== null && typeof tree === 'object') return Object.values(tree).flatMap(scalarLeaves);
  return [];
}

/** Scalar leaves stored under a key equal to `key` (normalised), at any depth. */
export function leavesUnderKey(tree: unknown, key: string): Scalar[] {
  const wanted = normalise(key);
  const out: Scalar[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node === null || typeof node !== 'object') return;
    for (const [k, v] of Object.entries(node)) {
      if (normalise(k) === wanted && isScalar(v)) out.push(v);
      else walk(v);
    }
  };
  walk(tree);
  return out;
}

function subTrees(tree: unknown): unknown[] {
  if (isScalar(tree) || tree === undefined) return [];
  const children = Array.isArray(tree) ? tree : Object.values(tree as Record<string, unknown>);
  return [tree, ...children.flatMap(subTrees)];
}

const NUMERIC = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;

/**
 * True when the user said `value` in one of `texts` (pipeline step 3, docs/design.md, `source: user`): a normalised
 * text match. A number (or a numeric string) matches only where its digits stand with no digit or
 * decimal point right before or after (`10` is not found in `100` or `10.5`). An object or array
 * matches when every scalar leaf does.
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
  const haystacks = texts.map((t) => normalise(t));
  if (NUMERIC.test(needle)) return haystacks.some((h) => containsNumber(h, needle));
  return haystacks.some((h) => h.includes(needle));
}

function containsNumber(haystack: string, digits: string): boolean {
  const isBoundary = (ch: string | undefined): boolean => ch === undefined || !/[\d.]/.test(ch);
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(digits, from);
    if (at < 0) return false;
    if (isBoundary(haystack[at - 1]) && isBoundary(haystack[at + digits.length])) return true;
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
