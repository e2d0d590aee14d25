/**
 * What the real provider APIs refuse, checked the way their documentation states it. Each check
 * returns the refusal message (as the service words it, where known) or null when the request is fine.
 */

type Json = Record<string, unknown>;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const TOOL_USE_ID = /^[a-zA-Z0-9_-]+$/;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const blocksOf = (content: unknown): Json[] =>
  typeof content === 'string'
    ? [{ type: 'text', text: content }]
    : Array.isArray(content)
      ? content.filter(isRecord)
      : [];

/**
 * Anthropic Messages (`POST /v1/messages`): `model` and `max_tokens` required; `messages` non-empty,
 * first and last `user`; no empty text blocks; every `tool_use` answered by a `tool_result` in the next
 * (user) message, tool results first in that message, each answering a `tool_use` of the message before;
 * a tool result's content a string or text / image / document / search_result blocks; images base64 of
 * PNG, JPEG, GIF or WebP up to 5 MB, or a URL; tool names and ids by pattern; system as a string or text
 * blocks; at most 4 `cache_control` blocks.
 */
export function anthropicRefusal(body: Json): string | null {
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || (body.max_tokens as number) < 1)
    return 'max_tokens: Field required';
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  const problem =
    anthropicSystem(body.system) ?? anthropicTools(body.tools) ?? anthropicMessages(messages as unknown[]);
  if (problem) return problem;
  if (countCacheControl(body) > 4)
    return 'A maximum of 4 blocks with cache_control may be provided. Found more.';
  return null;
}

function anthropicSystem(system: unknown): string | null {
  if (system === undefined || typeof system === 'string') return null;
  if (!Array.isArray(system)) return 'system: Input should be a valid list';
  for (const [i, block] of system.entries()) {
    if (!isRecord(block) || block.type !== 'text') return `system.${i}.type: Input should be 'text'`;
    if (typeof block.text !== 'string' || block.text === '')
      return 'system: text content blocks must be non-empty';
  }
  return null;
}

