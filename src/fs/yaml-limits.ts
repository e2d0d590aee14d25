import { parseDocument, type Document } from 'yaml';

/** Limits of YAML (and JSON) parsing of input: how deep, how many alias expansions, how large. */
export interface YamlLimits {
  /** Deepest nesting of mappings and sequences (default 100). */
  readonly maxDepth: number;
  /** Most alias nodes resolved while converting to data (default 100; counts expansions). */
  readonly maxAliasCount: number;
  /** Largest text in characters (default 4 MiB). */
  readonly maxChars: number;
  /** Most values (mappings, sequences and scalars) in the data (default 10,000: checking costs time per value). */
  readonly maxValues: number;
}

/** The limits used unless a caller gives others. */
export const YAML_LIMITS: YamlLimits = {
  maxDepth: 100,
  maxAliasCount: 100,
  maxChars: 4 * 1024 * 1024,
  maxValues: 10_000,
};

/** A limit broken before or while parsing: a message fit for a flow problem. */
export type LimitProblem = { readonly message: string };

/**
 * Checks the size, a cheap upper estimate of the nesting depth and a cheap lower estimate of the
 * number of values of `text` in one linear pass, before any parser sees it (a YAML parser recurses
 * per level: 100k levels take seconds and overflow the stack; 40k keys take seconds to parse).
 * Returns the broken limit, or null. The depth estimate counts open flow brackets, half the
 * indentation and the block indicators (`- `, `: `, `? `) of each line, so it may exceed the real
 * depth but never by a factor that refuses a sane document (it refuses above 2.5× maxDepth).
 */
export function precheckYaml(text: string, limits: YamlLimits = YAML_LIMITS): LimitProblem | null {
  if (text.length > limits.maxChars) {
    return { message: `the document is larger than ${limits.maxChars} characters` };
  }
  const ceiling = Math.ceil(limits.maxDepth * 2.5);
  let flow = 0;
  let lineStart = true;
  let indent = 0;
  let inline = 0;
  let quote: string | null = null;
  // Each indicator of a key or item (`: `, `- `, `,` in a flow collection, an opening bracket) stands
  // for at least one value, so this count never exceeds the values the parse would produce (by more
  // than colons inside block text): a 40,000-key document is refused before costing seconds to parse.
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10) {
      lineStart = true;
      indent = 0;
      inline = 0;
      quote = null;
      continue;
    }
    if (lineStart && ch === 32) {
      indent += 1;
      continue;
    }
    lineStart = false;
    const c = text[i] as string;
    if (quote !== null) {
      if (c === quote) quote = null;
      continue;
    }
    // A quote opens a string only where a scalar may start (so `don't [[[` hides no brackets).
    if ((c === '"' || c === "'") && (i === 0 || ' \t[{,:-?'.includes(text[i - 1] as string))) quote = c;
    else if (c === '#' && (i === 0 || text[i - 1] === ' ')) {
      while (i + 1 < text.length && text.charCodeAt(i + 1) !== 10) i++;
    } else if (c === '[' || c === '{') {
      flow += 1;
      values += 1;
    } else if ((c === ']' || c === '}') && flow > 0) flow -= 1;
    else if (c === ',' && flow > 0) values += 1;
    // Inside flow collections the brackets count the depth and the commas the values; block
    // indicators only count outside them.
    else if (flow === 0 && (c === '-' || c === ':' || c === '?') && endsToken(text, i)) {
      if (text[i + 1] === ' ') inline += 1;
      values += 1;
    }
    if (flow + (indent >> 1) + inline > ceiling) {
      return { message: `the document nests deeper than ${limits.maxDepth} levels` };
    }
    if (values > limits.maxValues) {
      return { message: `the document holds more than ${limits.maxValues} values` };
    }
  }
  return null;
}

/** True when the character after `i` ends a token: a space, a tab, a line break or the end of the text. */
function endsToken(text: string, i: number): boolean {
  const next = text.charCodeAt(i + 1);
  return Number.isNaN(next) || next === 32 || next === 9 || next === 10 || next === 13;
}

/**
 * Checks parsed data against the depth and value-count limits (iteratively, stopping at the first
 * breach); returns the broken limit, or null.
 */
export function checkShape(data: unknown, limits: YamlLimits = YAML_LIMITS): LimitProblem | null {
  const stack: [unknown, number][] = [[data, 0]];
  let count = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    count += 1;
    if (count > limits.maxValues)
      return { message: `the document holds more than ${limits.maxValues} values` };
    if (typeof value !== 'object' || value === null) continue;
    if (depth + 1 > limits.maxDepth)
      return { message: `the document nests deeper than ${limits.maxDepth} levels` };
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return null;
}

/**
 * Converts a parsed document to plain data within the limits: alias expansion bounded (a "billion
 * laughs" document is a problem, not an exhausted process) and the depth checked. Returns the data
 * or the broken limit.
 */
export function limitedToJS(
  doc: Document,
  limits: YamlLimits = YAML_LIMITS,
): { ok: true; data: unknown } | { ok: false; message: string } {
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: limits.maxAliasCount });
  } catch (error) {
    if (!(error instanceof ReferenceError) && !(error instanceof RangeError)) throw error;
    return {
      ok: false,
      message: `the document expands aliases beyond ${limits.maxAliasCount} nodes (or refers to a missing anchor)`,
    };
  }
  const shape = checkShape(data, limits);
  return shape ? { ok: false, message: shape.message } : { ok: true, data };
}

/**
 * Parses one YAML/JSON document within the limits, without positions (for data files such as
 * scripted models). The message is the first line of the parser's, without the excerpt of the text.
 */
export function parseLimited(
  text: string,
  limits: YamlLimits = YAML_LIMITS,
): { ok: true; data: unknown } | { ok: false; message: string } {
  const pre = precheckYaml(text, limits);
  if (pre) return { ok: false, message: pre.message };
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  const first = doc.errors[0];
  if (first) return { ok: false, message: firstSentence(first.message) };
  return limitedToJS(doc, limits);
}

/** The parser's message up to its excerpt of the text (which must not be echoed). */
export function firstSentence(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/:\s*$/, '').trim();
}
