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

/**
 * Formats one record as one line: `WARN TOOL invoked tool=x outcome=FAILED code=TOOL_TIMEOUT`.
 * Strings made only of safe characters are written bare, anything else as JSON (so a line never breaks).
 */
export function formatRecord(level: LogLevel, message: string, fields: LogFields = {}): string {
  const parts = [level.toUpperCase(), oneLine(message)];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    parts.push(`${key}=${formatValue(value)}`);
  }
  return parts.join(' ');
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/u.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (value instanceof Error) return JSON.stringify(value.message);
  try {
    return JSON.stringify(value) ?? `[${typeof value}]`;
  } catch (error) {
    return JSON.stringify(`[unserializable: ${error instanceof Error ? error.message : String(error)}]`);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
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
