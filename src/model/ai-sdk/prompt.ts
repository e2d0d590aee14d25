import type {
  LanguageModelV4FunctionTool,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolCallPart,
  LanguageModelV4ToolResultOutput,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import type { ToolImage } from '../../domain/tool-image.js';
import type { ConversationMessage, ModelTool } from '../model.js';

/**
 * Which images of tool results a model is shown (`toolResultImages` of the adapter): those it
 * accepts go with the tool result as image parts, after the text that holds every placeholder.
 * Absent: no images, the placeholders only.
 */
export type ToolImagePolicy = (image: ToolImage) => boolean;

/**
 * Converts the system prompt and the provider-neutral conversation (what the store keeps) into the
 * AI SDK's language-model prompt. Assistant tool calls keep their ids and their raw argument strings
 * (the providers re-serialise them; a string that is not a JSON object goes back as `{}`), each tool
 * message becomes a tool result for its call id, and consecutive tool messages share one tool message.
 * Call ids are made safe for every provider (Anthropic accepts `[A-Za-z0-9_-]` only), the same way for
 * a call and its result, so a conversation started on one provider continues on another. With `cache`,
 * the system message carries an Anthropic cache breakpoint (other providers ignore it). With `images`,
 * a tool result's images that the policy accepts follow its text as file parts.
 */
export function toPrompt(
  system: string,
  messages: readonly ConversationMessage[],
  cache = false,
  images?: ToolImagePolicy,
): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [];
  if (system !== '') prompt.push(systemMessage(system, cache));
  for (const message of messages) appendMessage(prompt, message, images);
  return prompt;
}

/** The system message of a prompt, with the cache breakpoint when `cache` is set. */
export function systemMessage(system: string, cache: boolean): LanguageModelV4Message {
  return { role: 'system', content: system, ...(cache ? { providerOptions: CACHE_BREAKPOINT } : {}) };
}

/**
 * Appends one conversation message to a prompt in the making. A tool result after a tool message
 * replaces that message by a new one with the result added (a message already in the prompt is never
 * changed, so a prompt handed out stays as it was). `images` as in `toPrompt`.
 */
export function appendMessage(
  prompt: LanguageModelV4Message[],
  message: ConversationMessage,
  images?: ToolImagePolicy,
): void {
  switch (message.role) {
    case 'user':
      prompt.push({ role: 'user', content: [{ type: 'text', text: message.content }] });
      break;
    case 'assistant':
      // An empty turn (no text, no calls) is left out: Anthropic rejects empty text blocks.
      if (message.text !== '' || message.toolCalls.length > 0) prompt.push(assistantMessage(message));
      break;
    case 'tool':
      appendToolResult(prompt, {
        type: 'tool-result',
        toolCallId: safeCallId(message.callId),
        toolName: message.tool,
        output: toolOutput(message.content, images ? (message.images ?? []).filter(images) : []),
      });
      break;
  }
}

/** A tool result's output: its text, and the images shown, each as a file part of its media type. */
function toolOutput(text: string, images: readonly ToolImage[]): LanguageModelV4ToolResultOutput {
  if (images.length === 0) return { type: 'text', value: text };
  return {
    type: 'content',
    value: [
      { type: 'text', text },
      ...images.map((image) => ({
        type: 'file' as const,
        data: { type: 'data' as const, data: image.data },
        mediaType: image.mimeType,
      })),
    ],
  };
}

/**
 * Anthropic's prompt-cache breakpoint (`cache_control: {type: 'ephemeral'}`) as AI SDK provider
 * options: the Anthropic provider puts it on the block it marks; every other provider ignores it.
 */
export const CACHE_BREAKPOINT = Object.freeze({ anthropic: { cacheControl: { type: 'ephemeral' } } });

/**
 * The tools offered to the model, each with its JSON Schema as is. With `cache`, the last tool carries
 * a cache breakpoint, which on Anthropic caches the whole tool list.
 */
export function toTools(tools: readonly ModelTool[], cache = false): LanguageModelV4FunctionTool[] {
  return tools.map((tool, i) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(cache && i === tools.length - 1 ? { providerOptions: CACHE_BREAKPOINT } : {}),
  }));
}

/** A call id every provider accepts: characters other than letters, digits, `_` and `-` become `_`. */
export function safeCallId(callId: string): string {
  const safe = callId.replace(/[^A-Za-z0-9_-]/g, '_');
  return safe === '' ? 'call' : safe;
}

function assistantMessage(
  message: Extract<ConversationMessage, { role: 'assistant' }>,
): LanguageModelV4Message {
  const content: (LanguageModelV4ToolCallPart | { type: 'text'; text: string })[] = [];
  if (message.text !== '') content.push({ type: 'text', text: message.text });
  for (const call of message.toolCalls) {
    content.push({
      type: 'tool-call',
      toolCallId: safeCallId(call.callId),
      toolName: call.tool,
      input: call.rawArgs,
    });
  }
  return { role: 'assistant', content };
}

function appendToolResult(prompt: LanguageModelV4Message[], part: LanguageModelV4ToolResultPart): void {
  const last = prompt.at(-1);
  if (last?.role === 'tool') prompt[prompt.length - 1] = { role: 'tool', content: [...last.content, part] };
  else prompt.push({ role: 'tool', content: [part] });
}
