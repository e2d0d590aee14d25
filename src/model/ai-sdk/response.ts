import { ModelError } from '../errors.js';
import type { ModelDelta, ModelToolCall, TokenUsage } from '../model.js';

/** What one model call produced, before it is handed to the loop. */
export interface CollectedResponse {
  text: string;
  toolCalls: ModelToolCall[];
  usage: TokenUsage;
}

/**
 * Collects the content of a `doGenerate` result: text parts joined, client-side tool calls with their
 * ids and raw `input` strings untouched. Parts of other kinds (reasoning, sources, provider-executed
 * tools) are ignored. Read structurally so that v2, v3 and v4 language models all work.
 */
export function fromContent(content: readonly unknown[], usage: unknown): CollectedResponse {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') text += part.text;
    const call = toolCallOf(part);
    if (call) toolCalls.push(call);
  }
  return { text, toolCalls, usage: toUsage(usage) };
}

/**
 * Reads a `doStream` stream to its end: text deltas joined, tool calls as the provider finalised them
 * (raw argument strings, as accumulated from the deltas), usage from the `finish` part. An `error` part
 * throws (the call failed; a ModelError STREAM when the part is not an Error); so does a stream that
 * ends without a `finish` part. `onDelta`, when given, is told the text so far and the tool calls being
 * formed after each text or tool-input delta.
 */
export async function fromStream(
  stream: ReadableStream<unknown>,
  onDelta?: (delta: ModelDelta) => void,
): Promise<CollectedResponse> {
  let text = '';
  const toolCalls: ModelToolCall[] = [];
  let usage: TokenUsage | null = null;
  const forming = onDelta ? new FormingCalls() : null;
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!isRecord(value)) continue;
      if (value.type === 'error') throw streamError(value.error);
      if (value.type === 'text-delta') text += deltaOf(value);
      if (onDelta && forming && (value.type === 'text-delta' || forming.take(value)))
        onDelta({ text, toolCalls: forming.list() });
      if (value.type === 'finish') usage = toUsage(value.usage);
      const call = toolCallOf(value);
      if (call) toolCalls.push(call);
    }
  } finally {
    reader.releaseLock();
  }
  if (usage === null) throw new ModelError('STREAM', 'the response stream ended before the model finished');
  return { text, toolCalls, usage };
}

/** Tool calls a stream is forming (`tool-input-start` / `tool-input-delta` parts), for live followers. */
class FormingCalls {
  private readonly calls = new Map<string, { callId: string; tool: string; args: string }>();

  /** Takes a tool-input part; true when it changed a call being formed. */
  take(part: Record<string, unknown>): boolean {
    const id = typeof part.id === 'string' ? part.id : null;
    if (id === null) return false;
    if (part.type === 'tool-input-start') {
      this.calls.set(id, {
        callId: id,
        tool: typeof part.toolName === 'string' ? part.toolName : '',
        args: '',
      });
      return true;
    }
    const call = this.calls.get(id);
    if (part.type !== 'tool-input-delta' || !call) return false;
    call.args += typeof part.delta === 'string' ? part.delta : '';
    return true;
  }

  list(): { callId: string; tool: string; args: string }[] {
    return [...this.calls.values()].map((c) => ({ ...c }));
  }
}

/** Token usage in our shape from any AI SDK usage (v3/v4 `{inputTokens: {total, cacheRead, cacheWrite}}`, v2 flat numbers and `cachedInputTokens`). */
export function toUsage(usage: unknown): TokenUsage {
  const record = isRecord(usage) ? usage : {};
  const inputTokens = count(record.inputTokens);
  const outputTokens = count(record.outputTokens);
  // v3/v4 split the input tokens: cache reads (Anthropic, OpenAI `cached_tokens`) and cache writes.
  const input = isRecord(record.inputTokens) ? record.inputTokens : {};
  const read = count(input.cacheRead ?? record.cachedInputTokens);
  const write = count(input.cacheWrite);
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    ...(read > 0 ? { cacheReadTokens: read } : {}),
    ...(write > 0 ? { cacheWriteTokens: write } : {}),
  };
}

function count(value: unknown): number {
  const n = isRecord(value) ? value.total : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
}

function toolCallOf(part: Record<string, unknown>): ModelToolCall | null {
  if (part.type !== 'tool-call' || part.providerExecuted === true) return null;
  if (typeof part.toolCallId !== 'string' || typeof part.toolName !== 'string') return null;
  // v4/v3 carry `input` (a JSON string as the model sent it); v2 language models also used `input`.
  const raw = typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {});
  return { callId: part.toolCallId, tool: part.toolName, rawArgs: raw };
}

function deltaOf(part: Record<string, unknown>): string {
  if (typeof part.delta === 'string') return part.delta;
  return typeof part.textDelta === 'string' ? part.textDelta : '';
}

function streamError(error: unknown): Error {
  if (error instanceof Error) return error;
  const message =
    isRecord(error) && typeof error.message === 'string' ? error.message : JSON.stringify(error);
  return new ModelError('STREAM', message);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
