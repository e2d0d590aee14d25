/** Severity of a log record, lowest first. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** Structured values of a record; `undefined` values are left out of the output. */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * The human-readable log (stderr by default). A record is a short message naming the component and the
 * event (`TOOL invoked`, `MCP server exited`) plus fields. Implementations never throw.
 */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** True when `level` is a valid level name. */
export function isLogLevel(level: string): level is LogLevel {
  return level in ORDER;
}

/** Longest string field written (longer ones are cut, saying how much was left out). */
export const MAX_FIELD_CHARS = 1024;
/** Longest object field written as JSON. */
const MAX_JSON_CHARS = 4096;

/**
 * Formats one record as one line: `WARN TOOL invoked tool=x outcome=FAILED code=TOOL_TIMEOUT`.
 * Strings made only of visible characters are written bare, anything else as JSON with every control,
 * format (bidi, zero-width) and line-separator character escaped, so that a value taken from a request
 * (a flow id, a version, a model id) can neither break the line nor drive the terminal; string fields
 * are cut at MAX_FIELD_CHARS.
 */
export function formatRecord(level: LogLevel, message: string, fields: LogFields = {}): string {
  const parts = [level.toUpperCase(), oneLine(message)];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(`${oneLine(key)}=${formatValue(value)}`);
  }
  return parts.join(' ');
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return formatString(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (value instanceof Error) return formatString(value.message);
  try {
    const json = JSON.stringify(value);
    if (json === undefined) return `[${typeof value}]`;
    return escapeUnsafe(json.length > MAX_JSON_CHARS ? JSON.stringify(capped(json, MAX_JSON_CHARS)) : json);
  } catch (error) {
    return JSON.stringify(`[unserializable: ${error instanceof Error ? error.message : String(error)}]`);
  }
}

/** Visible characters other than `"` and `=`: written bare. */
const BARE = /^[^\s"=\p{C}\p{Z}]+$/u;
/** What JSON.stringify leaves raw but a terminal or a log reader may act on. */
const UNSAFE = /[\u007f-\u009f\u2028\u2029\p{Cf}\p{Co}\p{Cs}]/gu;

function formatString(value: string): string {
  const text = capped(value, MAX_FIELD_CHARS);
  return BARE.test(text) ? text : escapeUnsafe(JSON.stringify(text));
}

function capped(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…(+${text.length - max} chars)` : text;
}

/** Escapes, as `\uXXXX`, what JSON.stringify leaves raw among UNSAFE characters. */
function escapeUnsafe(json: string): string {
  return json.replace(UNSAFE, uEscape);
}

/** `\\uXXXX` for each UTF-16 unit of `c`. */
function uEscape(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i += 1) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** A message or key on one line, its control characters escaped. */
function oneLine(text: string): string {
  const line = capped(text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, ' '), MAX_FIELD_CHARS);
  return line.replace(/[\p{Cc}\p{Cf}]/gu, uEscape);
}

/** Options of `createStderrLogger`. */
export interface StderrLoggerOptions {
  /** The lowest level written; default `info`. */
  level?: LogLevel;
  /** Where lines go; default `process.stderr`. */
  write?: (line: string) => void;
}

/** A logger writing one line per record at or above `level` to stderr. */
export function createStderrLogger(options: StderrLoggerOptions = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const at =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (ORDER[level] >= threshold) write(formatRecord(level, message, fields));
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** A logger that drops every record. */
export const silentLogger: Logger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});

/** One record kept by a MemoryLogger. */
export interface LogRecord {
  level: LogLevel;
  message: string;
  fields: LogFields;
}

/** A logger that keeps every record in memory, for tests. */
export class MemoryLogger implements Logger {
  readonly records: LogRecord[] = [];

  debug(message: string, fields: LogFields = {}): void {
    this.records.push({ level: 'debug', message, fields });
  }

  info(message: string, fields: LogFields = {}): void {
    this.records.push({ level: 'info', message, fields });
  }

  warn(message: string, fields: LogFields = {}): void {
    this.records.push({ level: 'warn', message, fields });
  }

  error(message: string, fields: LogFields = {}): void {
    this.records.push({ level: 'error', message, fields });
  }

  /** The records formatted as lines, as the stderr logger would print them. */
  lines(): string[] {
    return this.records.map((r) => formatRecord(r.level, r.message, r.fields));
  }

  /** Records whose message equals (or, for a RegExp, matches) `message`. */
  find(message: string | RegExp): LogRecord[] {
    return this.records.filter((r) =>
      typeof message === 'string' ? r.message === message : message.test(r.message),
    );
  }
}
