import type { ConversationMessage, ModelTool } from '../model/model.js';

/**
 * Deterministic size estimates of model requests, and the default context budget of known models.
 * The estimate is conservative on purpose: it counts more tokens than the providers' tokenizers
 * usually do, and about as many as a third of the bytes of the JSON request body that carries the
 * conversation. An ASCII character counts a third of a token, and twice that when a JSON body
 * escapes it (quote, backslash, control characters such as newlines); any other character (CJK,
 * emoji: three or four bytes) one token; every message, tool call and tool definition a fixed
 * overhead for its JSON wrapping (role, type and id fields). It depends only on the text, so every
 * process computes the same number for the same conversation.
 */

/** Tokens added per message and per tool call, and per tool definition (a third of their JSON wrapping's bytes). */
const MESSAGE_OVERHEAD = 16;
const TOOL_OVERHEAD = 32;

/** Estimated tokens of a text. */
export function estimateText(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c)
      ascii += 2; // escaped in a JSON body: \n, \", \\
    else if (c < 128) ascii += 1;
    else if (c < 0xdc00 || c > 0xdfff) other += 1; // a surrogate pair counts once
  }
  return Math.ceil(ascii / 3) + other;
}

/** Estimated tokens of one conversation message as a provider would receive it. */
export function estimateMessage(message: ConversationMessage): number {
  switch (message.role) {
    case 'user':
      return MESSAGE_OVERHEAD + estimateText(message.content);
    case 'tool':
      return MESSAGE_OVERHEAD + estimateText(message.callId) + estimateText(message.content);
    case 'assistant': {
      let n = MESSAGE_OVERHEAD + estimateText(message.text);
      for (const call of message.toolCalls)
        n += MESSAGE_OVERHEAD + estimateText(call.callId + call.tool + call.rawArgs);
      return n;
    }
  }
}

/** Estimated tokens of a list of messages. */
export function estimateMessages(messages: readonly ConversationMessage[]): number {
  let n = 0;
  for (const message of messages) {
    // Messages are never changed in place, so an estimate holds for the message object's life.
    let size = ESTIMATES.get(message);
    if (size === undefined) ESTIMATES.set(message, (size = estimateMessage(message)));
    n += size;
  }
  return n;
}

const ESTIMATES = new WeakMap<ConversationMessage, number>();

/** Estimated tokens of the parts of a request besides the conversation: the system prompt and the tools. */
export function estimateFixed(system: string, tools: readonly ModelTool[]): number {
  let n = MESSAGE_OVERHEAD + estimateText(system);
  for (const tool of tools) {
    n +=
      TOOL_OVERHEAD +
      estimateText(tool.name) +
      estimateText(tool.description) +
      estimateText(JSON.stringify(tool.inputSchema));
  }
  return n;
}

/** Estimated tokens of a whole request (what the test fakes and the compaction measure). */
export function estimateRequest(request: {
  system: string;
  messages: readonly ConversationMessage[];
  tools: readonly ModelTool[];
}): number {
  return estimateFixed(request.system, request.tools) + estimateMessages(request.messages);
}

/**
 * Default context budgets of known models, in tokens, matched against the model id (the part after
 * `<provider>:`; a fine-tune's base, a gateway id's last `/` part) by prefix, first match wins. Each is about 80% of the model's documented context
 * window, leaving room for the answer and for the estimate's error. Documented in docs/flows.md.
 */
export const KNOWN_CONTEXT_BUDGETS: readonly { prefix: string; tokens: number }[] = Object.freeze([
  { prefix: 'gpt-4.1', tokens: 800_000 },
  { prefix: 'gpt-4o', tokens: 100_000 },
  { prefix: 'gpt-5', tokens: 300_000 },
  { prefix: 'o3', tokens: 160_000 },
  { prefix: 'o4-mini', tokens: 160_000 },
  { prefix: 'claude-', tokens: 160_000 },
  { prefix: 'qwen-max', tokens: 26_000 },
  { prefix: 'qwen-plus', tokens: 100_000 },
  { prefix: 'qwen-turbo', tokens: 800_000 },
  { prefix: 'qwen-long', tokens: 800_000 },
  { prefix: 'deepseek-chat', tokens: 50_000 },
  { prefix: 'deepseek-reasoner', tokens: 50_000 },
]);

/**
 * The context budget of a node: `limits.contextTokens` when given, else the known model's default,
 * else null (no compaction: a model the runtime does not know needs an explicit budget).
 */
export function contextBudget(explicit: number | undefined, modelName: string): number | null {
  if (explicit !== undefined) return explicit;
  const id = knownModelId(modelName);
  const known = id === null ? undefined : KNOWN_CONTEXT_BUDGETS.find((k) => id.startsWith(k.prefix));
  return known ? known.tokens : null;
}

/**
 * The part of a model name matched against the known prefixes: the id after `<provider>:`, of a
 * fine-tune (`ft:BASE:org:…`) its base, behind a gateway's vendor path (`anthropic/claude-sonnet-4`) the
 * last part. Null for a scripted model, whose id is a file path.
 */
function knownModelId(modelName: string): string | null {
  const at = modelName.indexOf(':');
  if (at >= 0 && modelName.slice(0, at) === 'scripted') return null;
  let id = at >= 0 ? modelName.slice(at + 1) : modelName;
  if (id.startsWith('ft:')) id = id.slice(3).split(':')[0] ?? '';
  return id.slice(id.lastIndexOf('/') + 1);
}
