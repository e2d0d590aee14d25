import type { SSEStreamingApi } from 'hono/streaming';
import type { ServerDeps } from './context.js';
import { SseQueue } from './sse-queue.js';
import { RunChunker, type UiChunk } from './ui-stream.js';

/** Where a chat response starts: the run, the seq after which its events are this response's, the approved write. */
export interface ChatStart {
  runId: string;
  threadId: string;
  after: number;
  approved: { id: string; tool: string } | null;
}

/**
 * Writes a run's UI message stream (docs/threads.md#usechat) until the run suspends or ends, the client
 * leaves, the server shuts down or the reader is cut for being too slow. The writes go through a
 * bounded SseQueue: committed events' chunks count against its bound (the producer waits for room);
 * a streaming model's `text-delta` pieces are merged while they wait (one queued message per text
 * part, whose delta is everything not written yet), so a slow reader gets fewer, longer pieces and
 * the memory held stays one turn's text. A reader cut for being too slow gets an `error` chunk.
 */
export async function pumpChat(
  deps: ServerDeps,
  stream: SSEStreamingApi,
  start: ChatStart,
  destroy: () => void,
): Promise<void> {
  const controller = new AbortController();
  stream.onAbort(() => controller.abort());
  if (stream.aborted) controller.abort();
  deps.streams.add(controller);
  let stalled = false;
  const queue = new SseQueue((message) => stream.writeSSE(message), deps.streamLimits, {
    onStall: () => {
      stalled = true;
      controller.abort();
    },
    onError: () => controller.abort(),
  });
  controller.signal.addEventListener('abort', () => queue.close(), { once: true });
  const pending = new Map<string, string>();
  const push = (chunk: UiChunk | '[DONE]'): boolean => {
    if (chunk !== '[DONE]' && chunk.type === 'text-delta') {
      const id = chunk.id;
      pending.set(id, (pending.get(id) ?? '') + chunk.delta);
      const data = () => {
        const delta = pending.get(id) ?? '';
        pending.delete(id);
        return JSON.stringify({ type: 'text-delta', id, delta });
      };
      return queue.push({ data, bytes: 0 }, `text-delta ${id}`);
    }
    const data = chunk === '[DONE]' ? chunk : JSON.stringify(chunk);
    return queue.push({ data: () => data, bytes: data.length });
  };
  const meta = { runId: start.runId, threadId: start.threadId };
  const chunker = new RunChunker(start.approved);
  push({ type: 'start', messageMetadata: meta });
  const unsubscribe = deps.runtime.deltas(start.runId, (delta) => {
    for (const chunk of chunker.onDelta(delta)) push(chunk);
  });
  try {
    const events = deps.runtime.events(start.runId, { after: start.after, signal: controller.signal });
    for await (const event of events) {
      for (const chunk of chunker.onEvent(event)) if (!push(chunk)) break;
      await queue.room();
      if (chunker.state === 'closed' || controller.signal.aborted) break;
    }
    unsubscribe();
    push({ type: 'finish', finishReason: 'stop', messageMetadata: meta });
    push('[DONE]');
    await queue.flushed();
  } finally {
    unsubscribe();
    deps.streams.delete(controller);
    queue.close();
  }
  if (stalled) await endStalled(deps, stream, start, destroy);
}

/** Logs a cut reader and writes it an `error` chunk; a connection that takes not even that is destroyed. */
async function endStalled(
  deps: ServerDeps,
  stream: SSEStreamingApi,
  start: ChatStart,
  destroy: () => void,
): Promise<void> {
  deps.logger.warn('HTTP chat stream cut: the reader is too slow', {
    runId: start.runId,
    threadId: start.threadId,
  });
  const timer = setTimeout(destroy, deps.streamLimits.stallMs);
  try {
    const errorText = `this reader took nothing for too long while more was waiting; the stream is cut (the run goes on: GET /v1/threads/${start.threadId} shows it)`;
    await stream.writeSSE({ data: JSON.stringify({ type: 'error', errorText } satisfies UiChunk) });
    await stream.close();
  } finally {
    clearTimeout(timer);
  }
}
