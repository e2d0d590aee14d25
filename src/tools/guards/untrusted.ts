import type { FromEntry } from '../../domain/flow.js';
import type { EvidenceRecord } from '../../records/run-state.js';
import { isScalar, saidByUser, scalarEquals, scalarLeaves, type Scalar } from '../matching.js';
import { numericValue, numbersIn, sameNumber } from '../numbers.js';

/**
 * Untrusted text (docs/flows.md, "Untrusted text"): which evidence a `from` entry names, which parts
 * of a result are untrusted, and the candidates "of the same kind" as a value inside untrusted text
 * (for `untrusted: single`).
 */

/** True when `evidence` is a call `entry` names: its tool, and (for `{tool, where}`) its own arguments as stated. */
export function fromEntryNames(
  entry: FromEntry,
  evidence: EvidenceRecord,
  userTexts: readonly string[],
): boolean {
  if (typeof entry === 'string') return evidence.tool === entry;
  if (evidence.tool !== entry.tool) return false;
  return Object.entries(entry.where).every(([arg, condition]) => {
    const value = evidence.args[arg];
    if (value === undefined) return false;
    if (condition === 'user') return saidByUser(value, userTexts);
    return isScalar(value) && scalarEquals(value, condition.equals);
  });
}

/**
 * What `redact` puts where untrusted text was: plain JSON (a payload may go to the expression
 * sandbox's worker), and no value a model sends holds NUL characters around a word.
 */
const REDACTED = '\u0000untrusted\u0000';

/**
 * A copy of `payload` with the untrusted parts (`selections`: what each untrusted path selected)
 * removed: every leaf or sub-tree equal to a selected one is replaced by a marker no value matches.
 * Equal values elsewhere are removed too: a value that also stands in a trusted field is then counted
 * as untrusted, never the other way round.
 */
export function redact(payload: unknown, selections: readonly unknown[]): unknown {
  const leaves = new Set<Scalar>();
  const trees = new Set<string>();
  const collect = (selected: unknown): void => {
    if (selected === undefined) return;
    if (isScalar(selected)) leaves.add(selected);
    else if (Array.isArray(selected)) {
      trees.add(JSON.stringify(selected));
      selected.forEach(collect);
    } else trees.add(JSON.stringify(selected));
  };
  selections.forEach(collect);
  const walk = (node: unknown): unknown => {
    if (isScalar(node)) return node !== null && leaves.has(node) ? REDACTED : node;
    if (node === undefined || typeof node !== 'object') return node;
    if (trees.has(JSON.stringify(node))) return REDACTED;
    if (Array.isArray(node)) return node.map(walk);
    return Object.fromEntries(Object.entries(node as Record<string, unknown>).map(([k, v]) => [k, walk(v)]));
  };
  return walk(payload);
}

/** The kinds `untrusted: single` tells apart; `other` values are their own only candidate. */
export type ValueKind = 'email' | 'url' | 'iban' | 'amount' | 'code' | 'other';

const EMAIL = /[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu;
const URL = /\b(?:https?:\/\/|www\.)[^\s<>"')\]]+/giu;
const IBAN = /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){10,30}\b/g;
const CODE = /[A-Za-z0-9][A-Za-z0-9-]{4,}[A-Za-z0-9]/g;

/** The kind of a value (see `ValueKind`): checked in this order; `code` is a token of 6+ characters holding a digit. */
export function kindOf(value: unknown): ValueKind {
  if (!isScalar(value) || value === null || typeof value === 'boolean') return 'other';
  if (numericValue(value) !== null) return 'amount';
  const text = String(value).trim();
  if (whole(EMAIL, text)) return 'email';
  if (whole(URL, text)) return 'url';
  if (whole(IBAN, text)) return 'iban';
  if (whole(CODE, text) && /\d/.test(text)) return 'code';
  return 'other';
}

function whole(pattern: RegExp, text: string): boolean {
  return [...text.matchAll(pattern)].some((m) => m.index === 0 && m[0].length === text.length);
}

/** `ES12 3456` → `ES123456`: the form candidates are told apart by. */
function key(text: string): string {
  return text.replace(/\s+/g, '').toLowerCase();
}

/** The shape of a code: letters → A, digits → 9 (`INV-2024-001` → `AAA-9999-999`). */
function shape(text: string): string {
  return text.replace(/\p{L}/gu, 'A').replace(/\d/g, '9');
}

/**
 * The distinct values of the same kind as `value` written in `texts` (shown as written, the value's
 * own first when it is among them): e-mail addresses, URLs, IBANs; for a number, the amounts (numbers
 * with decimals or beside a currency sign or code); for a code, the tokens of the same shape. An
 * `other` value has no kind: it is its own only candidate.
 */
export function candidatesOf(value: unknown, texts: readonly string[]): string[] {
  const kind = kindOf(value);
  const found = new Map<string, string>();
  const add = (k: string, shown: string): void => {
    if (!found.has(k)) found.set(k, shown);
  };
  if (kind === 'other') return [String(value)];
  for (const text of texts) {
    if (kind === 'amount') {
      for (const n of numbersIn(text)) if (isAmount(text, n.span, n.text)) add(String(n.value), n.text);
      continue;
    }
    const pattern = kind === 'email' ? EMAIL : kind === 'url' ? URL : kind === 'iban' ? IBAN : CODE;
    for (const m of text.matchAll(pattern)) {
      const token = m[0].replace(/[.,;:]+$/, '');
      if (kind === 'code' && (shape(token) !== shape(String(value)) || !/\d/.test(token))) continue;
      add(key(token), token);
    }
  }
  const own = kind === 'amount' ? String(numericValue(value)) : key(String(value));
  const rest = [...found].filter(([k]) =>
    kind === 'amount' ? !sameNumber(Number(k), numericValue(value) as number) : k !== own,
  );
  return [String(value), ...rest.map(([, shown]) => shown)];
}

const CURRENCY = /[$€£¥₹]|\b(?:eur|usd|gbp|chf|cny|rmb|jpy|cad|aud)\b|元/iu;

/** True for a number written as an amount: with decimals, or with a currency sign or code beside it. */
function isAmount(text: string, span: [number, number], written: string): boolean {
  if (/\.\d{1,2}$/.test(written)) return true;
  const around = text.slice(Math.max(0, span[0] - 5), span[1] + 5);
  return CURRENCY.test(around);
}

/** The string leaves of untrusted parts: what `candidatesOf` reads. */
export function textsOf(selections: readonly unknown[]): string[] {
  return selections
    .flatMap((s) => scalarLeaves(s))
    .filter((leaf): leaf is string => typeof leaf === 'string');
}

/** Up to `width` characters on each side of `span` in `text`, with `…` where it was cut. */
export function contextAround(text: string, span: [number, number] | undefined, width = 60): string {
  if (!span) return text.length > 2 * width ? `${text.slice(0, 2 * width)}…` : text;
  const start = Math.max(0, span[0] - width);
  const end = Math.min(text.length, span[1] + width);
  return `${start > 0 ? '…' : ''}${text.slice(start, end)}${end < text.length ? '…' : ''}`;
}
