import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { RunRecord } from '../store/store.js';
import type { Principal } from './tokens.js';
import { SseQueue } from './sse-queue.js';
import { visibleRun, type AppEnv, type ServerDeps } from './context.js';
import { ApiError } from './errors.js';
import { EventsHeaders, EventsQuery, RunIdParam, errors } from './schemas.js';

const ENDED = new Set(['completed', 'failed', 'cancelled']);

const runEvents = createRoute({
  method: 'get',
  path: '/v1/runs/{id}/events',
  tags: ['runs'],
  summary: "The run's trace events as Server-Sent Events, replayed then live",
  description:
    "Each SSE message is one trace event (docs/trace.md) as JSON in `data`, with `id` = the event's `seq`. " +
    'Replays the events after `Last-Event-ID` (or `?after=`), then streams new ones as they are committed, with a ' +
    '`: keep-alive` comment line between them, and closes after `run.completed`, `run.failed` or `run.cancelled`. ' +
    'A suspended run keeps the stream open. Send the same `Authorization` header (read it with fetch streaming). ' +
    'While a streaming model writes a turn, transient `model.delta` messages (no `id`, not persisted: `text` so far and ' +
    '`toolCalls` being formed) come between them; the completed turn is the `model.response` event. ' +
    'A reader that takes nothing for 30 s while events wait is cut with an `event: error` message ' +
    '(`{error: {code: STREAM_TOO_SLOW, message}, lastEventId}`); reconnect with `Last-Event-ID` for the rest. ' +
    'The cap of open streams counts per tenant and token name; `HEAD` opens no stream.',
  request: { params: RunIdParam, query: EventsQuery, headers: EventsHeaders },
  responses: {
    200: { description: 'An event stream.', content: { 'text/event-stream': { schema: z.string() } } },
    ...errors(400, 401, 404, 429),
  },
});

/** The key of a principal's stream count: tenant and token name (same-named tokens of two tenants are two). */
function streamIdentity(principal: Principal): string {
  return JSON.stringify([principal.tenant, principal.name]);
}

/**
 * Counts an event stream against its token's cap (`maxStreamsPerToken`, per tenant and token name);
 * answers 429 beyond it. Returns the release function, to call once when the stream ends (more calls do nothing).
 */
export function claimStream(deps: ServerDeps, principal: Principal): () => void {
  const identity = streamIdentity(principal);
  const open = deps.streamsByToken.get(identity) ?? 0;
  if (open >= deps.maxStreamsPerToken) {
    throw new ApiError(
      429,
      'TOO_MANY_STREAMS',
      `token ${principal.name} already has ${open} event streams open (the limit); close one and retry`,
    );
  }
  deps.streamsByToken.set(identity, open + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (deps.streamsByToken.get(identity) ?? 1) - 1;
    if (left <= 0) deps.streamsByToken.delete(identity);
    else deps.streamsByToken.set(identity, left);
  };
}

/** The Node response under a Hono context (`@hono/node-server` bindings), to cut a stalled connection. */
export function nodeResponse(env: unknown): { destroy(): void } | null {
  const outgoing = (env as { outgoing?: { destroy?: unknown } } | undefined)?.outgoing;
  return outgoing && typeof outgoing.destroy === 'function' ? (outgoing as { destroy(): void }) : null;
}

/** Registers `GET /v1/runs/{id}/events` (docs/api.md). */
export function registerEventRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(runEvents, async (c) => {
    const { id } = c.req.valid('param');
    const { after: queryAfter } = c.req.valid('query');
    const lastEventId = c.req.valid('header')['last-event-id'];
    const principal = c.get('principal');
    const record = await visibleRun(deps, principal, id);
    c.header('X-Accel-Buffering', 'no');
    // HEAD answers the headers of a stream without opening one (nor taking a slot of the cap).
    if (c.req.method === 'HEAD')
      return c.body(null, 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const release = claimStream(deps, principal);
    const requested = lastEventId !== undefined ? Number(lastEventId) : (queryAfter ?? 0);
    const cut = () => nodeResponse(c.env)?.destroy();
    try {
      return streamSSE(
        c,
        (stream) => pump(deps, stream, record, requested, cut).finally(release),
        (error) => {
          deps.logger.error('HTTP event stream failed', { runId: id, error });
          return Promise.resolve();
        },
      );
    } catch (error) {
      release();
      throw error;
    }
  });
}

