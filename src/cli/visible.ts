/**
 * Untrusted text made safe for a terminal. Tool payloads, model text, reasons and flow fields reach
 * the CLI's output; a raw ESC, BEL, CSI or carriage return in them could retitle the window, clear the
 * screen, forge lines or plant an OSC 8 hyperlink. Every such character is shown as a visible stand-in
 * instead: a C0 control as its Unicode control picture (ESC → `␛`, BEL → `␇`, CR → `␍`, LF → `␊`),
 * DEL as `␡`, and C1 controls, line/paragraph separators and bidirectional overrides as `<U+XXXX>`.
 */

/** C1 controls, U+2028/U+2029 and the bidirectional embedding/override/isolate characters. */
const OTHER = /[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Options of `visible`. */
export interface VisibleOptions {
  /** Keep line feeds and tabs as they are (multi-line displays such as a full payload); default false. */
  readonly keepLines?: boolean;
}

/**
 * `text` with every terminal control character made visible (see the module comment). With
 * `keepLines`, `\n` and `\t` stay (a `\r` never does: it would let a text overwrite the line).
 */
export function visible(text: string, options: VisibleOptions = {}): string {
  const keep = options.keepLines === true;
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const c0 = /[\u0000-\u001f\u007f]/g;
  return text
    .replace(c0, (c) => {
      if (keep && (c === '\n' || c === '\t')) return c;
      const code = c.charCodeAt(0);
      return String.fromCharCode(code === 0x7f ? 0x2421 : 0x2400 + code);
    })
    .replace(OTHER, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`);
}

/** `value` with `visible` applied to every string in it (keys too), for rendering structured data. */
export function visibleDeep<T>(value: T): T {
  return mapStrings(value) as T;
}

function mapStrings(value: unknown): unknown {
  if (typeof value === 'string') return visible(value);
  if (Array.isArray(value)) return value.map(mapStrings);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[visible(key)] = mapStrings(v);
    return out;
  }
  return value;
}

/**
 * One JSON line for stdout: `JSON.stringify(value)` with the characters JSON leaves raw but a terminal
 * acts on (DEL, C1 controls, separators, bidi overrides) written as `\uXXXX` escapes: the same value
 * for a JSON parser, harmless when printed to a terminal.
 */
export function jsonLine(value: unknown): string {
  const text = JSON.stringify(value) ?? 'null';
  return `${text.replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}
