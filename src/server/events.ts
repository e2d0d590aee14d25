import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { RunRecord } from '../store/store.js';
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
    '`toolCalls` being formed) come between them; the completed turn is the `model.response` event.',
  request: { params: RunIdParam, query: EventsQuery, headers: EventsHeaders },
  responses: {
    200: { description: 'An event stream.', content: { 'text/event-stream': { schema: z.string() } } },
    ...errors(400, 401, 404, 429),
  },
});

/**
 * Counts an event stream against its token's cap (`maxStreamsPerToken`); answers 429 beyond it.
 * Returns the release function, to call once when the stream ends.
 */
export function claimStream(deps: ServerDeps, token: string): () => void {
  const open = deps.streamsByToken.get(token) ?? 0;
  if (open >= deps.maxStreamsPerToken) {
    throw new ApiError(
      429,
      'TOO_MANY_STREAMS',
      `token ${token} already has ${open} event streams open (the limit); close one and retry`,
    );
  }
  deps.streamsByToken.set(token, open + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (deps.streamsByToken.get(token) ?? 1) - 1;
    if (left <= 0) deps.streamsByToken.delete(token);
    else deps.streamsByToken.set(token, left);
  };
}

/** Registers `GET /v1/runs/{id}/events` (docs/api.md). */
export function registerEventRoutes(app: OpenAPIHono<AppEnv>, deps: ServerDeps): void {
  app.openapi(runEvents, async (c) => {
    const { id } = c.req.valid('param');
    const { after: queryAfter } = c.req.valid('query');
    const lastEventId = c.req.valid('header')['last-event-id'];
    const principal = c.get('principal');
    const record = await visibleRun(deps, principal, id);
    const release = claimStream(deps, principal.name);
    const requested = lastEventId !== undefined ? Number(lastEventId) : (queryAfter ?? 0);
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(
      c,
      (stream) => pump(deps, stream, record, requested).finally(release),
      (error) => {
        deps.logger.error('HTTP event stream failed', { runId: id, error });
        return Promise.resolve();
      },
    );
  });
}

/**
 * Writes the run's events after `requested` to the stream until the run ends, the client leaves or
 * the server shuts down. `requested` is clamped to what exists, so a run that already ended closes at
 * once instead of waiting for events that will never come.
 */
async function pump(
  deps: ServerDeps,
  stream: SSEStreamingApi,
  record: RunRecord,
  requested: number,
): Promise<void> {
  const controller = new AbortController();
  stream.onAbort(() => controller.abort());
  deps.streams.add(controller);
  const heartbeat = setInterval(() => {
    void stream.write(': keep-alive\n\n');
  }, deps.heartbeatMs);
  // Live deltas and committed events are written one after the other, never interleaved.
  let writing: Promise<void> = Promise.resolve();
  const write = (message: { id?: string; data: string }) =>
    (writing = writing.then(() => stream.writeSSE(message)));
  const unsubscribe = ENDED.has(record.status)
    ? () => undefined
    : deps.runtime.deltas(
        record.runId,
        (delta) => void write({ data: JSON.stringify(delta) }).catch(() => controller.abort()),
      );
  try {
    const events = deps.runtime.events(record.runId, {
      after: Math.min(requested, record.lastSeq),
      follow: !ENDED.has(record.status),
      signal: controller.signal,
    });
    for await (const event of events) {
      if (controller.signal.aborted) break;
      await write({ id: String(event.seq), data: JSON.stringify(event) });
    }
  } finally {
    unsubscribe();
    clearInterval(heartbeat);
    deps.streams.delete(controller);
  }
}