/** The SSE `error` event of a reader cut for being too slow (docs/api.md). */
function slowReaderEvent(lastId: string | null): { event: string; data: string } {
  const resume = lastId === null ? 'reconnect' : `reconnect with Last-Event-ID: ${lastId}`;
  return {
    event: 'error',
    data: JSON.stringify({
      error: {
        code: 'STREAM_TOO_SLOW',
        message: `this reader took no events for too long while more were waiting; the stream is cut: ${resume} to get the rest`,
      },
      lastEventId: lastId === null ? null : Number(lastId),
    }),
  };
}

/**
 * Writes the run's events after `requested` to the stream until the run ends, the client leaves, the
 * server shuts down or the reader is cut for being too slow (SseQueue: a bounded queue per stream,
 * deltas coalesced to the latest). `requested` is clamped to what exists, so a run that already ended
 * closes at once instead of waiting for events that will never come. `destroy` ends the connection
 * when even the error event of a cut cannot be written.
 */
async function pump(
  deps: ServerDeps,
  stream: SSEStreamingApi,
  record: RunRecord,
  requested: number,
  destroy: () => void,
): Promise<void> {
  const controller = new AbortController();
  stream.onAbort(() => controller.abort());
  if (stream.aborted) controller.abort();
  deps.streams.add(controller);
  const state: { stalled: { lastId: string | null } | null } = { stalled: null };
  const queue = new SseQueue((message) => stream.writeSSE(message), deps.streamLimits, {
    onStall: (lastId) => {
      state.stalled = { lastId };
      controller.abort();
    },
    onError: () => controller.abort(),
  });
  // Leaving (the client, a shutdown, a cut) drops what is queued and wakes a producer waiting for room.
  controller.signal.addEventListener('abort', () => queue.close(), { once: true });
  const heartbeat = setInterval(() => {
    if (queue.idle) void stream.write(': keep-alive\n\n');
  }, deps.heartbeatMs);
  const unsubscribe = ENDED.has(record.status)
    ? () => undefined
    : deps.runtime.deltas(record.runId, (delta) =>
        queue.push(
          { data: () => JSON.stringify(delta), bytes: 0 },
          `delta ${delta.nodeId} ${delta.round ?? '-'}`,
        ),
      );
  try {
    const events = deps.runtime.events(record.runId, {
      after: Math.min(requested, record.lastSeq),
      follow: !ENDED.has(record.status),
      signal: controller.signal,
    });
    for await (const event of events) {
      const data = JSON.stringify(event);
      if (!queue.push({ id: String(event.seq), data: () => data, bytes: data.length })) break;
      await queue.room();
      if (controller.signal.aborted) break;
    }
    await queue.flushed();
  } finally {
    unsubscribe();
    clearInterval(heartbeat);
    deps.streams.delete(controller);
    queue.close();
  }
  if (state.stalled) await endStalled(deps, stream, record, state.stalled, destroy);
}

/** Logs a cut reader, writes it the error event and closes; a connection that takes not even that is destroyed. */
async function endStalled(
  deps: ServerDeps,
  stream: SSEStreamingApi,
  record: RunRecord,
  stalled: { lastId: string | null },
  destroy: () => void,
): Promise<void> {
  deps.logger.warn('HTTP event stream cut: the reader is too slow', {
    runId: record.runId,
    lastEventId: stalled.lastId ?? undefined,
  });
  const timer = setTimeout(destroy, deps.streamLimits.stallMs);
  try {
    await stream.writeSSE(slowReaderEvent(stalled.lastId));
    await stream.close();
  } finally {
    clearTimeout(timer);
  }
}
