import { APICallError } from '@ai-sdk/provider';
import { ModelError } from '../errors.js';

/** A failed model-call attempt, classified for the retry logic and described for people. */
export interface AttemptFailure {
  /** One line saying what went wrong, e.g. `HTTP 401 invalid api key` (never a secret). */
  message: string;
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
export function classifyFailure(error: unknown): AttemptFailure {
  if (error instanceof ModelError && error.code === 'TIMEOUT')
    return { message: error.message, retryable: true, retryAfterMs: null };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status !== undefined) {
      const retryable = RETRYABLE_STATUS.has(status) || status >= 500;
      const text = oneLine(error.message) || statusText(error.responseBody);
      return {
        message: `HTTP ${status}${text ? ` ${text}` : ''}`,
        retryable,
        retryAfterMs: retryAfter(error.responseHeaders),
      };
    }
    return {
      message: oneLine(error.message),
      retryable: error.isRetryable || isNetworkError(error),
      retryAfterMs: null,
    };
  }
  const message =
    error instanceof Error
      ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`
      : String(error);
  return { message: oneLine(message), retryable: isNetworkError(error), retryAfterMs: null };
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

/** True when the error, or one of its causes, is a connection-level failure. */
function isNetworkError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if (
      current instanceof TypeError &&
      /^(fetch failed|terminated|other side closed)$/i.test(current.message)
    )
      return true;
    current = current.cause;
  }
  return false;
}

function statusText(body: string | undefined): string {
  return body ? oneLine(body) : '';
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}
