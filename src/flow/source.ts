import {
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Document,
  type Node,
} from 'yaml';
import { checkShape, limitedToJS, precheckYaml } from '../fs/yaml-limits.js';
import { parseOffThread } from '../fs/yaml-worker.js';
import type { PathSegment } from './problems.js';

/** A 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** Finds the position of a path inside the parsed text; undefined for a flow given as an object. */
export type Locator = (path: readonly PathSegment[], atKey?: boolean) => Position | undefined;

/** A flow file's text parsed into plain data, keeping positions. */
export interface ParsedSource {
  readonly data: unknown;
  readonly locate: Locator;
  /** YAML syntax problems (with positions); when not empty, `data` is not to be trusted. */
  readonly syntax: readonly { readonly message: string; readonly position?: Position }[];
}

/** A locator that knows no positions (flows given as objects). */
export const noPositions: Locator = () => undefined;

/**
 * Parses YAML (or JSON, which is YAML) keeping a line counter, so that problems found later in the
 * plain data can be placed at a line and column. Duplicate keys are syntax problems.
 */
export function parseSource(text: string): ParsedSource {
  const pre = precheckYaml(text);
  if (pre) return { data: undefined, locate: noPositions, syntax: [{ message: pre.message }] };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, logLevel: 'error' });
  const syntax = [...doc.errors, ...doc.warnings].map((error) => {
    const at = error.linePos?.[0];
    return {
      message: firstLine(error.message),
      ...(at ? { position: { line: at.line, column: at.col } } : {}),
    };
  });
  let data: unknown;
  if (syntax.length === 0) {
    const converted = limitedToJS(doc);
    if (converted.ok) data = converted.data;
    else syntax.push({ message: converted.message });
  }
  const locate: Locator = (path, atKey = false) => {
    const offset = offsetOf(doc, path, atKey);
    if (offset === undefined) return undefined;
    const pos = lineCounter.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  return { data, locate, syntax };
}

/** Texts above this size are parsed off the main thread. */
const OFF_THREAD_CHARS = 64 * 1024;

/**
 * `parseSource` within the limits without blocking the event loop: a large text is parsed in a
 * worker thread (its problems other than syntax then have no positions).
 */
export async function parseSourceAsync(text: string): Promise<ParsedSource> {
  if (text.length <= OFF_THREAD_CHARS) return parseSource(text);
  const pre = precheckYaml(text);
  if (pre) return { data: undefined, locate: noPositions, syntax: [{ message: pre.message }] };
  const parsed = await parseOffThread(text);
  const shape = parsed.syntax.length === 0 ? checkShape(parsed.data) : null;
  if (shape) return { data: undefined, locate: noPositions, syntax: [{ message: shape.message }] };
  return { data: parsed.data, locate: noPositions, syntax: parsed.syntax };
}

/** yaml's pretty messages end with ` at line L, column C:` and a code excerpt; keep the sentence. */
function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return line
    .replace(/ at line \d+, column \d+:?\s*$/, '')
    .replace(/; please use YAML\.parseAllDocuments\(\)/, '; expected one YAML document')
    .trim();
}

/** The offset of the deepest node along `path` that exists in the document. */
function offsetOf(doc: Document, path: readonly PathSegment[], atKey: boolean): number | undefined {
  let node: unknown = doc.contents;
  let offset = rangeStart(node);
  for (const [i, segment] of path.entries()) {
    if (isAlias(node)) node = node.resolve(doc);
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && keyText(item.key) === String(segment));
      if (!pair) return offset;
      if (last && atKey) return rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
    } else {
      return offset;
    }
    offset = rangeStart(node) ?? offset;
  }
  return offset;
}

function keyText(key: unknown): string | undefined {
  return isScalar(key) ? String(key.value) : undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
