import type { JsonSchema } from '../domain/tool.js';
import type { ToolImage } from '../domain/tool-image.js';
import type { ModelToolCall } from '../records/loop-state.js';

/** A tool offered to the model. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** A tool call as the model returned it; `rawArgs` is the untouched argument string. */
export type { ModelToolCall };

/** A conversation message in provider-neutral form (persisted as is, so a run can switch provider). */
export type ConversationMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  | {
      role: 'tool';
      callId: string;
      tool: string;
      content: string;
      /**
       * The result's images, for models that read images in tool results; `content` holds their
       * placeholders, which is all other models get.
       */
      images?: readonly ToolImage[];
      /** Runtime bookkeeping, not shown to the model: the fingerprint this call added to the node run's count. */
      counted?: string;
    };

/**
 * Token usage of one model call (or summed). `inputTokens` counts every prompt token, cached or not;
 * `cacheReadTokens` / `cacheWriteTokens` say how many of them were read from / written to the
 * provider's prompt cache, and are present only when the provider reported some.
 */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/** One model call: the system prompt, the node run's conversation and the visible tools. */
export interface ModelRequest {
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ModelTool[];
  signal?: AbortSignal;
  /** The node's `limits.maxOutputTokens`: passed to the provider as the call's output limit. */
  maxOutputTokens?: number;
  /** Told about the answer while a streaming model writes it (live followers; nothing is persisted from it). */
  onDelta?: (delta: ModelDelta) => void;
}

/** A streaming model's answer so far: the text written and the tool calls being formed (raw arguments so far). */
export interface ModelDelta {
  text: string;
  toolCalls: { callId: string; tool: string; args: string }[];
}

/** Where a model call stands in its run; the scripted model answers by `callIndex`. */
export interface ModelCallContext {
  runId: string;
  nodeId: string;
  /** The run's model calls so far, across nodes and processes (0 for the first call). */
  callIndex: number;
  /**
   * In a flow with parallel branches or maps, where nodes call the model at the same time: the calls
   * of this node id started before this one (all its node runs). The scripted model serves the turns
   * of each node in order by it.
   */
  nodeCallIndex?: number;
  /** In a map's body: the index of the item this node run is for (then `nodeCallIndex` counts this item's calls). */
  itemIndex?: number;
  /** The node run's ReAct round this call starts (for live followers). */
  round?: number;
}

/** The model's answer to one call, or why there is none. */
export type ModelResult =
  | { ok: true; text: string; toolCalls: ModelToolCall[]; usage: TokenUsage }
  | {
      ok: false;
      /** Why, for viewers (trace, API, console, span status): no provider host, port or answer text. */
      message: string;
      /** The whole story, for the server log only (the runtime logs it as `MODEL call failed`). */
      detail?: string;
    };

/** A language model behind a small interface. Never throws for a provider failure. */
export interface ModelClient {
  /** A display name, e.g. `scripted:/abs/turns.yaml` or `openai:gpt-4.1`. */
  readonly id: string;
  call(request: ModelRequest, context: ModelCallContext): Promise<ModelResult>;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** Adds two usages; the cache counts appear only when one of them has some. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  const read = (a.cacheReadTokens ?? 0) + (b.cacheReadTokens ?? 0);
  const write = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(read > 0 ? { cacheReadTokens: read } : {}),
    ...(write > 0 ? { cacheWriteTokens: write } : {}),
  };
}