function anthropicTools(tools: unknown): string | null {
  if (tools === undefined) return null;
  if (!Array.isArray(tools)) return 'tools: Input should be a valid list';
  for (const [i, tool] of tools.entries()) {
    if (!isRecord(tool) || typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      return `tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`;
    if (!isRecord(tool.input_schema) || tool.input_schema.type !== 'object')
      return `tools.${i}.custom.input_schema.type: Input should be 'object'`;
  }
  return null;
}

function anthropicMessages(messages: unknown[]): string | null {
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant'))
      return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const blocks = blocksOf(message.content);
    if (blocks.length === 0)
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    for (const block of blocks) {
      if (block.type === 'text' && (typeof block.text !== 'string' || block.text === ''))
        return 'messages: text content blocks must be non-empty';
      if (block.type === 'text' && (block.text as string).trim() === '')
        return 'messages: text content blocks must contain non-whitespace text';
      if (block.type === 'tool_use' && (typeof block.id !== 'string' || !TOOL_USE_ID.test(block.id)))
        return `messages.${i}.content: tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
      if (block.type === 'tool_use' && message.role !== 'assistant')
        return `messages.${i}: tool_use blocks are only allowed in assistant messages`;
      if (block.type === 'tool_result' && message.role !== 'user')
        return `messages.${i}: tool_result blocks are only allowed in user messages`;
      const inner = block.type === 'tool_result' ? toolResultProblem(block.content) : null;
      if (inner) return `messages.${i}.content.${blocks.indexOf(block)}.tool_result.${inner}`;
      if (block.type === 'image') {
        const image = imageProblem(block);
        if (image) return `messages.${i}.content.${blocks.indexOf(block)}.image.${image}`;
      }
    }
  }
  if ((messages[0] as Json).role !== 'user') return 'messages: first message must use the "user" role';
  if ((messages.at(-1) as Json).role !== 'user')
    return 'messages: the final message must use the "user" role (this runtime never prefills)';
  return anthropicPairing(messages as Json[]);
}

/** Block types a `tool_result`'s content may hold. */
const TOOL_RESULT_BLOCKS = new Set(['text', 'image', 'document', 'search_result']);
/** Media types of base64 images. */
const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'];
/** The most base64 an image may carry (5 MB). */
const MAX_IMAGE_BASE64 = 5 * 1024 * 1024;

/** A `tool_result`'s content: a string, or text / image / document / search_result blocks. */
function toolResultProblem(content: unknown): string | null {
  if (content === undefined || typeof content === 'string') return null;
  if (!Array.isArray(content)) return 'content: Input should be a valid string or list';
  for (const [j, block] of content.entries()) {
    if (!isRecord(block) || !TOOL_RESULT_BLOCKS.has(block.type as string))
      return `content.${j}: Input tag '${String(isRecord(block) ? block.type : block)}' found using 'type' does not match any of the expected tags: 'text', 'image', 'search_result', 'document'`;
    if (block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === ''))
      return `content.${j}.text: text content blocks must contain non-whitespace text`;
    if (block.type === 'image') {
      const image = imageProblem(block);
      if (image) return `content.${j}.image.${image}`;
    }
  }
  return null;
}

/** An image block: a base64 source of a supported media type within the size limit, or a URL. */
function imageProblem(block: Json): string | null {
  const source = block.source;
  if (!isRecord(source)) return 'source: Field required';
  if (source.type === 'url') return typeof source.url === 'string' ? null : 'source.url.url: Field required';
  if (source.type !== 'base64')
    return `source: Input tag '${String(source.type)}' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'`;
  if (!IMAGE_MEDIA_TYPES.includes(source.media_type as string))
    return "source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'";
  if (typeof source.data !== 'string' || source.data === '') return 'source.base64.data: Field required';
  if (source.data.length > MAX_IMAGE_BASE64)
    return `source.base64: image exceeds 5 MB maximum: ${source.data.length} bytes > ${MAX_IMAGE_BASE64} bytes`;
  return null;
}

/** tool_use ↔ tool_result pairing between neighbouring messages. */
function anthropicPairing(messages: Json[]): string | null {
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message.content);
    const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
    const previous = i > 0 ? blocksOf(messages[i - 1]!.content) : [];
    const previousUses = new Set(previous.filter((b) => b.type === 'tool_use').map((b) => b.id as string));
    const results = blocks.filter((b) => b.type === 'tool_result');
    const firstOther = blocks.findIndex((b) => b.type !== 'tool_result');
    if (
      results.length > 0 &&
      firstOther !== -1 &&
      blocks.slice(firstOther).some((b) => b.type === 'tool_result')
    )
      return `messages.${i}: tool_result blocks must come first in the content, before any other block`;
    for (const result of results) {
      if (!previousUses.has(result.tool_use_id as string))
        return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(result.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
    }
    if (uses.length === 0) continue;
    const next = messages[i + 1];
    const answered = new Set(
      blocksOf(next?.content)
        .filter((b) => b.type === 'tool_result')
        .map((b) => b.tool_use_id as string),
    );
    const missing = uses.filter((id) => !answered.has(id));
    if (missing.length > 0)
      return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  return null;
}

function countCacheControl(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + countCacheControl(v), 0);
  if (!isRecord(value)) return 0;
  let n = isRecord(value.cache_control) ? 1 : 0;
  for (const [key, v] of Object.entries(value)) if (key !== 'cache_control') n += countCacheControl(v);
  return n;
}

/** A refusal of OpenAI Chat Completions: the message and the offending `param`. */
export interface OpenAiRefusal {
  message: string;
  param: string | null;
}

/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`): `model` required, `messages` non-empty with
 * known roles; at least one user message; every `tool` message answers a `tool_calls` id of the
 * assistant message before its run of tool messages; every tool call answered before the next non-tool
 * message; a tool message's content text only (images only in user messages); no trailing assistant
 * message; function names by pattern; `stream_options` only with `stream`.
 */
export function openAiRefusal(body: Json): OpenAiRefusal | null {
  if (typeof body.model !== 'string' || body.model === '')
    return { message: 'you must provide a model parameter', param: null };
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0)
    return { message: "[] is too short - 'messages'", param: 'messages' };
  if (body.stream_options !== undefined && body.stream !== true)
    return {
      message: 'The parameter `stream_options` is only allowed when `stream` is enabled.',
      param: 'stream_options',
    };
  const tools = Array.isArray(body.tools) ? (body.tools as unknown[]) : [];
  for (const [i, tool] of tools.entries()) {
    const name = isRecord(tool) && isRecord(tool.function) ? tool.function.name : undefined;
    if (typeof name !== 'string' || !TOOL_NAME.test(name))
      return {
        message: `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        param: `tools[${i}].function.name`,
      };
  }
  return openAiMessages(messages as unknown[]);
}

