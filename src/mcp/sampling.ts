import type { Client } from '@modelcontextprotocol/client';
import type { McpServerConfig } from '../domain/flow.js';
import type { Logger } from '../log/logger.js';

/**
 * Sampling (docs/mcp.md, "Sampling"): a server with `sampling: true` may ask the model of the node
 * whose tool call it is serving (`sampling/createMessage`). Any other server's request is refused
 * with a JSON-RPC error (the handler is not registered and the capability not declared).
 */

/**
 * The most output tokens one sampling request may have the model write: a larger `maxTokens` from the
 * server is lowered to it (and to the node's `limits.maxOutputTokens` when smaller). A server cannot
 * make one request cost more than a long answer; 4,096 is more than any tool needs to ask back.
 */
export const MAX_SAMPLING_TOKENS = 4_096;

/**
 * The most sampling requests one tool call may make; later requests of that call are refused with an
 * MCP error. A tool that asks the model back does so a few times, not in a loop that spends the run.
 */
export const MAX_SAMPLING_REQUESTS = 8;

/** A server's `sampling/createMessage`, as the runtime passes it on (text only). */
export interface McpSamplingRequest {
  readonly messages: readonly { readonly role: 'user' | 'assistant'; readonly text: string }[];
  readonly systemPrompt?: string;
  readonly maxTokens: number;
}

/** The model's answer to a sampling request. */
export interface McpSamplingResult {
  readonly text: string;
  /** The model that answered (its display id). */
  readonly model: string;
}

/** Answers a sampling request with the calling node's model; rejects (an error to the server) when it cannot. */
export type SampleHandler = (request: McpSamplingRequest) => Promise<McpSamplingResult>;

/** One content block as text for the model: text as it is, anything else a placeholder naming its type. */
function textOf(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block) => {
      const b = (block ?? {}) as { type?: unknown; text?: unknown };
      return b.type === 'text' && typeof b.text === 'string' ? b.text : `[${String(b.type)} content]`;
    })
    .join('\n');
}

/** The request's params as the runtime passes them to a model. */
export function samplingRequestOf(params: Record<string, unknown>): McpSamplingRequest {
  const messages = Array.isArray(params.messages) ? (params.messages as Record<string, unknown>[]) : [];
  return {
    messages: messages.map((m) => ({
      role: m.role === 'assistant' ? 'assistant' : 'user',
      text: textOf(m.content),
    })),
    ...(typeof params.systemPrompt === 'string' ? { systemPrompt: params.systemPrompt } : {}),
    maxTokens: typeof params.maxTokens === 'number' ? params.maxTokens : 1024,
  };
}

/**
 * Registers `sampling/createMessage` when the server entry allows it. A request goes to the one call in
 * flight with a sampler (`calls()`); with none or several it is refused.
 */
export function serveSampling(
  client: Client,
  serverId: string,
  config: McpServerConfig,
  calls: () => readonly SampleHandler[],
  logger: Logger,
): void {
  if (config.sampling !== true) return;
  client.setRequestHandler('sampling/createMessage', async (request) => {
    const candidates = calls();
    const sample = candidates.length === 1 ? candidates[0] : undefined;
    if (!sample) {
      logger.warn('MCP sampling refused', { server: serverId, calls: candidates.length });
      throw new Error(
        candidates.length === 0
          ? 'sampling is only answered during a tool call of this client'
          : 'several tool calls are in flight; the request does not say which one it belongs to',
      );
    }
    const result = await sample(samplingRequestOf(request.params));
    return {
      role: 'assistant' as const,
      content: { type: 'text' as const, text: result.text },
      model: result.model,
      stopReason: 'endTurn',
    };
  });
}

/**
 * Runs `run` with `handler` in `calls` while it runs (nothing without one): the calls in flight that a
 * server's requests and notifications (sampling, log messages) are told to.
 */
export async function whileInFlight<H, T>(
  calls: Set<H>,
  handler: H | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!handler) return run();
  calls.add(handler);
  try {
    return await run();
  } finally {
    calls.delete(handler);
  }
}
