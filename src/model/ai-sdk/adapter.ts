import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { ModelCallContext, ModelClient, ModelRequest, ModelResult } from '../model.js';
import { redact } from './errors.js';
import { callable, type AiSdkLanguageModel, type CallableLanguageModel } from './language-model.js';
import { PromptConverter } from './prompt-cache.js';
import { toTools, type ToolImagePolicy } from './prompt.js';
import { fromContent, fromStream, type CollectedResponse } from './response.js';
import { realClock, withRetries, type RetryClock, type RetryPolicy } from './retry.js';

/** Options of `aiSdkModel`; every one has a default. */
export interface AiSdkModelOptions {
  /** The display name used in messages and traces; default `<provider>:<model id>` from the model. */
  id?: string;
  /** Use the provider's streaming endpoint (`doStream`, e.g. SSE) instead of `doGenerate`. Default false. */
  stream?: boolean;
  /** Time limit of one attempt in ms (default 120000). */
  timeoutMs?: number;
  /** Retries after a 408/409/429/5xx, network error or timeout (default 2; 0 for none). */
  maxRetries?: number;
  /** First backoff in ms, doubled per retry, with jitter (default 1000). */
  initialRetryDelayMs?: number;
  /** Cap of any wait between attempts, including a provider's `retry-after`, in ms (default 30000). */
  maxRetryDelayMs?: number;
  /**
   * Anthropic prompt caching: cache breakpoints (`cache_control`) on the tool list and the system
   * prompt, which stay the same across the rounds of a node. Default true; false sends none. Other
   * providers ignore the breakpoints (OpenAI caches long prompt prefixes by itself).
   */
  promptCache?: boolean;
  /**
   * Send the images of MCP tool results to the model, as image parts of the tool result (a PNG,
   * JPEG, GIF or WebP of at most 5 MiB of base64; other images stay text placeholders). Default:
   * true for Anthropic Messages models (AI SDK v4 specification), whose API takes images in tool
   * results; false for the rest — OpenAI Chat Completions and compatible servers take text only in
   * tool messages. Set false for a model that does not read images, true for another provider whose
   * AI SDK provider maps file parts of tool results to images.
   */
  toolResultImages?: boolean;
  /** Passed to the provider when set. */
  maxOutputTokens?: number;
  temperature?: number;
  /** Extra HTTP headers for each request. */
  headers?: Record<string, string>;
  /** Strings never to show in a message (API keys, secret header values); replaced by `***`. */
  secrets?: readonly string[];
  /** Timers and randomness of the retry loop (tests inject their own). */
  clock?: RetryClock;
}

/** Defaults of `AiSdkModelOptions`. */
export const AI_SDK_MODEL_DEFAULTS = Object.freeze({
  timeoutMs: 120_000,
  maxRetries: 2,
  initialRetryDelayMs: 1_000,
  maxRetryDelayMs: 30_000,
});

/**
 * A ModelClient over an AI SDK language model, called at the language-model level (`doGenerate` or
 * `doStream`), so tool-call argument strings reach the pipeline exactly as the model wrote them (no
 * SDK parsing or schema validation: ARG_JSON_INVALID / ARG_REJECTED come from our guards). Tools are
 * passed with their JSON Schemas; the provider-neutral conversation is converted incrementally (only
 * the messages a request adds to the previous one's, src/model/ai-sdk/prompt-cache.ts). Each
 * attempt has a timeout; 408/409/429/5xx, network errors and timeouts are retried with backoff
 * (honouring `retry-after` up to the cap); the request's signal cancels. Never throws: a failure is
 * `{ok: false, message, detail}`: `message` for viewers, like `openai:gpt-4.1: HTTP 401 Unauthorized`
 * (no provider host, port or answer text), `detail` for the server log, like `openai:gpt-4.1: HTTP 401
 * Incorrect API key provided` (secrets redacted from both).
 */
export function aiSdkModel(languageModel: AiSdkLanguageModel, options: AiSdkModelOptions = {}): ModelClient {
  const model = callable(languageModel);
  const id = options.id ?? `${model.provider.split('.')[0] ?? model.provider}:${model.modelId}`;
  const policy: RetryPolicy = {
    timeoutMs: options.timeoutMs ?? AI_SDK_MODEL_DEFAULTS.timeoutMs,
    maxRetries: options.maxRetries ?? AI_SDK_MODEL_DEFAULTS.maxRetries,
    initialDelayMs: options.initialRetryDelayMs ?? AI_SDK_MODEL_DEFAULTS.initialRetryDelayMs,
    maxDelayMs: options.maxRetryDelayMs ?? AI_SDK_MODEL_DEFAULTS.maxRetryDelayMs,
  };
  const clock = options.clock ?? realClock;
  const secrets = [...(options.secrets ?? [])];
  const converter = new PromptConverter(imagePolicy(languageModel, options.toolResultImages));
  return {
    id,
    async call(request: ModelRequest, _context: ModelCallContext): Promise<ModelResult> {
      const outcome = await withRetries(
        (signal) => invoke(model, converter, request, options, signal),
        policy,
        clock,
        request.signal,
      );
      if (outcome.ok) return { ok: true, ...outcome.value };
      const tries = outcome.attempts > 1 ? ` (${outcome.attempts} attempts)` : '';
      const { message, detail } = outcome.failure;
      return {
        ok: false,
        message: redact(`${id}: ${message}${tries}`, secrets),
        ...(detail !== message ? { detail: redact(`${id}: ${detail}${tries}`, secrets) } : {}),
      };
    },
  };
}

/** Media types of images sent with tool results (what Anthropic accepts; the common web formats). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** The largest image sent, in base64 characters (Anthropic refuses more than 5 MiB). */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

/** Which tool-result images the model is shown: none unless `enabled`, or by default an Anthropic v4 model. */
function imagePolicy(model: AiSdkLanguageModel, enabled?: boolean): ToolImagePolicy | undefined {
  const on =
    enabled ?? (model.specificationVersion === 'v4' && model.provider.toLowerCase().startsWith('anthropic'));
  if (!on) return undefined;
  return (image) => IMAGE_TYPES.has(image.mimeType) && image.data.length <= MAX_IMAGE_BASE64;
}

async function invoke(
  model: CallableLanguageModel,
  converter: PromptConverter,
  request: ModelRequest,
  options: AiSdkModelOptions,
  signal: AbortSignal,
): Promise<CollectedResponse> {
  const cache = options.promptCache !== false;
  const tools = toTools(request.tools, cache);
  // The request's limit (a flow's `limits.maxOutputTokens`) wins over the adapter option.
  const outputLimit = request.maxOutputTokens ?? options.maxOutputTokens;
  const callOptions: LanguageModelV4CallOptions = {
    prompt: converter.convert(request.system, request.messages, cache),
    abortSignal: signal,
    ...(tools.length > 0 ? { tools, toolChoice: { type: 'auto' } } : {}),
    ...(outputLimit !== undefined ? { maxOutputTokens: outputLimit } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
  if (options.stream) {
    const { stream } = await model.doStream(callOptions);
    return fromStream(stream, request.onDelta);
  }
  const result = await model.doGenerate(callOptions);
  return fromContent(result.content, result.usage);
}
