import { setFlagsFromString } from 'node:v8';

/**
 * Regular expressions a flow carries (JSON Schema `pattern`/`patternProperties` in `input` and params'
 * `schema`, JSONata regex literals) may be written by a tenant's admin, and JavaScript runs a regex as
 * one step that nothing can interrupt: `^(a+)+$` against "a"×40 + "!" would hold the process for days.
 * V8 can switch a regex that backtracks too much to its linear-time engine; this module turns that on
 * and compiles schema patterns so that the switch applies to them (docs/security.md).
 */

let enabled = false;

/**
 * Turns on, once per process, V8's fall-back to its linear-time engine for a regex that backtracks
 * excessively (`--enable-experimental-regexp-engine-on-excessive-backtracks`; the result is the same,
 * only the engine changes) and the `l` flag that asks for that engine up front (`linearTimeProblem`).
 * The fall-back covers every regex of the process that the linear engine supports: no backreferences
 * or lookaheads, only simple lookbehinds, no `u`, `v` or `i` flag, counted repetitions up to 16.
 */
export function enableLinearRegExps(): void {
  if (enabled) return;
  enabled = true;
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  setFlagsFromString('--enable-experimental-regexp-engine');
}

/**
 * Syntax that means something else, or nothing, without the `u` flag: `\p{…}`, `\P{…}`, `\u{…}`, and
 * characters outside the Basic Multilingual Plane (written as such or as surrogate escapes), which
 * `u` treats as one character and a class such as `[😀]` would split in two.
 */
const UNICODE_ONLY = /\\[pP]\{|\\u\{|\\u[dD][89a-fA-F][0-9a-fA-F]{2}|[\uD800-\uDFFF]/;

/**
 * The regex of a JSON Schema `pattern` (an Ajv `code.regExp` engine). Ajv asks for the `u` flag, which
 * the linear engine does not support; a pattern without unicode-only syntax is compiled without it,
 * so a pattern that backtracks excessively falls back to linear time. The pattern must still be valid
 * with `u` (the same patterns are accepted as before), and it matches the same strings except that a
 * character outside the BMP (an emoji, 𠀀) counts as two for `.`, `[^…]`, `\S`, `\D`, `\W` and
 * repetition counts: `^.$` no longer accepts "😀". Patterns with unicode-only syntax keep `u`.
 */
export function schemaRegExp(pattern: string, u: string): RegExp {
  enableLinearRegExps();
  const exact = new RegExp(pattern, u);
  if (!u.includes('u') || UNICODE_ONLY.test(pattern)) return exact;
  try {
    return new RegExp(pattern, u.replace('u', ''));
  } catch {
    return exact; // not expected: a pattern valid with `u` is valid without it
  }
}
/** How Ajv's standalone code would name the engine (required by Ajv's `RegExpEngine`). */
schemaRegExp.code = 'schemaRegExp';

/**
 * Why `regex` cannot run in linear time, or undefined when it can: it is compiled, flags kept, for
 * V8's linear engine (`l` flag), which refuses backreferences, lookaheads, lookbehinds in a global
 * regex (as JSONata's are), the `u`, `v` and `i` flags and counted repetitions above 16 (`x{1,64}`:
 * write `x+` and bound the length with `maxLength` instead).
 */
export function linearTimeProblem(regex: RegExp): string | undefined {
  enableLinearRegExps();
  try {
    new RegExp(regex.source, `${regex.flags}l`);
    return undefined;
  } catch {
    const why = regex.flags.includes('i')
      ? 'it is case-insensitive (flag i)'
      : /[uv]/.test(regex.flags)
        ? 'it uses unicode-only syntax (\\p{…}, \\u{…} or a character outside the BMP)'
        : 'it uses a backreference, a lookahead, a lookbehind or a counted repetition above 16';
    return `regex ${JSON.stringify(regex.source)} cannot be run in linear time: ${why}; flows sent over HTTP may use only regexes that can (write [aA] instead of flag i, x+ with maxLength instead of x{1,64})`;
  }
}
