import type { Attributes } from '@opentelemetry/api';
import type { Observation } from '../domain/observation.js';
import type { ConversationMessage, ModelRequest, ModelResult } from '../model/model.js';

/** Longest content attribute exported (characters); longer texts are cut and marked. */
const MAX_CONTENT = 16_384;

/** Longest label (a model id, flow id or version from a request) kept as a span or metric attribute. */
export const MAX_LABEL = 128;

/**
 * A request-borne label as an attribute value: control characters, line and paragraph separators
 * and lone surrogates shown as `\u{…}` escapes, then cut to 128 characters (marked with …). Metric
 * attributes become time series that exporters keep: an unbounded label is unbounded memory.
 */
export function label(value: string | number): string {
  const text = String(value).replace(
    // eslint-disable-next-line no-control-regex -- control characters are what it shows as escapes
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (ch) => `\\u{${ch.charCodeAt(0).toString(16)}}`,
  );
  if (text.length <= MAX_LABEL) return text;
  const cut = text.slice(0, MAX_LABEL - 1);
  // Never end on half of a surrogate pair.
  return `${/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

/**
 * `gen_ai.provider.name` and `gen_ai.request.model` from a model id (`openai:gpt-4.1`); a scripted
 * model's file path is reduced to its file name. Both are labels (`label`): escaped and capped.
 */
export function splitModelId(id: string): { provider: string; model: string } {
  const colon = id.indexOf(':');
  if (colon < 0) return { provider: 'unknown', model: label(id) };
  const provider = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  const model = provider === 'scripted' ? (rest.split(/[\\/]/).pop() ?? rest) : rest;
  return { provider: label(provider), model: label(model) };
}

/** The prompt of a chat span (exported only with content capture on): system, messages and tools. */
export function chatContentAttributes(request: ModelRequest): Attributes {
  return {
    'gen_ai.system_instructions': cap(JSON.stringify([{ type: 'text', content: request.system }])),
    'gen_ai.input.messages': cap(JSON.stringify(request.messages.map(toSemconvMessage))),
    'gen_ai.tool.definitions': cap(
      JSON.stringify(
        request.tools.map((t) => ({ type: 'function', name: t.name, description: t.description })),
      ),
    ),
  };
}

/** Token usage and finish reason of a chat span, and its output messages with content capture on. */
export function chatResultAttributes(result: ModelResult, captureContent: boolean): Attributes {
  if (!result.ok) return { 'error.type': 'MODEL_FAILED' };
  const attributes: Attributes = {
    'gen_ai.usage.input_tokens': result.usage.inputTokens,
    'gen_ai.usage.output_tokens': result.usage.outputTokens,
    'gen_ai.response.finish_reasons': [result.toolCalls.length > 0 ? 'tool_calls' : 'stop'],
  };
  if (captureContent) {
    const message = toSemconvMessage({ role: 'assistant', text: result.text, toolCalls: result.toolCalls });
    attributes['gen_ai.output.messages'] = cap(JSON.stringify([message]));
  }
  return attributes;
}

/** The arguments and the observation of a tool call (exported only with content capture on). */
export function toolContentAttributes(rawArgs: string, obs: Observation): Attributes {
  return {
    'gen_ai.tool.call.arguments': cap(rawArgs),
    'gen_ai.tool.call.result': cap(JSON.stringify(obs.toJSON())),
  };
}

/** A conversation message in the GenAI conventions' message shape (role and parts). */
function toSemconvMessage(message: ConversationMessage): Record<string, unknown> {
  if (message.role === 'user') return { role: 'user', parts: [{ type: 'text', content: message.content }] };
  if (message.role === 'tool') {
    return {
      role: 'tool',
      parts: [{ type: 'tool_call_response', id: message.callId, response: message.content }],
    };
  }
  const parts: Record<string, unknown>[] = message.text ? [{ type: 'text', content: message.text }] : [];
  for (const call of message.toolCalls)
    parts.push({ type: 'tool_call', id: call.callId, name: call.tool, arguments: call.rawArgs });
  return { role: 'assistant', parts };
}

function cap(text: string): string {
  return text.length <= MAX_CONTENT ? text : `${text.slice(0, MAX_CONTENT)}…[truncated]`;
}
