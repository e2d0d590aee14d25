import { STATUS_CODES } from 'node:http';
import { APICallError } from '@ai-sdk/provider';
import { ModelError } from '../errors.js';

/** A failed model-call attempt, classified for the retry logic and described for people. */
export interface AttemptFailure {
  /**
   * One line for viewers (API, trace, console, span status), e.g. `HTTP 404 Not Found: The model
   * \`gpt-41\` does not exist…` or `the provider could not be reached (ECONNREFUSED)`: the status or
   * error code, and for a request the provider refused (4xx but 408, 409, 429) its own sentence — what
   * tells the person what to fix — with every URL replaced by `<url>` and cut at 200 characters (the
   * caller redacts secrets); never the provider's host or port, nor the text of a 5xx.
   */
  message: string;
  /** The whole story for the server log, e.g. `HTTP 401 Incorrect API key provided` (secrets still to redact). */
  detail: string;
  /** Worth another attempt: HTTP 408/409/429/5xx, a network error, a timeout. */
  retryable: boolean;
  /** What the provider asked for with `retry-after-ms` / `retry-after`, in ms, if anything. */
  retryAfterMs: number | null;
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);
const NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);
const MAX_MESSAGE = 400;

/** Classifies an error thrown by (or streamed from) a language model call. */
export function classifyFailure(error: unknown, now: number = Date.now()): AttemptFailure {
  if (error instanceof ModelError && error.code === 'TIMEOUT')
    return { message: error.message, detail: error.message, retryable: true, retryAfterMs: null };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined) {
      const retryable = RETRYABLE_STATUS.has(status) || status >= 500;
      const text = oneLine(error.message) || statusText(error.responseBody);
      return {
        // A 2xx that failed is an answer that could not be read (its text is the provider's).
        message:
          status < 300
            ? `HTTP ${status}: the provider's answer could not be read`
            : `HTTP ${status}${statusPhrase(status)}${clientSentence(status, error.message)}`,
        detail: `HTTP ${status}${text ? ` ${text}` : ''}`,
        retryable,
        retryAfterMs: retryAfter(error.responseHeaders, now),
      };
    }
    const network = networkCode(error);
    return {
      message: network !== null ? unreachable(network) : 'the provider answered with an error',
      detail: oneLine(error.message),
      retryable: error.isRetryable || network !== null,
      retryAfterMs: null,
    };
  }
  const detail =
    error instanceof Error
      ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`
      : String(error);
  const network = networkCode(error);
  return {
    message: network !== null ? unreachable(network) : unusable(error),
    detail: oneLine(detail),
    retryable: network !== null,
    retryAfterMs: null,
  };
}

const MAX_SENTENCE = 200;

/**
 * `: <the provider's sentence>` for a refused request (4xx but 408, 409, 429), '' otherwise or when
 * the provider said nothing beyond the status phrase. URLs in it become `<url>`.
 */
function clientSentence(status: number, text: string): string {
  if (status < 400 || status >= 500 || RETRYABLE_STATUS.has(status)) return '';
  const line = text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>')
    // A key the provider quotes, even masked (`sk-abc***xyz`), is not shown.
    .replace(/\b(sk|key|api)[-_][A-Za-z0-9*_-]{6,}/gi, '***');
  if (line === '' || line === STATUS_CODES[status]) return '';
  return `: ${line.length > MAX_SENTENCE ? `${line.slice(0, MAX_SENTENCE)}…` : line}`;
}

/** Phrases of statuses providers use beyond the standard ones (Anthropic's 529). */
const PROVIDER_STATUS: Readonly<Record<number, string>> = { 529: 'Overloaded' };

/** ` Unauthorized` for 401: the standard phrase of a status, never the provider's text. */
function statusPhrase(status: number): string {
  const phrase = STATUS_CODES[status] ?? PROVIDER_STATUS[status];
  return phrase ? ` ${phrase}` : '';
}

function unreachable(code: string): string {
  return `the provider could not be reached (${code})`;
}

/** A failure that is neither HTTP nor network (a broken stream, an unreadable answer): its kind only. */
function unusable(error: unknown): string {
  const name = error instanceof Error && /^[A-Za-z_]{1,40}$/.test(error.name) ? error.name : 'Error';
  return `the provider's answer could not be used (${name})`;
}

/**
 * The delay a provider asked for: `retry-after-ms` (OpenAI), else `retry-after` in seconds or as an
 * HTTP date; null when absent or unreadable.
 */
export function retryAfter(
  headers: Record<string, string> | undefined,
  now: number = Date.now(),
): number | null {
  if (!headers) return null;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number(lower['retry-after-ms']);
  if (lower['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower['retry-after'];
  if (raw === undefined || raw.trim() === '') return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** Replaces every occurrence of a secret (API keys, header values) with `***`. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

/**
 * The code of a connection-level failure in the error or one of its causes (`ECONNREFUSED`; `fetch
 * failed` and the like when no code is given), or null when it is none.
 */
function networkCode(error: unknown): string | null {
  let current: unknown = error;
  let generic: string | null = null;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
    if (
      current instanceof TypeError &&
      /^(fetch failed|terminated|other side closed)$/i.test(current.message)
    )
      generic ??= current.message.toLowerCase();
    current = current.cause;
  }
  return generic;
}

function statusText(body: string | undefined): string {
  return body ? oneLine(body) : '';
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}
