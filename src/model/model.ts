import type { JsonSchema } from '../tools/tool.js';

/** A tool offered to the model. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

/** A tool call as the model returned it; `rawArgs` is the untouched argument string. */
export interface ModelToolCall {
  callId: string;
  tool: string;
  rawArgs: string;
}

/** A conversation message in provider-neutral form (persisted as is, so a run can switch provider). */
export type ConversationMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  | {
      role: 'tool';
      callId: string;
      tool: string;
      content: string;
      /** Runtime bookkeeping, not shown to the model: the fingerprint this call added to the node run's count. */
      counted?: string;
    };

/** Token usage of one model call. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** One model call: the system prompt, the node run's conversation and the visible tools. */
export interface ModelRequest {
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ModelTool[];
  signal?: AbortSignal;
  /** The node's `limits.maxOutputTokens`: passed to the provider as the call's output limit. */
  maxOutputTokens?: number;
}

/** Where a model call stands in its run; the scripted model answers by `callIndex`. */
export interface ModelCallContext {
  runId: string;
  nodeId: string;
  /** The run's model calls so far, across nodes and processes (0 for the first call). */
  callIndex: number;
}

/** The model's answer to one call, or why there is none. */
export type ModelResult =
  | { ok: true; text: string; toolCalls: ModelToolCall[]; usage: TokenUsage }
  | { ok: false; message: string };

/** A language model behind a small interface (STYLE.md habit 4). Never throws for a provider failure. */
export interface ModelClient {
  /** A display name, e.g. `scripted:/abs/turns.yaml` or `openai:gpt-4.1`. */
  readonly id: string;
  call(request: ModelRequest, context: ModelCallContext): Promise<ModelResult>;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });

/** Adds two usages. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