function openAiMessages(messages: unknown[]): OpenAiRefusal | null {
  let open: { index: number; ids: Set<string> } | null = null;
  for (const [i, message] of messages.entries()) {
    const role = isRecord(message) ? message.role : undefined;
    if (!isRecord(message) || !['system', 'developer', 'user', 'assistant', 'tool'].includes(role as string))
      return {
        message: `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'developer'.`,
        param: `messages.[${i}].role`,
      };
    if (role === 'tool') {
      // A tool message's content is a string or text parts: images go in user messages only.
      const parts = Array.isArray(message.content) ? (message.content as unknown[]) : [];
      const other = parts.findIndex((p) => !isRecord(p) || p.type !== 'text');
      if (other !== -1)
        return {
          message: `Invalid value: '${String(isRecord(parts[other]) ? parts[other].type : parts[other])}'. Supported values are: 'text'.`,
          param: `messages.[${i}].content.[${other}].type`,
        };
      const id = message.tool_call_id as string;
      if (!open || !open.ids.has(id))
        return {
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `messages.[${i}].role`,
        };
      open.ids.delete(id);
      continue;
    }
    if (open && open.ids.size > 0)
      return {
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.ids].join(', ')}`,
        param: `messages.[${open.index}].role`,
      };
    open = null;
    if (role === 'assistant' && Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
      open = { index: i, ids: new Set((message.tool_calls as Json[]).map((c) => c.id as string)) };
    if (
      role === 'user' &&
      (message.content === '' || message.content === null || message.content === undefined)
    )
      return {
        message: `Invalid 'messages[${i}].content': string too short. Expected a string with minimum length 1, but got an empty string instead.`,
        param: `messages.[${i}].content`,
      };
  }
  if (open && open.ids.size > 0)
    return {
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.ids].join(', ')}`,
      param: `messages.[${open.index}].role`,
    };
  if (!messages.some((m) => isRecord(m) && m.role === 'user'))
    return { message: 'No user query found in messages.', param: 'messages' };
  if (isRecord(messages.at(-1)) && (messages.at(-1) as Json).role === 'assistant')
    return {
      message: 'The final message must not be an assistant message (this runtime never prefills).',
      param: 'messages',
    };
  return null;
}

/**
 * The Qwen chat template (vLLM, Ollama) on top of the OpenAI rules: it raises "No user query found in
 * messages." unless some user message is a real query (not a `<tool_response>` wrapper), and a system
 * message is allowed only first.
 */
export function qwenTemplateRefusal(body: Json): string | null {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const query = messages.some(
    (m) =>
      m.role === 'user' && !(typeof m.content === 'string' && m.content.trim().startsWith('<tool_response>')),
  );
  if (!query) return 'No user query found in messages.';
  if (messages.some((m, i) => m.role === 'system' && i > 0))
    return 'System message must be at the beginning.';
  return null;
}
