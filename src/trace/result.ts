/** How many bytes of a tool result's JSON `tool.invoked` carries unless told otherwise (16 KiB). */
export const DEFAULT_RESULT_BYTES = 16 * 1024;

/** The environment variable that sets the bound for every runtime of a process (CLI, serve, worker). */
export const RESULT_BYTES_ENV = 'AGENT_RUNTIME_TRACE_RESULT_BYTES';

/** The `result` fields of a `tool.invoked` event: the value, or its cut beginning with `resultTruncated`. */
export type BoundedResult = { result: unknown; resultTruncated?: true } | Record<string, never>;

/**
 * The bound in bytes from `AGENT_RUNTIME_TRACE_RESULT_BYTES` (a whole number ≥ 0; 0 traces no results),
 * else DEFAULT_RESULT_BYTES. A value that is not a whole number ≥ 0 is a misconfiguration and throws,
 * naming the variable.
 */
export function resultBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[RESULT_BYTES_ENV];
  if (raw === undefined || raw.trim() === '') return DEFAULT_RESULT_BYTES;
  return checkResultBytes(Number(raw.trim()), `${RESULT_BYTES_ENV}=${JSON.stringify(raw)}`);
}

/** Returns `bytes` when it is a whole number ≥ 0; otherwise throws an Error naming `what`. */
export function checkResultBytes(bytes: number, what: string): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new Error(
      `${what}: the trace result bound must be a whole number of bytes ≥ 0 (0 traces no results)`,
    );
  }
  return bytes;
}

/**
 * A tool result bounded for the trace. Within `maxBytes` bytes of JSON (UTF-8) it is kept as it is;
 * beyond, `result` becomes a string — the beginning of the result (a text result) or of its JSON text
 * (any other value) — of at most `maxBytes` bytes, and `resultTruncated` is true. With `maxBytes` 0 the
 * result is left out (`{}`). `undefined` counts as null.
 */
export function boundResult(data: unknown, maxBytes: number): BoundedResult {
  if (maxBytes <= 0) return {};
  const value = data === undefined ? null : data;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  // JSON text of a string adds quotes and escapes; measure what is stored.
  const stored = typeof value === 'string' ? JSON.stringify(value) : text;
  if (stored.length * 3 <= maxBytes || Buffer.byteLength(stored, 'utf8') <= maxBytes)
    return { result: value };
  return { result: cutUtf8(text, maxBytes), resultTruncated: true };
}

/** The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes` bytes (never half a character). */
function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) so the cut falls between characters.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * A `tool.invoked` payload with its `result` bounded by `maxBytes` (see boundResult); a payload
 * without `result` (a call stopped before it ran) is returned as it is.
 */
export function withBoundedResult<T extends { result?: unknown; resultTruncated?: boolean }>(
  payload: T,
  maxBytes: number,
): T {
  if (!('result' in payload)) return payload;
  const { result, resultTruncated: _ignored, ...rest } = payload;
  return { ...rest, ...boundResult(result, maxBytes) } as T;
}

/**
 * Whether a call's result belongs in the trace: every call that ran or that answers with data
 * (SUCCESS, FAILED, a reuse); not a REJECTED or DEFERRED call stopped before it ran.
 */
export function tracesResult(outcome: string, executed: boolean): boolean {
  return executed || outcome === 'SUCCESS' || outcome === 'FAILED';
}
