/**
 * Server-Sent Events read with `fetch` streaming (docs/api.md): unlike EventSource, fetch sends the bearer
 * token in the Authorization header. Reconnects with `Last-Event-ID` after a dropped connection, so
 * no event is lost or repeated.
 */
import { authHeaders, toApiError, type ApiError, type LiveDelta, type TraceEvent } from './api.js';

/** One SSE message (comment lines are dropped). */
export interface SseMessage {
  id: string | null;
  event: string | null;
  data: string;
}

/**
 * An incremental parser of the text/event-stream format: feed it chunks as they arrive; it returns
 * the messages completed by each chunk. Handles CRLF, CR and LF line ends and lines split across chunks.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private id: string | null = null;
  private event: string | null = null;

  /** Adds a chunk; returns the messages it completed. */
  feed(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const messages: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone CR at the end may be the first half of CRLF: wait for the next chunk.
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = null;
        return null;
      }
      const message = { id: this.id, event: this.event, data: this.data.join('\n') };
      this.data = [];
      this.event = null;
      return message;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    else if (field === 'event') this.event = value;
    return null;
  }
}

/** The state of a followed stream, for the page's live indicator. */
export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'error';

/** Options of followEvents. */
export interface FollowOptions {
  runId: string;
  token: string | null;
  /** Replay events with seq above this (default 0: all). */
  after?: number;
  onEvent: (event: TraceEvent) => void;
  /** Told about each live `model.delta` (a streaming model's turn so far). */
  onDelta?: (delta: LiveDelta) => void;
  onState: (state: StreamState, error?: ApiError | Error) => void;
  signal: AbortSignal;
  /** Delay before reconnect attempt `n` (1-based); default 500 ms doubling up to 10 s. */
  backoff?: (attempt: number) => number;
  /** Origin of the API (default: the page's own). */
  base?: string;
  /** The fetch to use (default: the global one; tests wrap it). */
  fetch?: typeof fetch;
}

const ENDINGS = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/**
 * Follows a run's events until it ends, the signal aborts, or the server refuses (401/403/404: no
 * retry). A stream that closes before the run ended, or a network error, reconnects with
 * `Last-Event-ID` set to the last seq seen.
 */
export async function followEvents(options: FollowOptions): Promise<void> {
  let last = options.after ?? 0;
  let attempt = 0;
  const backoff = options.backoff ?? ((n: number) => Math.min(10_000, 500 * 2 ** (n - 1)));
  while (!options.signal.aborted) {
    options.onState(attempt === 0 ? 'connecting' : 'reconnecting');
    try {
      const outcome = await readOnce(options, last, (event) => {
        last = event.seq;
        attempt = 0;
      });
      if (outcome === 'ended') {
        options.onState('ended');
        return;
      }
    } catch (error) {
      if (options.signal.aborted) return;
      if (isFatal(error)) {
        options.onState('error', error as Error);
        return;
      }
    }
    attempt += 1;
    options.onState('reconnecting');
    await delay(backoff(attempt), options.signal);
  }
}

function isFatal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** One connection: resolves 'ended' when the stream closed after a run-ending event, 'closed' when it closed earlier. */
async function readOnce(
  options: FollowOptions,
  last: number,
  seen: (event: TraceEvent) => void,
): Promise<'ended' | 'closed'> {
  const headers: Record<string, string> = { ...authHeaders(options.token), accept: 'text/event-stream' };
  if (last > 0) headers['last-event-id'] = String(last);
  const url = `${options.base ?? ''}/v1/runs/${encodeURIComponent(options.runId)}/events`;
  const response = await (options.fetch ?? fetch)(url, { headers, signal: options.signal });
  if (!response.ok || !response.body) throw await toApiError(response);
  options.onState('live');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  // The server closes the stream once the run has ended; a run-ending event that is not the last one
  // (a failed run taken up again by `retry`) is followed by the rest of the run.
  let ended = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return ended ? 'ended' : 'closed';
    for (const message of parser.feed(value)) {
      // A reader cut for being too slow (STREAM_TOO_SLOW): the stream closes next; reconnect from `last`.
      if (message.event === 'error') continue;
      const event = JSON.parse(message.data) as TraceEvent;
      if (event.type === 'model.delta') {
        options.onDelta?.(event as unknown as LiveDelta);
        continue;
      }
      if (event.seq <= last) continue;
      last = event.seq;
      seen(event);
      options.onEvent(event);
      ended = ENDINGS.has(event.type);
    }
  }
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
